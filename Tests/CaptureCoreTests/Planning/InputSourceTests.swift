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
