import Foundation
import Testing

/// What a recording leaves behind when it is stopped or killed (issue 6, case C06): the real-time
/// test source, stopped from outside after a few seconds, as a user would. Each case runs in its
/// own process group and scratch folder, so the cases run in parallel without touching each other.
@Suite struct RecordSafetyTests {
    /// One C06 variant: container, whether the test tone is recorded too, the signals sent to the
    /// process group (50 ms apart).
    struct StopCase: CustomTestStringConvertible, Sendable {
        var ext: String
        var audio: Bool
        var signals: [Int32]
        var testDescription: String {
            ".\(ext)\(audio ? " with audio" : ""): " + signals.map { signalName($0) }.joined(separator: " + ")
        }
    }

    static let stopCases = [
        StopCase(ext: "mp4", audio: false, signals: [SIGINT]),
        StopCase(ext: "mp4", audio: false, signals: [SIGINT, SIGINT]),
        StopCase(ext: "mp4", audio: false, signals: [SIGTERM]),
        StopCase(ext: "mp4", audio: false, signals: [SIGHUP]),
        StopCase(ext: "mp4", audio: true, signals: [SIGINT]),
        StopCase(ext: "mkv", audio: true, signals: [SIGINT, SIGINT]),
    ]

    /// C06: signalled 4 s into the recording, it finalizes: exit 0 within 3 s, the file reads back,
    /// lasts 4 +- 0.7 s and decodes without a message. A second SIGINT 50 ms later, while the
    /// trailer is being written, does not break it.
    @Test(arguments: stopCases)
    func stopSignalAfterFourSeconds(_ stop: StopCase) async throws {
        let scratch = try RecordScratch()
        let file = scratch.path("c06.\(stop.ext)")
        let audio = stop.audio ? ["--audio", "test"] : []
        let (process, exit, took, signalledAt) = try await RealTimeSlots.run {
            let process = try ChildProcess.realTime(["record", "--video", "test"] + audio + [file], in: scratch)
            let (exit, took, signalledAt) = try await onOwnThread {
                sleep(4, afterAppearing: file)
                let signalled = Date()
                let signalledAt = process.elapsed
                for (n, signal) in stop.signals.enumerated() {
                    if n > 0 { Thread.sleep(forTimeInterval: 0.05) }
                    process.signalGroup(signal)
                }
                return (process.wait(timeout: 10), Date().timeIntervalSince(signalled), signalledAt)
            }
            return (process, exit, took, signalledAt)
        }
        #expect(exit == .init(status: 0, signal: nil), "\(exit?.description ?? "still running"): \(process.stderr)")
        #expect(took < 3, "took \(took) s to finish after the signal")
        #expect(process.stdout.contains("stopped by: \(signalName(stop.signals[0]))"), "\(process.stdout)")

        let valid = try ChildProcess.run("ffprobe", ["-v", "error", "-show_format", file])
        #expect(valid.status == 0 && valid.stderr.isEmpty, "\(valid.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.streams.count == (stop.audio ? 2 : 1))
        let duration = try #require(probe.duration)
        #expect(
            abs(duration - 4) <= 0.7,
            "duration \(duration); signalled \(signalledAt) s after the start; \(process.stdout)")
        let messages = try RecordOracle.decodingMessages(file)
        #expect(messages.isEmpty, "\(messages)")
    }

    /// After `kill -9` 5 s into a 30 fps recording (from its file's first packet), at least 4 s of
    /// video decode: fragmented MP4 and Matroska clusters of at most a second, NUT flushed once a
    /// second.
    @Test(arguments: ["mp4", "mkv", "nut"])
    func killedAfterFiveSecondsLeavesFourSecondsOfVideo(ext: String) async throws {
        let scratch = try RecordScratch()
        let file = scratch.path("killed.\(ext)")
        let exit = try await RealTimeSlots.run {
            let process = try ChildProcess.realTime(
                ["record", "--video", "test", "--framerate", "30", "--quiet", file], in: scratch)
            return try await onOwnThread {
                sleep(5, afterAppearing: file)
                process.signalGroup(SIGKILL)
                return process.wait(timeout: 5)
            }
        }
        #expect(exit == .init(status: nil, signal: SIGKILL))

        // Every frame ffprobe can decode, by its time; the cut-off end may draw complaints.
        let result = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate:frame=pts_time",
                "-of", "default=noprint_wrappers=1", file,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.contains("r_frame_rate=30/1"), "\(result.stdout.prefix(200))")
        let times = lines.compactMap { $0.hasPrefix("pts_time=") ? Double($0.dropFirst("pts_time=".count)) : nil }
        let first = try #require(times.min())
        let last = try #require(times.max())
        let seconds = last - first + 1.0 / 30
        #expect(seconds >= 4, "\(times.count) frames decode, \(seconds) s of video")
        #expect(Double(times.count) >= 4 * 30 * 0.9, "\(times.count) frames decode over \(seconds) s")
    }
}

/// Sleeps `seconds` from when `file` appears: the recording's own time. The file is created with
/// the first packet written, so the start-up before it (the encoder budget's timing, longer on a
/// busy machine) is left out.
func sleep(_ seconds: TimeInterval, afterAppearing file: String, timeout: TimeInterval = 30) {
    let deadline = Date().addingTimeInterval(timeout)
    while !FileManager.default.fileExists(atPath: file) && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.005)
    }
    Thread.sleep(forTimeInterval: seconds)
}

/// "SIGINT", as the summary's "stopped by" names it.
func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGINT: "SIGINT"
    case SIGTERM: "SIGTERM"
    case SIGHUP: "SIGHUP"
    case SIGKILL: "SIGKILL"
    default: "signal \(signal)"
    }
}
