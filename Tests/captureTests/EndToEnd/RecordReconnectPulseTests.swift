import Foundation
import Testing

/// `record --reconnect` from a PulseAudio source whose server crashes and comes back, or hangs:
/// a real server started for the test (its 440 Hz sine source), killed, restarted or stopped with
/// signals while the recording runs; ffprobe and ffmpeg's silencedetect read the file back.
@Suite(.serialized) struct RecordReconnectPulseTests {
    /// Starts `capture record` from the server's sine source into `file` with `extra` options.
    private static func record(
        _ extra: [String], file: String, server: MicrophonePulseTests.TestServer, scratch: RecordScratch
    ) throws -> ChildProcess {
        try ChildProcess(
            BuiltBinary.path,
            ["record", "--audio", "pulse:capture_test_tone", "--reconnect", "--json"] + extra + [file],
            environment: server.environment, stdout: .file(scratch.path("capture.stdout")),
            stderr: .file(scratch.path("capture.stderr")))
    }

    /// Waits for the recording to end: its exit, stdout and stderr.
    private static func outcome(
        _ capture: ChildProcess, scratch: RecordScratch, timeout: TimeInterval = 30
    ) throws -> (exit: ChildProcess.Exit, stdout: String, stderr: String) {
        let exit = try #require(capture.wait(timeout: timeout))
        return (
            exit, try String(contentsOfFile: scratch.path("capture.stdout"), encoding: .utf8),
            try String(contentsOfFile: scratch.path("capture.stderr"), encoding: .utf8)
        )
    }

    /// A recording with `extra` options into `file` (in `scratch`) whose server crashes 2.5 s in
    /// and is started again at `back` s: its exit, stderr, events and the summary's audio part.
    private static func acrossACrash(
        _ extra: [String], file: String, back: TimeInterval, scratch: RecordScratch
    ) throws -> (exit: ChildProcess.Exit, stderr: String, events: [[String: Any]], audio: [String: Any]) {
        let server = try MicrophonePulseTests.TestServer()
        defer { server.stop() }
        let capture = try record(extra, file: file, server: server, scratch: scratch)
        capture.sleep(untilElapsed: 2.5)
        server.crash()
        capture.sleep(untilElapsed: back)
        try server.restart()
        let (exit, stdout, stderr) = try outcome(capture, scratch: scratch)
        #expect(exit.shellStatus == 0, "\(stderr)")
        let (events, summary) = try RecordSegmentTests.events(stdout)
        let audio = try #require(summary["audio"] as? [String: Any])
        #expect(audio["reconnects"] as? Int == 1, "\(stdout)")
        return (exit, stderr, events, audio)
    }

    /// The silent stretches of `file` (start, length in seconds) below -50 dB for 0.3 s or more.
    private static func silences(_ file: String) throws -> [(start: Double, length: Double)] {
        let result = try ChildProcess.run(
            "ffmpeg", ["-nostdin", "-i", file, "-af", "silencedetect=n=-50dB:d=0.3", "-f", "null", "-"])
        var found: [(Double, Double)] = []
        var start: Double?
        for line in result.stderr.split(separator: "\n") {
            if let range = line.range(of: "silence_start: ") {
                start = Double(line[range.upperBound...].prefix { !$0.isWhitespace })
            } else if let range = line.range(of: "silence_duration: "), let begin = start {
                found.append((begin, Double(line[range.upperBound...].prefix { !$0.isWhitespace }) ?? 0))
                start = nil
            }
        }
        return found
    }

