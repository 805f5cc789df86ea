import Testing

@testable import CaptureCore

/// The times the MP4 rewrite gives a track's last packet (`FastStartRewrite.lastTimes`), in the
/// stream's ticks (one a frame here), for an encoder that reorders with a delay of 2.
@Suite struct FastStartTimesTests {
    /// Frames at an even pace: the last one keeps its decode time and lasts to the end.
    @Test func anEvenPaceKeepsTheDecodeTime() {
        let times = FastStartRewrite.lastTimes(pts: 179, dts: 177, duration: 1, delay: 2, after: 176, end: 180)
        #expect(times.dts == 177)
        #expect(times.duration == 1)
    }

    /// After a gap the encoder gives the last packet the decode time of a frame before it: it is
    /// moved up to the track's delay before its presentation.
    @Test func afterAGapTheDecodeTimeMovesUp() {
        let times = FastStartRewrite.lastTimes(pts: 179, dts: 150, duration: 1, delay: 2, after: 149, end: 180)
        #expect(times.dts == 177)
        #expect(times.duration == 1)
    }

    /// Frames dropped just before the end: the packet before the last already decodes at the
    /// presentation less the delay. The same decode time twice is a file ffmpeg rejects ("non
    /// monotonically increasing dts"), so the last one decodes a tick after it.
    @Test func neverTheDecodeTimeOfThePacketBefore() {
        let times = FastStartRewrite.lastTimes(pts: 179, dts: 176, duration: 1, delay: 2, after: 177, end: 180)
        #expect(times.dts == 178)
        // Its presentation still ends at the end: 179 + 1.
        #expect(times.duration == 1)
    }

    /// Never after its own presentation, whatever came before.
    @Test func neverAfterItsPresentation() {
        let times = FastStartRewrite.lastTimes(pts: 179, dts: 170, duration: 1, delay: 2, after: 179, end: 180)
        #expect(times.dts == 179)
    }
}
