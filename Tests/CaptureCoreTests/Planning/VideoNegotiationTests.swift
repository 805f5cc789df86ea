import Testing

@testable import CaptureCore

/// What a camera's stream is recorded as, from the plan and what the opened input reports: a
/// JPEG's full range is kept and tagged for H.264 (issue 28), a camera's own YUV is limited and
/// stays so, an odd size is made even with a warning, and raw frames of the right kind pass
/// through as they came.
@Suite struct VideoNegotiationTests {
    static func plan(_ output: String, codec: VideoCodec? = nil, pixelFormat: String? = nil) throws -> RecordingPlan {
        var request = RecordingRequest(video: .test, output: output)
        request.videoCodec = codec
        request.pixelFormat = pixelFormat
        return try RecordingPlanner.plan(request, survey: DeviceSurvey(video: .init(device: TestSources.video)))
    }

    static func info(_ codec: String, _ pixelFormat: String, _ width: Int, _ height: Int) -> MediaStreamInfo {
        MediaStreamInfo(
            kind: .video, codec: codec, pixelFormat: pixelFormat, width: width, height: height,
            frameRate: Rational(30, 1), timeBase: Rational(1, 1_000_000))
    }

    @Test func aJPEGsFullRangeIsKeptAndTagged() throws {
        let plan = try Self.plan("out.mp4")
        let settled = try VideoNegotiation.negotiate(
            plan.videos[0], input: Self.info("mjpeg", "yuvj422p", 1280, 720), container: plan.container,
            withAudio: false)
        #expect(settled.keepsFullRange && settled.pixelFormat == .yuv420p)
        #expect(settled.settings?.colorRange == .full && settled.settings?.bt601 == true)
    }

    /// As ffmpeg's `-pix_fmt yuv420p`: a pixel format asked for is the plain, limited-range one.
    @Test func aJPEGGivenAnAskedPixelFormatIsConvertedToLimitedRange() throws {
        let plan = try Self.plan("out.mp4", pixelFormat: "yuv420p")
        let settled = try VideoNegotiation.negotiate(
            plan.videos[0], input: Self.info("mjpeg", "yuvj422p", 1280, 720), container: plan.container,
            withAudio: false)
        #expect(!settled.keepsFullRange && settled.pixelFormat == .yuv420p)
        #expect(settled.settings?.colorRange == .limited)
    }

    @Test func aCamerasOwnYUVIsLimited() throws {
        let plan = try Self.plan("out.mp4")
        let settled = try VideoNegotiation.negotiate(
            plan.videos[0], input: Self.info("rawvideo", "yuyv422", 640, 480), container: plan.container,
            withAudio: false)
        #expect(!settled.keepsFullRange && settled.settings?.colorRange == .limited)
        #expect(settled.settings?.bt601 == false && settled.warning == nil)
    }

    @Test func anOddSizeIsMadeEvenForH264WithAWarning() throws {
        let plan = try Self.plan("out.mp4")
        let settled = try VideoNegotiation.negotiate(
            plan.videos[0], input: Self.info("rawvideo", "yuyv422", 321, 241), container: plan.container,
            withAudio: false)
        #expect((settled.width, settled.height) == (320, 240))
        #expect(settled.warning?.hasPrefix("321x241 is an odd frame size") == true)
    }

    @Test func rawFramesOfTheContainersKindPassThrough() throws {
        let plan = try Self.plan("out.nut", codec: .raw)
        let settled = try VideoNegotiation.negotiate(
            plan.videos[0], input: Self.info("rawvideo", "yuyv422", 640, 480), container: plan.container,
            withAudio: false)
        #expect(settled.passesThrough && !settled.keepsFullRange && settled.pixelFormat.name == "yuyv422")
    }
}
