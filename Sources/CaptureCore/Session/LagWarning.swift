/// Notices, once, that a camera's frames have been dropped for lateness for more than a second
/// on end: the recorder (its encoder, mostly) cannot keep up with the camera on this machine,
/// which the summary would otherwise say only at the end. A pause of half a second between two
/// late drops ends a run; jitter that costs a frame now and then never warns.
///
/// A value; the recording loop's thread only.
struct LagWarning {
    private var runStart: Int64?
    private var lastDrop: Int64?
    private(set) var warned = false

    /// A pause longer than this between two late drops ends a run, microseconds.
    static let pause: Int64 = 500_000
    /// How long a run lasts before it is told, microseconds.
    static let span: Int64 = 1_000_000

    /// Notes frames dropped late, captured at `times` (microseconds from the start).
    ///
    /// - Returns: true once: when a run of drops first spans more than `span`.
    mutating func note(_ times: [Int64]) -> Bool {
        guard !warned else { return false }
        for time in times.sorted() {
            if let lastDrop, time - lastDrop <= Self.pause {
                // The run goes on.
            } else {
                runStart = time
            }
            lastDrop = time
            if let runStart, time - runStart > Self.span {
                warned = true
                return true
            }
        }
        return false
    }
}
