import Foundation
import Testing

/// The `--json` summary tells the truth about the file: every field ffprobe can see is checked
/// against ffprobe's view, and the recorder's own read-back check fails when the file on disk is
/// not the one it wrote.
@Suite struct RecordSummaryTests {
    /// Encoder names as the summary gives them, codec names as ffprobe gives them.
    static let codecNames = [
        "libx264": "h264", "rawvideo": "rawvideo", "aac": "aac", "libopus": "opus", "pcm_s16le": "pcm_s16le",
    ]

    struct SummaryCase: Sendable {
        var ext: String
        var arguments: [String]
        var rate: Double
        var muxer: String
    }

    static let cases = [
        SummaryCase(
            ext: "mp4",
            arguments: [
                "--video", "lavfi:testsrc2=size=320x240:rate=30", "--audio", RecordSources.audio, "--frames", "45",
                "--preset", "ultrafast",
            ],
            rate: 30, muxer: "mp4"),
        SummaryCase(
            ext: "mkv",
            arguments: [
                "--video", "lavfi:testsrc2=size=322x242:rate=25", "--codec", "raw", "--pixel-format", "nv12",
                "--audio", RecordSources.audio, "--sample-rate", "44100", "--channels", "2", "--duration", "1.2",
            ],
            rate: 25, muxer: "matroska"),
        SummaryCase(
            ext: "mkv",
            arguments: [
                "--video", "lavfi:testsrc2=size=320x240:rate=30", "--pixel-format", "nv12", "--preset", "ultrafast",
                "--audio", RecordSources.audio, "--audio-codec", "opus", "--duration", "1",
            ],
            rate: 30, muxer: "matroska"),
    ]

    @Test(arguments: cases)
    func summaryMatchesFFprobe(_ c: SummaryCase) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("summary.\(c.ext)")
        let result = try BuiltBinary.runNiced(["record"] + c.arguments + ["--json", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let summary = try MicrophoneTestSupport.object(result.stdout)
        let video = try #require(summary["video"] as? [String: Any])
        let audio = try #require(summary["audio"] as? [String: Any])
        let probe = try RecordOracle.probe(file)
        let probedVideo = try #require(probe.video)
        let probedAudio = try #require(probe.audio)

        #expect(summary["output"] as? String == file)
        #expect(summary["container"] as? String == c.muxer)
        #expect(summary["error"] == nil)
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber
        #expect((summary["file_size"] as? NSNumber)?.int64Value == size?.int64Value)
        let duration = try #require(summary["duration"] as? Double)
        let probedDuration = try #require(probe.duration)
        #expect(abs(duration - probedDuration) <= 1 / c.rate, "summary \(duration) s, ffprobe \(probedDuration) s")

        #expect(video["frames_written"] as? Int == probedVideo.frames)
        #expect((video["codec"] as? String).flatMap { Self.codecNames[$0] } == probedVideo.codec)
        #expect(video["width"] as? Int == probedVideo.width)
        #expect(video["height"] as? Int == probedVideo.height)
        #expect(video["pixel_format"] as? String == probedVideo.pixelFormat)
        let frameRate = try #require(video["frame_rate"] as? [String: Any])
        #expect(frameRate["numerator"] as? Int == Int(c.rate) && frameRate["denominator"] as? Int == 1)

        #expect((audio["codec"] as? String).flatMap { Self.codecNames[$0] } == probedAudio.codec)
        #expect(audio["sample_rate"] as? Int == probedAudio.sampleRate)
        #expect(audio["channels"] as? Int == probedAudio.channels)
        if probedAudio.codec == "pcm_s16le", let samples = audio["samples"] as? Int, let rate = probedAudio.sampleRate {
            // PCM has no priming or padding: the samples written are the stream's length.
            let streamDuration = try #require(probedAudio.duration ?? probe.duration)
            #expect(abs(Double(samples) / Double(rate) - streamDuration) <= 0.01)
        }
    }

    /// The summary reopens the finished file; when the file at that path is not the recording
    /// (another program put a one-stream file in its place), that check fails: exit 74, one line.
    @Test func readBackCheckFailsWhenTheFileIsReplaced() async throws {
        let scratch = try RecordScratch()
        let file = scratch.path("replaced.mkv")
        let other = scratch.path("other.mkv")
        let made = try BuiltBinary.runNiced([
            "record", "--video", RecordSources.video, "--frames", "5", "--quiet", other,
        ])
        try #require(made.status == 0, "\(made.stderr)")

        let process = try ChildProcess.recording(
            [
                "record", "--video", "test", "--audio", "test", "--duration", "3", "--preset", "ultrafast", "--json",
                file,
            ],
            in: scratch)
        let (replaced, exit) = try await onOwnThread {
            while !FileManager.default.fileExists(atPath: file) && process.elapsed < 2.5 {
                Thread.sleep(forTimeInterval: 0.02)
            }
            // rename(2) puts the other file at the path; the recorder keeps writing to its own.
            let replaced = FileManager.default.fileExists(atPath: file) && rename(other, file) == 0
            return (replaced, process.wait(timeout: 10))
        }
        try #require(replaced, "the recording did not start within 2.5 s")
        #expect(exit == .init(status: 74, signal: nil), "\(exit?.description ?? "still running")")
        let lines = process.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(process.stderr)")
        let line = try #require(lines.first.map(String.init))
        #expect(line.hasPrefix("Error: \(file): the finished file does not read back: it has 1 stream"), "\(line)")
        let summary = try MicrophoneTestSupport.object(process.stdout)
        #expect(summary["error"] as? String == String(line.dropFirst("Error: ".count)))
        #expect(summary["stop_reason"] as? String == "error")
    }
}
