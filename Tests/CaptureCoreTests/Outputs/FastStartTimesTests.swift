import Testing

@testable import CaptureCore

/// The times the MP4 rewrite gives a track's last packet (`FastStartRewrite.lastTimes`), in the
/// stream's ticks (one a frame here), for an encoder that reorders with a delay of 2.
@Suite struct FastStartTimesTests {
    /// Frames at an even pace: the last one keeps its decode time and lasts to the end. After
    /// a gap the encoder gives the last packet the decode time of a frame before it: it is moved
    /// up to the track's delay before its presentation. Frames dropped just before the end: the
    /// packet before the last already decodes at the presentation less the delay; the same
    /// decode time twice is a file the muxer rejects ("non monotonically increasing dts"), so
    /// the last one decodes a tick after it, its presentation still ending at the end (179 + 1).
    @Test(arguments: [
        (dts: Int64(177), after: Int64(176), movedTo: Int64(177)),
        (dts: 150, after: 149, movedTo: 177),
        (dts: 176, after: 177, movedTo: 178),
    ])
    func theLastPacketDecodesAtTheDelayAndAfterThePacketBefore(dts: Int64, after: Int64, movedTo: Int64) {
        // A fragmented file keeps no duration for a track's last packet (0), or the encoder's.
        for duration: Int64 in [0, 1] {
            let times = FastStartRewrite.lastTimes(
                pts: 179, dts: dts, duration: duration, delay: 2, after: after, end: 180)
            #expect(times.dts == movedTo)
            #expect(times.duration == 1, "given \(duration)")
        }
    }

    /// Never after its own presentation, whatever came before.
    @Test func neverAfterItsPresentation() {
        let times = FastStartRewrite.lastTimes(pts: 179, dts: 170, duration: 1, delay: 2, after: 179, end: 180)
        #expect(times.dts == 179)
    }
}
