import Testing

@testable import CaptureCore

/// What a stream URL shows and hides, and which outputs the planner takes for it.
@Suite struct OutputTargetTests {
    @Test(arguments: [
        ("rtmp://user:pw@host/live/KEY", "rtmp://***@host/live/***", ["user:pw", "KEY"]),
        ("rtsp://door:hunter22@host:8554/cam", "rtsp://door:***@host:8554/cam", ["hunter22"]),
        ("rtsp://token@host/cam", "rtsp://***@host/cam", ["token"]),
        ("rtsp://host/cam", "rtsp://host/cam", []),
        ("srt://host:9000?passphrase=0123456789", "srt://host:9000?passphrase=***", ["0123456789"]),
    ])
    func secretsAreHidden(url: String, printable: String, secrets: [String]) {
        let target = OutputTarget(url)
        #expect(target.printable == printable)
        #expect(Set(target.secrets) == Set(secrets))
        for secret in secrets { #expect(!target.scrub("failed: \(url)").contains(secret)) }
    }

    @Test func rtspIsWrittenByItsOwnMuxer() throws {
        let plan = try OutputPlan(RecordingRequest(output: "rtsp://host:8554/cam"))
        #expect(plan.streams.map(\.muxer) == ["rtsp"])
        #expect(plan.file == nil)
    }

    @Test(arguments: [
        ("rtsp://host/cam", "mpegts", "RTSP is written by FFmpeg's rtsp muxer"),
        ("srt://host:9000", "rtsp", "rtsp needs an rtsp:// URL"),
    ])
    func rtspAndAnotherMuxerAreRefused(url: String, format: String, message: String) {
        var request = RecordingRequest(output: url)
        request.format = format
        let error = #expect(throws: CaptureError.self) { try OutputPlan(request) }
        guard case .usage(let text) = error else {
            Issue.record("not a usage error: \(String(describing: error))")
            return
        }
        #expect(text.description.contains(message), "\(text)")
    }

    @Test func rtspCarriesH264WithAACOrOpus() throws {
        let plan = try OutputPlan(RecordingRequest(output: "rtsp://host/cam"))
        try plan.checkStreams(video: .h264, audio: .aac)
        try plan.checkStreams(video: .h264, audio: .opus)
        #expect(throws: CaptureError.self) { try plan.checkStreams(video: .h264, audio: .flac) }
    }
}
