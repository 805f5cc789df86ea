internal import CFFmpeg

/// Timestamp arithmetic between time bases, as FFmpeg does it: exact 64-bit products, rounded to
/// the nearest tick, halfway away from zero (`av_rescale_q_rnd` with `AV_ROUND_NEAR_INF`, the
/// rounding `av_rescale_q` uses).
enum Rescale {
    /// One microsecond: the session clock's tick.
    static let microsecond = Rational(1, 1_000_000)

    /// `value` ticks of `from` in ticks of `to`.
    static func rescale(_ value: Int64, from: Rational, to: Rational) -> Int64 {
        av_rescale_q_rnd(value, from.av, to.av, AV_ROUND_NEAR_INF)
    }

    /// The frame slot at `rate` nearest to `time` (microseconds).
    static func slot(at time: Int64, rate: Rational) -> Int64 {
        rescale(time, from: microsecond, to: rate.inverted)
    }

    /// Where frame slot `slot` at `rate` starts, in microseconds.
    static func microseconds(ofSlot slot: Int64, rate: Rational) -> Int64 {
        rescale(slot, from: rate.inverted, to: microsecond)
    }

    /// The sample at `sampleRate` Hz nearest to `time` (microseconds).
    static func sample(at time: Int64, sampleRate: Int) -> Int64 {
        av_rescale(time, Int64(sampleRate), 1_000_000)
    }
}
