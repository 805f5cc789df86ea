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

    /// What would let the recorder keep up, as the warning puts it: a faster x264 preset unless
    /// it runs the fastest already, a smaller frame size or rate, and copying the camera's own
    /// stream when it sends one a recording could keep as it is (`inputCodec` MJPEG or H.264,
    /// decoded here to be encoded again).
    ///
    /// - Parameters:
    ///   - preset: the x264 preset in use; nil when the video is not encoded with x264.
    ///   - inputCodec: what the camera sends, as FFmpeg names it (`rawvideo`, `mjpeg`, `h264`).
    static func advice(preset: String?, inputCodec: String?) -> String {
        var ways: [String] = []
        if let preset, preset != "ultrafast" { ways.append("a faster x264 preset (ultrafast)") }
        ways += ["a smaller frame size", "a lower frame rate"]
        if let inputCodec, ["mjpeg", "h264"].contains(inputCodec) {
            ways.append("copying what the camera sends (\(inputCodec == "mjpeg" ? "MJPEG" : "H.264"))")
        }
        return ways.dropLast().joined(separator: ", ") + " or " + ways[ways.count - 1] + " would keep up"
    }
}
