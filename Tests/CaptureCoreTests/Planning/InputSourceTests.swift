import Glibc
import Testing

@testable import CaptureCore

/// A camera that refuses to start streaming is explained in its terms, not as raw errno text.
@Suite struct StreamStartErrorTests {
    let mode = VideoMode(
        fourcc: "YUYV", inputFormat: "yuyv422", width: 1280, height: 720, frameRate: Rational(10, 1),
        rateFromInput: false, compressed: false, multiplanar: false)

    @Test func noSpaceAtStreamStartIsUSBBandwidthNotAFullDisk() throws {
        let reason = try #require(
            InputSource.streamStartReason(FFmpegError(-ENOSPC, call: "avformat_open_input"), mode: mode)?.description)
        #expect(reason.contains("USB bus has too little bandwidth left to stream YUYV 1280x720 at 10 fps"))
        #expect(reason.contains("not a full disk"))
        #expect(reason.contains("smaller size"))
    }

    /// Several cameras on one USB controller: the refusal names those streaming already.
    @Test func noSpaceNamesTheCamerasOnTheSameController() throws {
        let reason = try #require(
            InputSource.streamStartReason(
                FFmpegError(-ENOSPC, call: "avformat_open_input"), mode: mode, busMates: ["/dev/video0"])?.description)
        #expect(reason.contains("shares its USB controller with /dev/video0"))
        let camera = { (bus: String) in
            Device(
                name: "/dev/video2", kind: .video, api: .v4l2, role: "camera", description: "cam",
                v4l2: V4L2Details(
                    path: "/dev/video2", stablePath: nil, card: "cam", driver: "uvcvideo", busInfo: bus,
                    multiplanar: false,
                    capabilities: [], deviceCaps: []))
        }
        #expect(camera("usb-0000:00:14.0-1.2").usbController == "usb-0000:00:14.0")
        #expect(camera("usb-0000:00:14.0-3").usbController == camera("usb-0000:00:14.0-1.2").usbController)
        #expect(camera("platform:vivid-000").usbController == nil)
    }

    @Test func otherErrorsWithoutAStreamStartAreLeftToTheCaller() {
        #expect(InputSource.streamStartReason(FFmpegError(-EINVAL, call: "avformat_open_input"), mode: mode) == nil)
    }
}

/// A camera is read by capture's own V4L2 reader, with the buffers asked for, in every format it
/// reads; in another (a camera's own H.264), by FFmpeg's v4l2 input, which takes no buffer count.
@Suite struct NativeCameraSourceTests {
    static func camera(_ probe: CameraProbe) -> Device {
        Device(
            name: probe.path, kind: .video, api: .v4l2, role: "camera", description: "vivid",
            v4l2: V4L2Details(
                path: probe.path, stablePath: nil, card: "vivid", driver: "vivid", busInfo: "platform:vivid-001",
                multiplanar: probe.multiplanar, capabilities: [], deviceCaps: []))
    }

