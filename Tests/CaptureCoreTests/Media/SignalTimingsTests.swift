import CShim
import Testing

@testable import CaptureCore

/// An HDMI input's signal from its DV timings: the frame rate is the pixel clock over the whole
/// frame, blanking included (CTA-861 values), and the description names size and rate.
@Suite struct SignalTimingsTests {
    /// BT timings with CTA-861's porches and syncs.
    static func timings(
        width: UInt32, height: UInt32, clock: UInt64, horizontal: (UInt32, UInt32, UInt32),
        vertical: (UInt32, UInt32, UInt32), interlacedVertical: (UInt32, UInt32, UInt32)? = nil
    ) -> v4l2_bt_timings {
        var bt = v4l2_bt_timings()
        bt.width = width
        bt.height = height
        bt.pixelclock = clock
        (bt.hfrontporch, bt.hsync, bt.hbackporch) = horizontal
        (bt.vfrontporch, bt.vsync, bt.vbackporch) = vertical
        if let interlacedVertical {
            bt.interlaced = UInt32(V4L2_DV_INTERLACED)
            (bt.il_vfrontporch, bt.il_vsync, bt.il_vbackporch) = interlacedVertical
        }
        return bt
    }

    @Test func progressive720At60() {
        let signal = SignalTimings(
            Self.timings(width: 1280, height: 720, clock: 74_250_000, horizontal: (110, 40, 220), vertical: (5, 5, 20)))
        #expect(signal.frameRate == Rational(60, 1))
        #expect(signal.description == "1280x720 at 60 fps")
    }

    @Test func progressive1080At59_94() {
        let signal = SignalTimings(
            Self.timings(
                width: 1920, height: 1080, clock: 148_351_648, horizontal: (88, 44, 148), vertical: (4, 5, 36)))
        #expect(signal.description == "1920x1080 at 59.94 fps")
    }

    /// An interlaced frame is two fields: the second field's blanking is part of the frame.
    @Test func interlaced1080CountsBothFields() {
        let signal = SignalTimings(
            Self.timings(
                width: 1920, height: 1080, clock: 74_250_000, horizontal: (88, 44, 148), vertical: (2, 5, 15),
                interlacedVertical: (2, 5, 16)))
        #expect(signal.interlaced)
        #expect(signal.frameRate == Rational(30, 1))
        #expect(signal.description == "1920x1080 interlaced at 30 fps")
    }

    /// Two signals differ when size, scan or rate do; a colorspace change alone is none.
    @Test func sameModeIsNoChange() {
        let a = SignalTimings(width: 1280, height: 720, interlaced: false, frameRate: Rational(60, 1))
        #expect(a == SignalTimings(width: 1280, height: 720, interlaced: false, frameRate: Rational(120, 2).reduced))
        #expect(a != SignalTimings(width: 1280, height: 720, interlaced: false, frameRate: Rational(50, 1)))
        #expect(a != SignalTimings(width: 1920, height: 1080, interlaced: false, frameRate: Rational(60, 1)))
        #expect(SignalTimings(width: 640, height: 480, interlaced: false, frameRate: nil).description == "640x480")
    }
}
