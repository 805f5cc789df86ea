import Foundation
import Testing

/// The defaults under load: the test pattern and tone into .mp4 (H.264 at the preset the encoder
/// budget chooses, AAC) on one core that a busy loop shares, where x264 at 1280x720 may not keep
/// up even at ultrafast. The recorder falls behind the
/// sources; that must cost late frames, counted, and nothing else: no stall (exit 74 after a few
/// seconds, before), no audio, no time at the end, and both tracks start and end together.
///
/// Nothing here depends on how far behind the machine falls: a faster one drops fewer frames or
/// none, and every check holds either way.
@Suite(.serialized) struct RecordUnderLoadTests {
    /// How a recording beside the busy loop ends.
    enum Stop: Sendable, CustomTestStringConvertible {
        /// `--duration` of this many seconds.
        case duration(Double)
        /// SIGINT this many seconds after the file appears: the loop is behind the sources then, with
        /// a second of frames still queued, which must all reach the file and the sound with them.
        case interrupt(after: Double)

        var testDescription: String {
            switch self {
            case .duration(let seconds): "--duration \(seconds)"
            case .interrupt(let seconds): "SIGINT after \(seconds) s"
            }
        }
    }

    @Test(arguments: [Stop.duration(6), .interrupt(after: 5)])
    func defaultsBesideABusyLoopRunToTheirEnd(stop: Stop) async throws {
        let taskset = try #require(ChildProcess.which("taskset"), "taskset (util-linux) is needed")
        let scratch = try RecordScratch()
        let file = scratch.path("load.mp4")
        var options = [
            "-c", "0", BuiltBinary.path, "record", "--video", "test", "--audio", "test", "--video-size", "1280x720",
            "--json",
        ]
        if case .duration(let seconds) = stop { options += ["--duration", "\(seconds)"] }
        let arguments = options + [file]
        let (exit, stdout) = try await RealTimeSlots.besideBusyLoop {
            try await onOwnThread {
                let capture = try ChildProcess(
                    taskset, arguments, stdout: .file(scratch.path("stdout")),
                    stderr: .file(scratch.path("stderr")))
                if case .interrupt(let seconds) = stop {
                    // From the recording's start, when its first packet creates the file: before
                    // it, the encoder budget times x264, longer on a slower machine.
                    let deadline = Date().addingTimeInterval(30)
                    while !FileManager.default.fileExists(atPath: file) && Date() < deadline {
                        Thread.sleep(forTimeInterval: 0.01)
                    }
                    Thread.sleep(forTimeInterval: seconds)
                    capture.signal(SIGINT)
                }
                let exit = try #require(capture.wait(timeout: 60))
                return (exit, try String(contentsOfFile: scratch.path("stdout"), encoding: .utf8))
            }
        }
        let stderr = (try? String(contentsOfFile: scratch.path("stderr"), encoding: .utf8)) ?? ""
        #expect(exit.shellStatus == 0, "\(stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        let seconds: Double
        switch stop {
        case .duration(let asked):
            #expect(json["stop_reason"] as? String == "duration")
            seconds = asked
        case .interrupt:
            // Stopped where the signal came, whatever the loop had written by then.
            seconds = try #require(json["duration"] as? Double)
            #expect((4.5...5.5).contains(seconds), "\(json)")
        }
        let video = try #require(json["video"] as? [String: Any])
        let dropped = try #require(video["frames_dropped"] as? [String: Int])
        let written = try #require(video["frames_written"] as? Int)
        let repeated = video["frames_duplicated"] as? Int ?? 0
        // Every slot of the recording at 30 fps is a frame written or a frame counted missing, once.
        let slots = written + dropped.values.reduce(0, +)
        #expect(abs(Double(slots) - seconds * 30) <= 2, "written \(written), dropped \(dropped)")
        let audio = try #require(json["audio"] as? [String: Any])
        // The tone at 48 kHz for as long, ending with the video's last frame: one frame interval
        // (1600 samples) short at most, where the grid puts the last slot before the end.
        let samples = try #require(audio["samples"] as? Int)
        let expected = Int((seconds * 48000).rounded())
        #expect((expected - 1600...expected).contains(samples), "\(samples) samples")

        // Falling behind is told once, while recording, and only when frames were dropped late
        // (more than a second of them on end; a faster machine may never fall behind so far).
        let behind = stderr.components(separatedBy: "\n").filter { $0.contains("the recorder falls behind the camera") }
        #expect(behind.count <= 1, "\(stderr)")
        if !behind.isEmpty { #expect((dropped["late"] ?? 0) > 0, "\(stderr)") }

        let oracle = try RecordOracle.probe(file)
        let v = try #require(oracle.video)
        let a = try #require(oracle.audio)
        #expect(v.frames == written + repeated)
        let vStart = try #require(v.start)
        let aStart = try #require(a.start)
        let vEnd = vStart + (try #require(v.duration))
        let aEnd = aStart + (try #require(a.duration))
        // Within one frame interval at the start, one AAC frame (1024 samples) at the end.
        #expect(abs(vStart - aStart) <= 1.0 / 30 + 0.001, "video starts at \(vStart) s, audio at \(aStart) s")
        #expect(abs(vEnd - aEnd) <= 1024.0 / 48000 + 0.001, "video ends at \(vEnd) s, audio at \(aEnd) s")
        #expect(abs((oracle.duration ?? 0) - seconds) <= 0.05, "\(oracle.duration ?? 0) s")
        // What ffmpeg says, if anything, goes into the failure.
        let messages = try RecordOracle.decodingMessages(file)
        #expect(messages.isEmpty, "\(messages.prefix(2000))")
    }
}
