import Foundation
import Testing

/// `capture record` end to end: the built binary records lavfi and test sources, ffprobe reads the
/// files back.
@Suite struct RecordTests {
    @Test(
        arguments: [
            ("mp4", nil, "aac"), ("mp4", "opus", "opus"), ("mkv", nil, "pcm_s16le"), ("mkv", "opus", "opus"),
            ("mkv", "aac", "aac"), ("mov", nil, "aac"), ("ts", nil, "aac"),
        ] as [(String, String?, String)])
    func h264WithAudio(ext: String, audioCodec: String?, expectedAudio: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("clip.\(ext)")
        var arguments = [
            "record", "--video", RecordSources.video, "--audio", RecordSources.audio, "--frames", "15", "--quiet",
        ]
        if let audioCodec { arguments += ["--audio-codec", audioCodec] }
        let result = try BuiltBinary.run(arguments + [file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.isEmpty)
        let probe = try RecordOracle.probe(file)
        #expect(probe.streams.count == 2)
        #expect(probe.video?.codec == "h264")
        #expect(probe.video?.pixelFormat == "yuv420p")
        #expect(probe.video?.width == 160 && probe.video?.height == 120)
        #expect(probe.video?.frames == 15)
        #expect(probe.audio?.codec == expectedAudio)
        #expect(probe.audio?.sampleRate == 48000)
        #expect(probe.audio?.channels == 1)
        // 15 frames at 30 fps; the audio ends with the last frame (AAC adds its priming).
        let videoDuration = try #require(probe.video?.duration ?? probe.duration)
        #expect(abs(videoDuration - 0.5) <= 1.0 / 30)
        let audioDuration = try #require(probe.audio?.duration ?? probe.duration)
        #expect(abs(audioDuration - 0.5) <= 0.06)
        #expect(try RecordOracle.decodesCleanly(file))
    }

    /// MPEG-TS on standard output, as README's table of outputs offers (`--format mpegts -`):
    /// the muxer has no codec table to ask, and was refused.
    @Test func mpegTSToStandardOutput() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("piped.ts")
        let process = try ChildProcess(
            BuiltBinary.path,
            [
                "record", "--video", RecordSources.video, "--audio", RecordSources.audio, "--frames", "15", "--quiet",
                "--format", "mpegts", "-",
            ], stdout: .file(file), stderr: .file(scratch.path("stderr")))
        let exit = try #require(process.wait(timeout: 60))
        let stderr = (try? String(contentsOfFile: scratch.path("stderr"), encoding: .utf8)) ?? ""
        #expect(exit.shellStatus == 0, "\(stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.codec == "h264" && probe.audio?.codec == "aac")
        #expect(probe.video?.frames == 15)
        #expect(try RecordOracle.decodesCleanly(file))
    }