    @Test func aMultiplanarCameraIsReadByTheOwnReader() throws {
        let probe = VividFixtures.multiplanar
        let request = VideoRequest(frameSize: FrameDimensions(width: 320, height: 180), frameRate: Rational(30, 1))
        let source = try InputSource.make(Self.camera(probe), kind: .video, video: request, camera: probe)
        #expect(source.format == InputSource.nativeFormat)
        let native = try #require(source.native)
        #expect(native.multiplanar && native.width == 320 && native.height == 180 && native.buffers == 15)
        var asked = request
        asked.buffers = 6
        #expect(
            try InputSource.make(Self.camera(probe), kind: .video, video: asked, camera: probe).native?.buffers == 6)
    }

    @Test func aSinglePlanarCameraIsReadByTheOwnReader() throws {
        let probe = VividFixtures.webcam
        let request = VideoRequest(frameSize: FrameDimensions(width: 640, height: 480))
        let source = try InputSource.make(Self.camera(probe), kind: .video, video: request, camera: probe)
        #expect(source.format == InputSource.nativeFormat)
        let native = try #require(source.native)
        #expect(!native.multiplanar && native.fourcc == "YUYV" && native.width == 640 && native.height == 480)
    }

    /// A camera's own H.264, which the own reader does not read yet, goes to FFmpeg's reader.
    @Test func aFormatTheOwnReaderCannotReadIsReadByFFmpegs() throws {
        var probe = VividFixtures.webcam
        probe.formats = [probe.formats[0]]
        probe.formats[0].fourcc = "H264"
        probe.formats[0].ffmpegName = "h264"
        probe.formats[0].compressed = true
        let request = VideoRequest(frameSize: FrameDimensions(width: 640, height: 480))
        let source = try InputSource.make(Self.camera(probe), kind: .video, video: request, camera: probe)
        #expect(source.native == nil && source.format == "v4l2")
        var asked = request
        asked.reader = .native
        #expect(throws: CaptureError.self) {
            try InputSource.make(Self.camera(probe), kind: .video, video: asked, camera: probe)
        }
    }

    /// An input with DV timings (HDMI) is read by the own reader, which sees its source change.
    @Test func anHDMIInputIsReadByTheOwnReader() throws {
        var probe = VividFixtures.hdmi
        let request = VideoRequest(frameSize: FrameDimensions(width: 320, height: 180))
        probe.input?.dvTimings = true
        let source = try InputSource.make(Self.camera(probe), kind: .video, video: request, camera: probe)
        let native = try #require(source.native)
        #expect(source.format == InputSource.nativeFormat)
        #expect(!native.multiplanar && native.width == 320 && native.height == 180 && native.fourcc == "YUYV")
    }

    /// The reader asked for wins where it can read the camera; FFmpeg's cannot read a
    /// multiplanar-only one, which is refused before anything opens.
    @Test func theReaderAskedFor() throws {
        let size = FrameDimensions(width: 640, height: 480)
        let webcam = VividFixtures.webcam
        let native = try InputSource.make(
            Self.camera(webcam), kind: .video, video: VideoRequest(frameSize: size, reader: .native), camera: webcam)
        #expect(native.native?.multiplanar == false && native.format == InputSource.nativeFormat)
        var hdmi = VividFixtures.hdmi
        hdmi.input?.dvTimings = true
        let ffmpeg = try InputSource.make(
            Self.camera(hdmi), kind: .video, video: VideoRequest(frameSize: size, reader: .ffmpeg), camera: hdmi)
        #expect(ffmpeg.native == nil && ffmpeg.format == "v4l2")
        let planar = VividFixtures.multiplanar
        #expect(throws: CaptureError.self) {
            try InputSource.make(
                Self.camera(planar), kind: .video,
                video: VideoRequest(frameSize: FrameDimensions(width: 320, height: 180), reader: .ffmpeg),
                camera: planar)
        }
    }

    @Test func aBufferCountForACameraFFmpegReadsIsAUsageError() throws {
        let probe = VividFixtures.webcam
        let request = VideoRequest(frameSize: FrameDimensions(width: 640, height: 480), buffers: 6, reader: .ffmpeg)
        #expect(throws: CaptureError.self) {
            try InputSource.make(Self.camera(probe), kind: .video, video: request, camera: probe)
        }
        var own = request
        own.reader = nil
        #expect(try InputSource.make(Self.camera(probe), kind: .video, video: own, camera: probe).native?.buffers == 6)
    }

    /// After a source change the grabber is opened at what its source sends: the new timings' size
    /// when it streamed its signal's own size, the size it scaled to otherwise; the mode read back
    /// once open becomes the one asked, so a reconnect opens the new mode, timings left as they are.
    @Test func aSourceThatChangedModeIsOpenedAtTheNewSignal() throws {
        let probe = VividFixtures.hdmi
        let hd = SignalTimings(width: 1280, height: 720, interlaced: false, frameRate: Rational(60, 1))
        let own = try InputSource.make(
            Self.camera(probe), kind: .video, video: VideoRequest(frameSize: FrameDimensions(width: 1280, height: 720)),
            camera: probe)
        let following = try #require(own.following(signal: hd).native)
        #expect(following.adoptsSignal && following.sizeFollowsSignal && following.frameRate == nil)
        let scaled = try InputSource.make(
            Self.camera(probe), kind: .video, video: VideoRequest(frameSize: FrameDimensions(width: 320, height: 180)),
            camera: probe)
        var next = scaled.following(signal: hd)
        #expect(next.native?.adoptsSignal == true && next.native?.sizeFollowsSignal == false)
        next.adopt(
            MediaStreamInfo(
                kind: .video, codec: "rawvideo", width: 640, height: 360, frameRate: Rational(30, 1),
                timeBase: Rational(1, 1_000_000)))
        #expect(next.native?.width == 640 && next.native?.height == 360)
        #expect(next.native?.adoptsSignal == false && next.native?.sizeFollowsSignal == false)
        #expect(next.mode?.size == FrameDimensions(width: 640, height: 360) && next.mode?.frameRate == Rational(30, 1))
        #expect(next.frameRate == Rational(30, 1) && next.frameSize == FrameDimensions(width: 640, height: 360))
    }
}
