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

    @Test func otherErrorsWithoutAStreamStartAreLeftToTheCaller() {
        #expect(InputSource.streamStartReason(FFmpegError(-EINVAL, call: "avformat_open_input"), mode: mode) == nil)
    }
}
