/// The frame grid the cameras of one recording share, so that frames taken at one moment by
/// cameras at one rate get one frame number.
///
/// Each camera lays its grid so its first frame sits in the middle of a slot (`VideoPath`):
/// its frames then jitter around slot centres. Laid independently, two cameras whose frames come
/// a millisecond apart, near a slot boundary of a grid from zero, would land a slot apart in the
/// file for the same moment. So the first camera of a rate to place a frame fixes the grid's
/// phase for that rate, and each later camera keeps its own centring shifted by whole slots to
/// lie within half a slot of it: its frames then take the number of the first camera's frame
/// nearest in time.
///
/// Not thread-safe: the recording loop's thread only.
final class FrameGrid {
    /// The first camera's grid offset (microseconds) for each rate.
    private var offsets: [Rational: Int64] = [:]

    /// The grid offset for a camera at `rate` whose own centring gives `offset` (microseconds).
    func align(_ offset: Int64, rate: Rational) -> Int64 {
        guard let reference = offsets[rate] else {
            offsets[rate] = offset
            return offset
        }
        let interval = Double(Rescale.microseconds(ofSlot: 1_000_000, rate: rate)) / 1e6
        guard interval > 0 else { return offset }
        let slots = (Double(reference - offset) / interval).rounded()
        return offset + Int64((slots * interval).rounded())
    }
}
