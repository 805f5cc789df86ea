import CaptureCore
import Foundation
import Testing

@testable import capture

@Suite struct RecordCommandTests {
    @Test(arguments: [("4M", 4_000_000), ("800k", 800_000), ("2500000", 2_500_000), ("1.5m", 1_500_000)])
    func bitRates(text: String, value: Int) {
        #expect(RecordCommand.bitRate(text) == value)
    }

    @Test(arguments: ["", "k", "-1M", "fast", "0"])
    func badBitRates(text: String) {
        #expect(RecordCommand.bitRate(text) == nil)
    }

    @Test func optionsBecomeTheRequest() throws {
        let parsed = try parse(
            [
                "--video", "test", "--audio", "hw:1,0", "--video-size", "1280x720", "--framerate", "29.97",
                "--codec", "h264", "--crf", "20", "--preset", "fast", "--audio-codec", "opus", "--sample-rate", "48000",
                "--channels", "2", "--duration", "10", "--force", "out.mkv",
            ],
            as: RecordCommand.spec)
        let command = try RecordCommand(parsed)
        let request = command.request
        #expect(request.video == .test)
        #expect(request.audio == .alsa(pcm: "hw:1,0"))
        #expect(request.videoSize == .init(width: 1280, height: 720))
        #expect(request.frameRate == Rational(30000, 1001))
        #expect(request.videoCodec == .h264)
        #expect(request.crf == 20)
        #expect(request.preset == "fast")
        #expect(request.audioCodec == .opus)
        #expect(request.sampleRate == 48000)
        #expect(request.channels == 2)
        #expect(request.duration == 10)
        #expect(request.force)
        #expect(request.output == "out.mkv")
    }

    /// ffmpeg's names for sizes and rates, as exact as ffmpeg has them.
    @Test func namedSizesAndRatesBecomeTheRequest() throws {
        let command = try RecordCommand(
            try parse(
                ["--video", "test", "--video-size", "hd720", "--framerate", "ntsc", "out.mkv"], as: RecordCommand.spec))
        #expect(command.request.videoSize == .init(width: 1280, height: 720))
        let rate = try #require(command.request.frameRate)
        #expect(rate.numerator == 30000 && rate.denominator == 1001)
        let snapshot = try SnapshotCommand(
            try parse(["--video-size", "4k", "test", "x.png"], as: SnapshotCommand.spec))
        #expect(snapshot.request.videoSize == .init(width: 4096, height: 2160))
    }

    @Test(arguments: [
        ["--codec", "vp9", "x.mkv"], ["--crf", "52", "x.mkv"], ["--preset", "warp", "x.mkv"],
        ["--video-size", "big", "x.mkv"], ["--video-size", "640x", "x.mkv"], ["--video-size", "0x480", "x.mkv"],
        ["--video-size", "99999x1", "x.mkv"], ["--video-size", "hd721", "x.mkv"], ["--framerate", "0", "x.mkv"],
        ["--framerate", "ntcs", "x.mkv"], ["--duration", "-1", "x.mkv"],
        ["--frames", "0", "x.mkv"], ["--audio-codec", "mp3", "x.mkv"], ["--channels", "0", "x.mkv"],
    ])
    func badValuesAreUsageErrors(arguments: [String]) throws {
        let parsed = try parse(arguments, as: RecordCommand.spec)
        #expect(throws: UsageError.self) { try RecordCommand(parsed) }
    }

    @Test func summaryTextNamesEveryNumber() throws {
        // The --json shape, read back into the summary the text is made from.
        let json = """
            {"output": "out.mp4", "container": "mp4", "duration": 5, "file_size": 1200000,
             "stop_reason": "duration", "start_offset": 0.012,
             "video": {"device": "test", "input": "rawvideo yuv420p", "codec": "libx264", "width": 640,
                       "height": 480, "pixel_format": "yuv420p", "frame_rate": {"numerator": 30, "denominator": 1},
                       "frame_rate_measured": 29.97, "frames_written": 150,
                       "frames_dropped": {"late": 1, "corrupt": 2, "gaps": 3}, "frames_skipped_at_start": 4,
                       "start": 0},
             "audio": {"device": "test", "input": "pcm_s16le s16 48000 Hz 1 channel", "codec": "aac",
                       "sample_rate": 48000, "channels": 1, "sample_format": "fltp", "samples": 240000,
                       "overruns": 0, "start": 0.012}}
            """
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let summary = try decoder.decode(RecordingSummary.self, from: Data(json.utf8))
        let text = RecordCommand.summaryText(summary)
        for part in [
            "out.mp4", "5.00 s", "1.1 MiB", "640x480", "30 fps", "29.97", "150 frames written", "6 dropped",
            "1 late", "2 corrupt", "3 in gaps", "4 frames before the camera's first keyframe skipped",
            "aac fltp 48000 Hz 1 channel", "240000 samples", "+0.012 s", "duration",
        ] {
            #expect(text.contains(part), "missing \(part)")
        }
    }

