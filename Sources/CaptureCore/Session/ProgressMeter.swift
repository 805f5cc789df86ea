/// The progress line's numbers, at most four times a second: time recorded, frames and their
/// rate over about the last second, drops, bytes and bit rate, the microphones' levels.
struct ProgressMeter {
    private var cadence = Cadence(every: 250_000)
    private var window = (time: SessionClock.now(), frames: 0)
    let t0: Int64
    /// The recording's duration, seconds: the clock stops there while the last frames are written.
    let duration: Double?

    init(t0: Int64, duration: Double? = nil) {
        self.t0 = t0
        self.duration = duration
    }

    /// A snapshot when one is due at `now`, else nil.
    /// `cameras`: the recording's video chains; frames and drops are theirs together.
    /// `microphones`: the audio chains, whose latest levels it shows.
    mutating func tick(now: Int64, cameras: [VideoPath], microphones: [AudioPath], bytes: Int64) -> RecordingProgress? {
        guard cadence.due(now) else { return nil }
        let frames = cameras.reduce(0) { $0 + $1.written }
        let span = Double(now - window.time) / 1e6
        let fps = span > 0 ? Double(frames - window.frames) / span : 0
        if now - window.time >= 1_000_000 { window = (now, frames) }
        let elapsed = min(Double(now - t0) / 1e6, duration ?? .infinity)
        return RecordingProgress(
            elapsed: elapsed, frames: frames, fps: fps, dropped: cameras.reduce(0) { $0 + $1.tally.dropped },
            bytes: bytes,
            bitRate: elapsed > 0 ? Double(bytes) * 8 / elapsed : 0, levels: microphones.map(\.meter.latest))
    }
}
