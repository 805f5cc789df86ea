/// Something done at most once per interval of the session clock: flushing the file, the
/// progress line.
struct Cadence {
    /// Microseconds between two turns.
    let interval: Int64
    private var last: Int64

    init(every interval: Int64, from start: Int64 = SessionClock.now()) {
        self.interval = interval
        last = start
    }

    /// True when `now` is at least an interval after the last turn, which `now` then becomes.
    mutating func due(_ now: Int64) -> Bool {
        guard now - last >= interval else { return false }
        last = now
        return true
    }
}