    @Test func summaryTextNamesTheDevicesOwnLossesInPlaceOfGaps() throws {
        let json = """
            {"output": "out.nut", "container": "nut", "duration": 4, "file_size": 1000,
             "stop_reason": "duration",
             "video": {"device": "/dev/video10", "input": "rawvideo nv12", "codec": "rawvideo", "width": 320,
                       "height": 180, "pixel_format": "nv12", "frame_rate": {"numerator": 30, "denominator": 1},
                       "frames_written": 83, "frames_dropped": {"late": 1, "corrupt": 2, "gaps": 0, "device": 37},
                       "frames_skipped_at_start": 0, "start": 0}}
            """
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let summary = try decoder.decode(RecordingSummary.self, from: Data(json.utf8))
        #expect(summary.video?.framesDropped.total == 40)
        let text = RecordCommand.summaryText(summary)
        #expect(text.contains("40 dropped (1 late, 2 corrupt, 37 lost by the device)"), "\(text)")
    }

    @Test func reconnectWaitsForeverUnlessItsTimeoutIsGiven() throws {
        let forever = try RecordCommand(try parse(["--video", "test", "--reconnect", "x.mkv"], as: RecordCommand.spec))
        #expect(forever.request.reconnect)
        #expect(forever.request.deviceReconnectTimeout == nil)
        #expect(forever.request.reconnectTimeout == 60)
        let bounded = try RecordCommand(
            try parse(["--video", "test", "--reconnect", "--reconnect-timeout", "2", "x.mkv"], as: RecordCommand.spec))
        #expect(bounded.request.deviceReconnectTimeout == 2)
        #expect(bounded.request.reconnectTimeout == 2)
        // Without --reconnect the timeout is the streams' alone.
        let streamsOnly = try RecordCommand(
            try parse(["--video", "test", "--reconnect-timeout", "5", "x.mkv"], as: RecordCommand.spec))
        #expect(!streamsOnly.request.reconnect)
        #expect(streamsOnly.request.deviceReconnectTimeout == nil)
    }

    @Test func summaryTextTellsReconnects() throws {
        let json = """
            {"output": "out.mkv", "container": "matroska", "duration": 10, "file_size": 1000, "stop_reason": "duration",
             "video": {"device": "/dev/video10", "input": "rawvideo yuyv422", "codec": "libx264", "width": 320,
                       "height": 180, "pixel_format": "yuv420p", "frame_rate": {"numerator": 30, "denominator": 1},
                       "frames_written": 230, "frames_dropped": {"late": 0, "corrupt": 0, "gaps": 70},
                       "frames_skipped_at_start": 0, "start": 0, "reconnects": 1, "seconds_disconnected": 2.3},
             "audio": {"device": "hw:CARD=USB", "input": "pcm_s16le s16 48000 Hz 2 channels", "codec": "pcm_s16le",
                       "sample_rate": 48000, "channels": 2, "sample_format": "s16", "samples": 480000,
                       "overruns": 0, "start": 0, "reconnects": 2, "seconds_disconnected": 4.0}}
            """
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let text = RecordCommand.summaryText(try decoder.decode(RecordingSummary.self, from: Data(json.utf8)))
        #expect(text.contains("lost and back once, 2.3 s away (frames missing)"))
        #expect(text.contains("lost and back 2 times, 4.0 s away (silence)"))
        // A summary without reconnecting says nothing of it.
        let plain = json.replacingOccurrences(
            of: #", "reconnects": \d, "seconds_disconnected": [0-9.]+"#, with: "", options: .regularExpression)
        let plainText = RecordCommand.summaryText(try decoder.decode(RecordingSummary.self, from: Data(plain.utf8)))
        #expect(!plainText.contains("lost and back"))
    }

    @Test func aSlowCameraIsSaidToBeSlow() throws {
        let json = """
            {"output": "out.mkv", "container": "matroska", "duration": 4, "file_size": 1000, "stop_reason": "duration",
             "video": {"device": "/dev/video30", "input": "mjpeg", "codec": "libx264", "width": 320, "height": 180,
                       "pixel_format": "yuv420p", "frame_rate": {"numerator": 30, "denominator": 1},
                       "frame_rate_measured": 15, "frame_rate_delivered": 15, "frames_written": 60,
                       "frames_dropped": {"late": 0, "corrupt": 0, "gaps": 0}, "frames_skipped_at_start": 0,
                       "start": 0}}
            """
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let text = RecordCommand.summaryText(try decoder.decode(RecordingSummary.self, from: Data(json.utf8)))
        #expect(text.contains("the camera delivered 15.0 fps of the 30 asked"))
        #expect(!text.contains("skipped"))
    }
}
