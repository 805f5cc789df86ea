import Foundation
import Testing

/// Several cameras and microphones in one recording: one file with every track, on one clock.
@Suite struct RecordSeveralDevicesTests {
    static let cameras = ["lavfi:testsrc2=size=160x120:rate=30", "lavfi:testsrc=size=320x240:rate=25"]
    static let microphones = [
        "lavfi:sine=frequency=440:sample_rate=48000", "lavfi:sine=frequency=880:sample_rate=44100",
    ]

    /// A refusal speaks of the kind the output holds: .y4m holds no audio at all (not "one
    /// microphone"), and .m4a is offered for microphones, never for cameras.
    @Test func refusalsNameWhatTheOutputHolds() throws {
        let scratch = try RecordScratch()
        let audio = try BuiltBinary.run([
            "record", "--video", "test", "--audio", "test", "--audio", Self.microphones[0], "--frames", "5",
            scratch.path("x.y4m"),
        ])
        #expect(audio.status == 64)
        #expect(!audio.stderr.contains("one microphone"), "\(audio.stderr)")
        let video = try BuiltBinary.run([
            "record", "--video", "test", "--video", Self.cameras[0], "--frames", "5", scratch.path("x.y4m"),
        ])
        #expect(video.status == 64)
        #expect(video.stderr.contains(".mkv") && !video.stderr.contains(".m4a"), "\(video.stderr)")
    }

    @Test(arguments: ["mkv", "mp4"])
    func everyDeviceIsATrackOfOneFile(ext: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("several.\(ext)")
        var arguments = ["record", "--duration", "2", "--json"]
        for camera in Self.cameras { arguments += ["--video", camera] }
        for microphone in Self.microphones { arguments += ["--audio", microphone, "--audio-codec", "aac"] }
        let result = try BuiltBinary.runNiced(arguments + [file])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try MicrophoneTestSupport.object(result.stdout)
        let cameras = try #require(summary["cameras"] as? [[String: Any]])
        let microphones = try #require(summary["microphones"] as? [[String: Any]])
        #expect(cameras.map { $0["device"] as? String } == Self.cameras)
        #expect(microphones.map { $0["device"] as? String } == Self.microphones)

        let probe = try RecordOracle.probe(file)
        let videos = probe.streams.filter { $0.type == "video" }
        let audios = probe.streams.filter { $0.type == "audio" }
        try #require(videos.count == 2 && audios.count == 2, "\(probe.streams)")
        // In the order given, each titled with its device.
        #expect(videos.map(\.title) == Self.cameras)
        #expect(audios.map(\.title) == Self.microphones)
        #expect(videos.map(\.width) == [160, 320])
        #expect(audios.map(\.sampleRate) == [48000, 44100])
        // Each camera's frames as its rate gives 2 s, and as the summary counts them.
        for (index, (video, rate)) in zip(videos, [30.0, 25.0]).enumerated() {
            let frames = try #require(video.frames)
            #expect(abs(Double(frames) - 2 * rate) <= 1, "camera \(index + 1): \(frames) frames")
            #expect(cameras[index]["frames_written"] as? Int == frames)
        }
        // One clock: every stream starts within 0.1 s of the others and lasts the recording.
        let starts = probe.streams.compactMap(\.start)
        #expect(starts.count == 4)
        #expect((starts.max() ?? 0) - (starts.min() ?? 0) <= 0.1, "starts \(starts)")
        for stream in probe.streams {
            let duration = try #require(stream.duration ?? probe.duration)
            #expect(abs(duration - 2) <= 0.1, "\(stream.type) \(stream.title ?? ""): \(duration) s")
        }
        #expect(try RecordOracle.decodesCleanly(file))
    }