    @Test(arguments: ["mkv", "nut", "y4m", "avi"])
    func rawVideo(ext: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("raw.\(ext)")
        let codec = ext == "mkv" ? ["--codec", "raw"] : []
        let result = try BuiltBinary.run(
            ["record", "--video", RecordSources.video, "--frames", "12", "--quiet"] + codec + [file])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.streams.count == 1)
        #expect(probe.video?.codec == "rawvideo")
        #expect(probe.video?.pixelFormat == "yuv420p")
        #expect(probe.video?.width == 160 && probe.video?.height == 120)
        #expect(probe.video?.frames == 12)
        #expect(try RecordOracle.decodesCleanly(file))
    }

    @Test func rawVideoConvertedToTheAskedPixelFormat() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("raw.nut")
        let result = try BuiltBinary.run(
            ["record", "--video", RecordSources.video, "--frames", "3", "--pixel-format", "yuyv422", "--quiet", file])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.pixelFormat == "yuyv422")
        #expect(probe.video?.frames == 3)
    }

    @Test(arguments: [("wav", "pcm_s16le"), ("m4a", "aac"), ("flac", "flac"), ("opus", "opus")])
    func audioOnly(ext: String, codec: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("sound.\(ext)")
        let result = try BuiltBinary.run([
            "record", "--audio", RecordSources.audio, "--duration", "0.5", "--quiet", file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.streams.count == 1)
        #expect(probe.audio?.codec == codec)
        #expect(probe.audio?.sampleRate == 48000)
        let duration = try #require(probe.duration)
        #expect(abs(duration - 0.5) <= 0.05)
        #expect(try RecordOracle.decodesCleanly(file))
    }

    @Test func audioIsResampledAndRemixedAsAsked() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("sound.wav")
        let result = try BuiltBinary.run(
            [
                "record", "--audio", RecordSources.audio, "--sample-rate", "44100", "--channels", "2", "--duration",
                "1",
                "--quiet", file,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.audio?.sampleRate == 44100)
        #expect(probe.audio?.channels == 2)
        // Resampled, not relabelled: the duration stays one second.
        #expect(abs((probe.duration ?? 0) - 1) <= 0.02)
    }

    @Test(arguments: [1, 37, 90])
    func framesIsExact(frames: Int) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("frames.mp4")
        let result = try BuiltBinary.run(
            [
                "record", "--video", RecordSources.video, "--frames", "\(frames)", "--preset", "ultrafast", "--quiet",
                file,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try RecordOracle.probe(file).video?.frames == frames)
    }

    /// A recording of one picture, as a stop that comes with the first frame leaves: a file in
    /// every container, the one frame in it, exit 0 (a .nut keeps no packet durations, so its
    /// one frame reads back with no length; that is no failure).
    @Test(
        arguments: [
            ("nut", ["--codec", "raw"]), ("nut", ["--codec", "h264"]), ("mkv", ["--codec", "raw"]), ("avi", []),
            ("mp4", []), ("y4m", []), ("h264", []),
        ] as [(String, [String])])
    func onePictureIsARecording(ext: String, codec: [String]) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("one.\(ext)")
        let result = try BuiltBinary.run(
            ["record", "--video", RecordSources.video, "--frames", "1", "--quiet"] + codec + [file])
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=nb_read_frames", "-of", "csv=p=0", file,
            ])
        #expect(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(frames.stderr)")
    }

    @Test(arguments: [0.5, 1.3, 2.0])
    func durationIsWithinOneFrameInterval(seconds: Double) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("duration.mkv")
        let result = try BuiltBinary.run(
            [
                "record", "--video", RecordSources.video, "--audio", RecordSources.audio, "--duration", "\(seconds)",
                "--preset", "ultrafast", "--quiet", file,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        let duration = try #require(probe.duration)
        #expect(abs(duration - seconds) <= 1.0 / 30 + 0.001, "duration \(duration)")
        let frames = try #require(probe.video?.frames)
        #expect(abs(Double(frames) - seconds * 30) <= 1)
    }

    /// C10: an odd frame size becomes the nearest even size for H.264, with one warning; raw keeps it.
    @Test func oddSizeForH264IsScaledToEvenWithOneWarning() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("odd.mp4")
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--video-size", "641x481", "--frames", "3", file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Warning:") }
        #expect(warnings.count == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(warnings.first?.contains("641x481") == true)
        let probe = try RecordOracle.probe(file)
        let width = try #require(probe.video?.width)
        let height = try #require(probe.video?.height)
        #expect(width % 2 == 0 && height % 2 == 0)
        #expect(abs(width - 641) <= 1 && abs(height - 481) <= 1)
        #expect(probe.video?.pixelFormat == "yuv420p")
        #expect(probe.video?.frames == 3)
    }

    @Test func oddSizeRawKeepsItsSize() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("odd.nut")
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--video-size", "641x481", "--frames", "3", file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("Warning"))
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.width == 641 && probe.video?.height == 481)
        #expect(probe.video?.codec == "rawvideo")
    }

    /// C10: RGB input gives 4:2:0 H.264 in a profile every player takes, not High 4:4:4.
    @Test func rgbInputGivesYUV420H264() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("rgb.mkv")
        let result = try BuiltBinary.run(
            ["record", "--video", "lavfi:testsrc=size=160x120:rate=30", "--frames", "5", "--quiet", file])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.pixelFormat == "yuv420p")
        #expect(["Constrained Baseline", "Main", "High"].contains(probe.video?.profile ?? ""))
    }

    @Test(arguments: [
        (["--video", RecordSources.video, "--codec", "raw"], "x.mp4", "--codec h264"),
        (["--video", RecordSources.video, "--audio", RecordSources.audio, "--audio-codec", "pcm"], "x.mp4", "aac"),
        (["--video", RecordSources.video], "x.wav", ".mkv"),
        (["--video", RecordSources.video, "--codec", "h264"], "x.y4m", "--codec raw"),
        (["--audio", RecordSources.audio], "x.h264", ".mkv"),
        (["--audio", RecordSources.audio, "--audio-codec", "aac"], "x.flac", "--audio-codec flac"),
        (["--audio", RecordSources.audio, "--audio-codec", "pcm"], "x.opus", "--audio-codec opus"),
        (["--video", RecordSources.video], "x.txt", ".mp4"),
        (["--video", RecordSources.video, "--pixel-format", "yuv444p"], "x.mp4", "nv12"),
    ])
    func refusesWhatTheContainerCannotHold(arguments: [String], name: String, suggestion: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path(name)
        let result = try BuiltBinary.run(["record"] + arguments + ["--duration", "0.1", file])
        #expect(result.status == 64)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("Error: "))
        #expect(first.contains(suggestion), "\(first)")
        #expect(result.stderr.contains("Usage: capture record"))
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func existingOutputIsRefusedAndLeftAlone() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("keep.mp4")
        let original = Data("not a video, but mine".utf8)
        try original.write(to: URL(fileURLWithPath: file))
        let result = try BuiltBinary.run(["record", "--video", RecordSources.video, "--frames", "2", file])
        #expect(result.status == 73)
        #expect(result.stderr.contains(file) && result.stderr.contains("--force"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)

        let forced = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--frames", "2", "--force", "--quiet", file,
        ])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try RecordOracle.probe(file).video?.frames == 2)
    }

    @Test func outputThatCannotBeCreatedExits73() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("missing/dir/x.mkv")
        let result = try BuiltBinary.run(["record", "--video", RecordSources.video, "--frames", "2", file])
        #expect(result.status == 73)
        #expect(result.stderr.contains("does not exist"))
    }

    @Test func aSourceThatEndsBeforeTheFirstFrameLeavesNoFile() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("empty.mp4")
        let result = try BuiltBinary.run(["record", "--video", "lavfi:testsrc2=size=160x120:duration=0", file])
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aBadGraphIsAUsageError() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("x.mkv")
        let result = try BuiltBinary.run(["record", "--video", "lavfi:nosuchfilter", file])
        #expect(result.status == 64)
        #expect(result.stderr.contains("nosuchfilter"))
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    /// The paced test sources run in real time, start together, and stay together.
    @Test func testSourcesInRealTime() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("test.mp4")
        let started = Date()
        let result = try BuiltBinary.run(
            [
                "record", "--video", "test", "--audio", "test", "--duration", "1.5", "--preset", "ultrafast", "--json",
                file,
            ])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= 1.4, "a paced source cannot finish 1.5 s early: \(elapsed)")
        let probe = try RecordOracle.probe(file)
        let video = try #require(probe.video)
        let audio = try #require(probe.audio)
        #expect(video.width == 640 && video.height == 480)
        #expect(abs((video.start ?? 9) - (audio.start ?? 0)) <= 0.1)
        #expect(abs((probe.duration ?? 0) - 1.5) <= 0.1)
        #expect(try RecordOracle.decodesCleanly(file))

        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let videoSummary = try #require(summary["video"] as? [String: Any])
        let audioSummary = try #require(summary["audio"] as? [String: Any])
        #expect(summary["output"] as? String == file)
        #expect(summary["container"] as? String == "mp4")
        #expect(summary["stop_reason"] as? String == "duration")
        #expect(videoSummary["frames_written"] as? Int == video.frames)
        #expect(videoSummary["width"] as? Int == 640)
        #expect(videoSummary["pixel_format"] as? String == "yuv420p")
        #expect(audioSummary["sample_rate"] as? Int == 48000)
        #expect(audioSummary["codec"] as? String == "aac")
        let offset = try #require(summary["start_offset"] as? Double)
        #expect(abs(offset) <= 0.1)
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int
        #expect(summary["file_size"] as? Int == size)
        #expect(abs((summary["duration"] as? Double ?? 0) - (probe.duration ?? -1)) <= 0.01)
    }

    /// On a terminal, a progress line rewritten in place; in a pipe, none.
    @Test func progressLineOnATerminalOnly() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("progress.mkv")
        let command = [
            BuiltBinary.path, "record", "--video", "test", "--duration", "1", "--preset", "ultrafast", file,
        ]
        // script(1) gives the command a pseudo-terminal and copies what it writes.
        let terminal = try ChildProcess.run("script", ["-qfec", command.joined(separator: " "), "/dev/null"])
        #expect(terminal.status == 0, "\(terminal.stderr)")
        let updates = terminal.stdout.components(separatedBy: "\r").filter {
            $0.contains(" frames ") && $0.contains(" fps ")
        }
        #expect(updates.count >= 2 && updates.count <= 6, "\(updates.count) progress updates in one second")
        let piped = try BuiltBinary.run(
            ["record", "--video", RecordSources.video, "--frames", "30", "--force", file])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("\r") && !piped.stdout.contains("\r"))
    }

    /// Holds on a machine without cameras, as the host suite runs; the guest suite has cameras.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/video0")))
    func withoutDevicesAndNoCameraExits66WithAHint() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("x.mp4")
        let result = try BuiltBinary.run(["record", file])
        #expect(result.status == 66)
        #expect(result.stderr.contains("--video test"))
        #expect(!FileManager.default.fileExists(atPath: file))
    }
}
