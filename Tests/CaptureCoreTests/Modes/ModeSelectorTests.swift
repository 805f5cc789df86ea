import Testing

@testable import CaptureCore

@Suite struct ModeSelectorTests {
    func select(
        _ probe: CameraProbe, size: String? = nil, rate: String? = nil, format: String? = nil, copy: Bool = false,
        reader: V4L2Reader? = nil
    )
        throws(CaptureError) -> VideoMode
    {
        let request = VideoRequest(
            frameSize: size.flatMap(FrameDimensions.init(parsing:)), frameRate: rate.flatMap(Rational.init(parsing:)),
            inputFormat: format, copy: copy, reader: reader)
        return try ModeSelector.select(request, from: probe)
    }

    func notSupportedReason(_ body: () throws(CaptureError) -> VideoMode) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            if case .notSupported(_, let reason) = error { return reason.description }
            return nil
        }
    }

    // MARK: vivid webcam (discrete sizes and intervals)

    @Test func defaultIsTheLargestSizeReaching25fps() throws {
        let mode = try select(VividFixtures.webcam)
        #expect(mode.size == FrameDimensions(width: 640, height: 480))
        #expect(mode.frameRate == Rational(25, 1))
        #expect(mode.fourcc == "YUYV")
        #expect(mode.inputFormat == "yuyv422")
        #expect(!mode.compressed)
    }

    @Test func c01FullHDAt30IsRefusedNamingTheRatesOnOffer() {
        let reason = notSupportedReason { () throws(CaptureError) in
            try select(VividFixtures.webcam, size: "1920x1080", rate: "30")
        }
        #expect(reason != nil)
        #expect(reason?.contains("1920x1080 at 30 fps") == true)
        #expect(reason?.contains("1920x1080 at 5, 4, 2 or 1 fps") == true)
    }

    @Test func c01FullHDAt5IsGranted() throws {
        let mode = try select(VividFixtures.webcam, size: "1920x1080", rate: "5")
        #expect(mode.size == FrameDimensions(width: 1920, height: 1080))
        #expect(mode.frameRate == Rational(5, 1))
    }

    @Test func onlyASizeGivesItsHighestRate() throws {
        #expect(try select(VividFixtures.webcam, size: "1280x720").frameRate == Rational(25, 2))
        #expect(try select(VividFixtures.webcam, size: "320x180").frameRate == Rational(60, 1))
    }

    @Test func onlyARateGivesTheLargestSizeReachingIt() throws {
        #expect(try select(VividFixtures.webcam, rate: "30").size == FrameDimensions(width: 640, height: 360))
        #expect(try select(VividFixtures.webcam, rate: "12.5").size == FrameDimensions(width: 1280, height: 720))
    }

    @Test func aSizeNotOfferedIsRefused() {
        let reason = notSupportedReason { () throws(CaptureError) in try select(VividFixtures.webcam, size: "800x600") }
        #expect(reason?.contains("800x600") == true)
    }

    @Test func c11InputFormats() throws {
        #expect(try select(VividFixtures.webcam, format: "nv12").fourcc == "NV12")
        #expect(try select(VividFixtures.webcam, format: "NV12").inputFormat == "nv12")
        // FFmpeg's v4l2 input asks for YU12 first under yuv420p, so YV12 is never what it gets.
        #expect(try select(VividFixtures.webcam, format: "yuv420p").fourcc == "YU12")
        for name in ["mjpeg", "h264", "MJPG"] {
            let reason = notSupportedReason { () throws(CaptureError) in try select(VividFixtures.webcam, format: name)
            }
            #expect(reason?.contains("YUYV (yuyv422)") == true, "\(name)")
        }
        // Offered by the camera; FFmpeg 5.1's v4l2 input has no mapping for it, capture's own reader
        // records it.
        #expect(try select(VividFixtures.webcam, format: "YVYU").inputFormat == "yvyu422")
        #expect(try select(VividFixtures.webcam, format: "yvyu422").fourcc == "YVYU")
        #expect(
            notSupportedReason { () throws(CaptureError) in
                try select(VividFixtures.webcam, format: "YVYU", reader: .ffmpeg)
            } == "FFmpeg's v4l2 input cannot capture YVYU; formats on offer: "
                + "YUYV (yuyv422), YVYU (yvyu422), YU12 (yuv420p), YV12 (yuv420p), NV12 (nv12), NV16 (yuv422p)")
        // Under the own reader YV12 is a format of its own; FFmpeg's asks for YU12 under yuv420p.
        #expect(try select(VividFixtures.webcam, format: "YV12").fourcc == "YV12")
        #expect(
            notSupportedReason { () throws(CaptureError) in
                try select(VividFixtures.webcam, format: "YV12", reader: .ffmpeg)
            }?.hasPrefix("FFmpeg's v4l2 input cannot capture YV12") == true)
        #expect(throws: CaptureError.self) { try select(VividFixtures.webcam, format: "foo") }
        do {
            _ = try select(VividFixtures.webcam, format: "foo")
        } catch {
            #expect(error.exitCode == 64)
        }
    }

    /// The current format comes first among equals, unless it is a Bayer mosaic another program
    /// left the camera in: that is recorded only when asked for.
    @Test func theCurrentFormatFirstButABayerMosaicLast() throws {
        var probe = VividFixtures.webcam
        let nv12 = try #require(probe.formats.firstIndex { $0.fourcc == "NV12" })
        probe.current?.fourcc = "NV12"
        #expect(try select(probe, size: "640x480").fourcc == "NV12")
        probe.formats[nv12].fourcc = "RGGB"
        probe.formats[nv12].ffmpegName = "bayer_rggb8"
        probe.current?.fourcc = "RGGB"
        #expect(try select(probe, size: "640x480").fourcc == "YUYV")
        #expect(try select(probe, size: "640x480", format: "RGGB").fourcc == "RGGB")
    }

    @Test func copyNeedsACompressedFormat() {
        #expect(
            notSupportedReason { () throws(CaptureError) in try select(VividFixtures.webcam, copy: true) }?.contains(
                "compressed") == true)
    }

    // MARK: vivid HDMI and S-Video (stepwise sizes, rate tied to the input)

    @Test func hdmiDefaultsToTheCurrentSizeAndItsRate() throws {
        let mode = try select(VividFixtures.hdmi)
        #expect(mode.size == FrameDimensions(width: 1280, height: 720))
        #expect(mode.frameRate == Rational(60, 1))
    }

    @Test func hdmiTakesAnySizeOnItsStep() throws {
        let mode = try select(VividFixtures.hdmi, size: "1920x1080", rate: "60")
        #expect(mode.size == FrameDimensions(width: 1920, height: 1080))
        #expect(
            notSupportedReason { () throws(CaptureError) in try select(VividFixtures.hdmi, size: "1921x1080") } != nil)
        #expect(notSupportedReason { () throws(CaptureError) in try select(VividFixtures.hdmi, size: "8x8") } != nil)
    }

    @Test func hdmiLockedTo60RefusesA30Request() {
        let reason = notSupportedReason { () throws(CaptureError) in
            try select(VividFixtures.hdmi, size: "1280x720", rate: "30")
        }
        #expect(reason?.contains("60 fps") == true)
    }

    @Test func withoutIntervalsTheCurrentRateIsWhatYouGet() throws {
        // The HDMI answer with the frame intervals taken away, as drivers that list none answer.
        var probe = VividFixtures.hdmi
        for f in probe.formats.indices {
            for s in probe.formats[f].frameSizes.indices { probe.formats[f].frameSizes[s].intervals = .none }
        }
        let mode = try select(probe)
        #expect(mode.frameRate == Rational(60, 1))
        #expect(mode.rateFromInput)
        #expect(try select(probe, size: "640x480", rate: "60").size == FrameDimensions(width: 640, height: 480))
        #expect(
            notSupportedReason { () throws(CaptureError) in try select(probe, rate: "30") }?.contains("60 fps") == true)
    }

    @Test func svideoFollowsThePALStandard() throws {
        let mode = try select(VividFixtures.svideo)
        #expect(mode.size == FrameDimensions(width: 720, height: 576))
        #expect(mode.frameRate == Rational(25, 1))
    }

    @Test func multiplanarCameraSelectsLikeTheSinglePlanarOne() throws {
        let mode = try select(VividFixtures.multiplanar)
        #expect(mode.size == FrameDimensions(width: 640, height: 480))
        #expect(mode.frameRate == Rational(25, 1))
        #expect(mode.multiplanar)
    }

    // MARK: a UVC-style camera where only MJPEG is fast at 1080p (constructed, not recorded)

    static let uvc: CameraProbe = {
        let fast = FrameIntervals(type: .discrete, discrete: [Rational(1, 30), Rational(1, 15)])
        let slow = FrameIntervals(type: .discrete, discrete: [Rational(1, 5)])
        func format(_ fourcc: String, _ name: String, compressed: Bool, _ sizes: [FrameSize]) -> CameraFormat {
            CameraFormat(
                fourcc: fourcc, code: 0, description: fourcc, ffmpegName: name, compressed: compressed, emulated: false,
                bufferType: "video-capture", frameSizes: sizes)
        }
        return CameraProbe(
            path: "/dev/video0", driver: "uvcvideo", card: "Webcam", busInfo: "usb-0000:00:14.0-1",
            capabilities: ["Video Capture"], multiplanar: false, input: nil, inputs: [],
            formats: [
                format("YUYV", "yuyv422", compressed: false, [.discrete(640, 480, fast), .discrete(1920, 1080, slow)]),
                format("MJPG", "mjpeg", compressed: true, [.discrete(640, 480, fast), .discrete(1920, 1080, fast)]),
            ],
            current: CurrentMode(fourcc: "YUYV", width: 640, height: 480, frameRate: Rational(30, 1)), controls: [])
    }()

    @Test func compressedWhenOnlyItReachesTheRequest() throws {
        let mode = try select(Self.uvc, size: "1920x1080", rate: "30")
        #expect(mode.fourcc == "MJPG")
        #expect(mode.inputFormat == "mjpeg")
        #expect(mode.compressed)
    }

    @Test func rawFirstWhenItReachesTheRequest() throws {
        #expect(try select(Self.uvc, size: "640x480", rate: "30").fourcc == "YUYV")
        #expect(try select(Self.uvc, size: "1920x1080", rate: "5").fourcc == "YUYV")
        #expect(try select(Self.uvc, size: "640x480", rate: "30", copy: true).fourcc == "MJPG")
    }

    @Test func defaultTakesTheLargestSmoothSizeEvenIfCompressed() throws {
        let mode = try select(Self.uvc)
        #expect(mode.size == FrameDimensions(width: 1920, height: 1080))
        #expect(mode.fourcc == "MJPG")
    }

    @Test func ntscRequestFindsTheExactRate() throws {
        var probe = Self.uvc
        probe.formats[0].frameSizes[0].intervals = FrameIntervals(type: .discrete, discrete: [Rational(1001, 30000)])
        let mode = try select(probe, size: "640x480", rate: "30")
        #expect(mode.frameRate == Rational(30000, 1001))
        #expect(mode.fourcc == "YUYV")
    }

    @Test func stepwiseIntervalsTakeTheRequestedRate() throws {
        var probe = Self.uvc
        probe.formats[0].frameSizes[1].intervals = FrameIntervals(
            type: .continuous, min: Rational(1, 60), max: Rational(1, 1))
        #expect(try select(probe, size: "1920x1080", rate: "24").frameRate == Rational(24, 1))
        #expect(try select(probe, size: "1920x1080", rate: "24").fourcc == "YUYV")
    }

    // MARK: summary

    @Test func summarySaysWhichFormatReachesTheTopRate() {
        let lines = SizeSummary.summarize(Self.uvc).map(\.text)
        #expect(lines == ["1920x1080: 30 fps needs MJPG; YUYV reaches 5 fps", "640x480: 30 fps (YUYV, MJPG)"])
    }

    @Test func summaryOfTheVividWebcam() {
        let lines = SizeSummary.summarize(VividFixtures.webcam).map(\.text)
        #expect(lines.first == "3840x2160: 2 fps (YUYV, YVYU, YU12, YV12 and 2 more)")
        #expect(lines.contains("640x480: 25 fps (YUYV, YVYU, YU12, YV12 and 2 more)"))
    }

    @Test func rangesContainSizesOnTheirStep() {
        let range = VividFixtures.hdmi.formats[0].frameSizes[0]
        #expect(range.contains(FrameDimensions(width: 16, height: 16)))
        #expect(range.contains(FrameDimensions(width: 16384, height: 8640)))
        #expect(!range.contains(FrameDimensions(width: 17, height: 16)))
        #expect(!range.contains(FrameDimensions(width: 16386, height: 16)))
    }
}