    /// A server that crashes 2.5 s in and is back 2 s later: the recording waits for the source,
    /// reopens it, and lasts as long as asked, the gap silence between tone before and after.
    @Test func aServerThatRestartsIsWaitedFor() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("restart.wav")
        let (_, stderr, events, audio) = try Self.acrossACrash(
            ["--duration", "8"], file: file, back: 4.5, scratch: scratch)
        // The gap is the server's absence, not an overrun of the device's buffer.
        #expect(audio["overruns"] as? Int == 0, "\(audio)")
        let lost = events.first { $0["event"] as? String == "device_lost" }
        #expect((lost?["reason"] as? String)?.contains("sound server") == true, "\(events)")
        #expect(events.contains { $0["event"] as? String == "device_back" }, "\(events)")
        #expect(stderr.contains("pulse:capture_test_tone: the device was lost"), "\(stderr)")
        let duration = try #require(try RecordOracle.probe(file).duration)
        #expect(abs(duration - 8) <= 0.2, "duration \(duration)")
        // One silent stretch where the server was away (at least its 2 s), tone on both sides.
        let quiet = try Self.silences(file)
        #expect(quiet.count == 1, "\(quiet)")
        if let gap = quiet.first {
            #expect(gap.length >= 1.8 && gap.start > 0.3 && gap.start + gap.length < duration - 0.3, "\(quiet)")
        }
    }

    /// Segments go on being cut on time while the server is away, with the test pattern: the
    /// silence is written as the gap goes, so every 2 s file holds its frames and 2 s of sound, and
    /// the samples add up to the whole recording.
    @Test func segmentsAreCutOnTimeWhileTheServerIsAway() throws {
        let scratch = try RecordScratch()
        let (_, _, events, audio) = try Self.acrossACrash(
            ["--video", "test", "--segment-time", "2", "--duration", "8"], file: scratch.path("gap-%n.mkv"), back: 5.5,
            scratch: scratch)
        let closed = events.filter { $0["event"] as? String == "segment_closed" }
        #expect(closed.count == 4, "\(events)")
        var samples = 0
        for event in closed {
            let path = try #require(event["path"] as? String)
            let probe = try RecordOracle.probe(path)
            #expect(abs((probe.duration ?? 0) - 2) <= 0.1, "\(path): \(probe.duration ?? 0) s")
            // 60 on a quiet machine; a starved test pattern may skip a few.
            #expect((50...60).contains(event["frames"] as? Int ?? 0), "\(event)")
            samples += event["samples"] as? Int ?? 0
        }
        let rate = try #require(audio["sample_rate"] as? Int)
        #expect(abs(samples - 8 * rate) <= rate / 50, "\(samples) samples")
    }

    /// A server that hangs for 6 s: the source stalls; with --reconnect the stall is waited out
    /// rather than ending the recording, which lasts as long as asked.
    @Test func aServerThatHangsIsWaitedOut() throws {
        let server = try MicrophonePulseTests.TestServer()
        defer { server.stop() }
        let scratch = try RecordScratch()
        let file = scratch.path("hang.wav")
        let capture = try Self.record(
            ["--duration", "11", "--stall-timeout", "3"], file: file, server: server, scratch: scratch)
        capture.sleep(untilElapsed: 2.5)
        server.freeze(true)
        capture.sleep(untilElapsed: 8.5)
        server.freeze(false)
        let (exit, stdout, stderr) = try Self.outcome(capture, scratch: scratch)
        #expect(exit.shellStatus == 0, "\(stderr)")
        let (events, summary) = try RecordSegmentTests.events(stdout)
        let audio = try #require(summary["audio"] as? [String: Any])
        #expect((audio["reconnects"] as? Int ?? 0) >= 1, "\(stdout)")
        #expect(
            events.contains { ($0["reason"] as? String)?.hasSuffix("no data for 3 s; the device stalled") == true },
            "\(stdout)")
        let duration = try #require(try RecordOracle.probe(file).duration)
        #expect(abs(duration - 11) <= 0.2, "duration \(duration)")
    }

    /// A server that stays hung past --reconnect-timeout ends the recording with 74 and one line,
    /// once the stall and the timeout have passed, the file finalized up to the stall.
    @Test func aServerHungPastTheReconnectTimeoutExits74() throws {
        let server = try MicrophonePulseTests.TestServer()
        defer { server.stop() }
        let scratch = try RecordScratch()
        let file = scratch.path("hung.wav")
        let capture = try Self.record(
            ["--duration", "30", "--stall-timeout", "3", "--reconnect-timeout", "1"], file: file, server: server,
            scratch: scratch)
        capture.sleep(untilElapsed: 2.5)
        server.freeze(true)
        let (exit, _, stderr) = try Self.outcome(capture, scratch: scratch, timeout: 20)
        let ended = capture.elapsed
        server.freeze(false)
        #expect(exit.shellStatus == 74, "\(stderr)")
        #expect(ended < 12, "ended \(ended) s after the start")
        let error = stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(
            error == [
                "Error: pulse:capture_test_tone: the device was lost (no data for 3 s; the device stalled) and did not "
                    + "come back within 1 s; the file is finalized up to there"
            ], "\(stderr)")
        #expect(try RecordOracle.probe(file).audio != nil)
    }
}
