import Testing

@testable import CaptureCore

/// A camera's frames dropped late for more than a second on end are told once; drops now and
/// then are not.
@Suite struct LagWarningTests {
    @Test func aRunOfMoreThanASecondIsToldOnce() {
        var lag = LagWarning()
        // Every other frame at 30 fps: 66 ms apart, one run.
        let run = stride(from: Int64(0), through: 1_100_000, by: 66_667).map { $0 }
        #expect(lag.note(Array(run.prefix(10))) == false)
        #expect(lag.note(Array(run.dropFirst(10))) == true)
        #expect(lag.note([1_200_000, 1_250_000, 2_500_000]) == false)
        #expect(lag.warned)
    }

    @Test func pausesOfHalfASecondEndARun() {
        var lag = LagWarning()
        // A drop every 0.6 s for 10 s: jitter, never a run.
        #expect(lag.note(stride(from: Int64(0), through: 10_000_000, by: 600_000).map { $0 }) == false)
        #expect(!lag.warned)
    }

    /// The advice names only what would help: no faster preset past ultrafast, copying only for a
    /// camera that sends MJPEG or H.264.
    @Test(arguments: [
        (
            "veryfast", "rawvideo",
            "a faster x264 preset (ultrafast), a smaller frame size or a lower frame rate would keep up"
        ),
        ("ultrafast", "rawvideo", "a smaller frame size or a lower frame rate would keep up"),
        (
            "veryfast", "mjpeg",
            "a faster x264 preset (ultrafast), a smaller frame size, a lower frame rate or copying what the camera sends (MJPEG) would keep up"
        ),
        (
            "ultrafast", "h264",
            "a smaller frame size, a lower frame rate or copying what the camera sends (H.264) would keep up"
        ),
    ])
    func adviceFitsTheRecording(preset: String, codec: String, advice: String) {
        #expect(LagWarning.advice(preset: preset, inputCodec: codec) == advice)
    }
}