    /// The text summary has a line for each device.
    @Test func theSummaryNamesEveryDevice() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("several.mkv")
        let result = try BuiltBinary.runNiced([
            "record", "--video", Self.cameras[0], "--video", Self.cameras[1], "--frames", "10", file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  video: ") }
        #expect(lines.count == 2, "\(result.stdout)")
        #expect(lines.first?.contains(Self.cameras[0]) == true)
        #expect(lines.last?.contains(Self.cameras[1]) == true)
        // A frame limit is each camera's.
        #expect(try RecordOracle.probe(file).streams.map(\.frames) == [10, 10])
    }

    /// Beside the file, a stream carries the first camera and the first microphone: a server
    /// takes one of each.
    @Test func aStreamBesideTheFileCarriesTheFirstOfEach() throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let file = scratch.path("several.mkv")
        let result = try BuiltBinary.runNiced([
            "record", "--video", "test", "--video", Self.cameras[1], "--audio", "test", "--audio",
            Self.microphones[1], "--duration", "3", "--also", server.url(key: "several"), "--json", file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try RecordOracle.probe(file).streams.count == 4)
        let received = try RecordOracle.probe(server.received(key: "several"))
        #expect(received.streams.map(\.type) == ["video", "audio"], "\(received.streams)")
        // The test pattern and the test tone, not the second camera (320x240) and microphone (44.1 kHz).
        #expect(try #require(received.video?.width) != 320)
        #expect(received.audio?.sampleRate == 48000)
    }

    @Test(arguments: [
        (["--video", "test", "--video", "test"], "out.mkv", "same device"),
        // The user's own spellings, and the device both name.
        (["--video", "0", "--video", "test"], "out.mkv", "0 (test) and test are the same device"),
        (["--video", "test", "--video", cameras[0]], "out.y4m", ".y4m files hold one camera"),
        (["--audio", "test", "--audio", microphones[0]], "out.wav", ".wav files hold one microphone"),
        (["--video", "test", "--video", cameras[0]], "rtmp://127.0.0.1:9/live/x", "streams (flv) hold one camera"),
        (["--video", "test", "--video", cameras[0], "--segment-time", "2"], "out.mkv", "segments of several cameras"),
    ])
    func outputsThatHoldOneOfEachAreRefused(arguments: [String], output: String, message: String) throws {
        let scratch = try RecordScratch()
        let file = output.contains("://") ? output : scratch.path(output)
        let result = try BuiltBinary.run(["record", "--frames", "5"] + arguments + [file])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
    }
}

/// `--stream-video` and `--stream-audio` choose what a stream beside the file carries.
@Suite struct RecordStreamChoiceTests {
    @Test func theChosenCameraAndMicrophoneAreStreamed() throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let file = scratch.path("several.mkv")
        let result = try BuiltBinary.runNiced([
            "record", "--video", "test", "--video", RecordSeveralDevicesTests.cameras[1], "--audio", "test",
            "--audio", RecordSeveralDevicesTests.microphones[1], "--stream-video", "1", "--stream-audio", "1",
            "--duration", "3", "--also", server.url(key: "chosen"), file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try RecordOracle.probe(file).streams.count == 4)
        let received = try RecordOracle.probe(server.received(key: "chosen"))
        #expect(received.streams.map(\.type) == ["video", "audio"], "\(received.streams)")
        // The second camera (320x240) and the second microphone (44.1 kHz).
        #expect(try #require(received.video?.width) == 320)
        #expect(received.audio?.sampleRate == 44100)
    }

    @Test(arguments: [
        (["--video", "test", "--stream-video", "1", "--also", "rtmp://127.0.0.1:9/live/x"], "one camera (0)"),
        (
            ["--video", "test", "--audio", "test", "--stream-audio", "2", "--also", "rtmp://127.0.0.1:9/live/x"],
            "one microphone (0)"
        ),
        (["--video", "test", "--video", RecordSeveralDevicesTests.cameras[0], "--stream-video", "1"], "none"),
    ])
    func aChoiceThatCannotBeIsRefused(arguments: [String], message: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(["record", "--frames", "5"] + arguments + [scratch.path("x.mkv")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.mkv")))
    }
}
