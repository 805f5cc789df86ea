/// How several free-running cameras stood against each other, from the capture times of their
/// frames on the session clock: each one's frame phase against the first camera, and its drift.
enum CameraSkew {
    /// Where `camera`'s frames fall against `first`'s, in milliseconds within half a frame
    /// interval of `first` (positive: taken later); nil unless both run at the same nominal rate
    /// (a phase between different rates changes from frame to frame) and both wrote a frame.
    static func phase(of camera: VideoPath, against first: VideoPath) -> Double? {
        guard camera.rate == first.rate, first.rate.doubleValue > 0, let mine = camera.firstTime,
            let theirs = first.firstTime
        else { return nil }
        let interval = 1e6 / first.rate.doubleValue
        var offset = Double(mine - theirs).truncatingRemainder(dividingBy: interval)
        if offset > interval / 2 { offset -= interval }
        if offset <= -interval / 2 { offset += interval }
        // Microseconds, rounded, as milliseconds.
        return offset.rounded() / 1000
    }

    /// How much faster (positive) or slower than its nominal rate the camera ran over the
    /// recording, in parts per million: the capture times of its first and last frames against
    /// the frame slots between them. A slot count is exact while the drift stays under half a
    /// frame interval, minutes at any real camera's drift; nil before two frames, and when frames
    /// were dropped (late or in gaps), whose slots the count would take on trust.
    static func drift(of camera: VideoPath) -> Double? {
        guard camera.tally.late == 0, camera.tally.gaps == 0, let first = camera.firstTime, let last = camera.lastTime,
            let firstSlot = camera.tally.firstSlot,
            let lastSlot = camera.tally.lastSlot, lastSlot > firstSlot, last > first, camera.rate.doubleValue > 0
        else { return nil }
        let nominal = Double(lastSlot - firstSlot) * 1e6 / camera.rate.doubleValue
        return ((nominal / Double(last - first) - 1) * 1e6 * 10).rounded() / 10
    }
}
