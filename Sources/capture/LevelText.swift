import CaptureCore

/// Audio levels as text: the compact meter of the progress line and `capture meter`, and dBFS
/// values.
enum LevelText {
    /// Cells in one bar, over `floor`...0 dBFS.
    static let cells = 10
    static let floor = -60.0

    /// `L [#######...] -12  R [######....] -15 dBFS`: a bar per channel up to two, then the
    /// loudest channel's alone (`[#######...] -12 dBFS (loudest of 6)`), `CLIP` when a sample
    /// reached full scale; `[..........] -inf dBFS` for digital silence, `[ no audio ] ` before
    /// the first reading.
    static func meter(_ level: AudioLevel?) -> String {
        guard let level, !level.channels.isEmpty else { return "[  no audio  ]" }
        let clip = level.clipped > 0 ? " CLIP" : ""
        switch level.channels.count {
        case 1:
            return "\(bar(level.channels[0].peak)) \(decibels(level.channels[0].peak)) dBFS\(clip)"
        case 2:
            return "L \(bar(level.channels[0].peak)) \(decibels(level.channels[0].peak))  "
                + "R \(bar(level.channels[1].peak)) \(decibels(level.channels[1].peak)) dBFS\(clip)"
        default:
            return "\(bar(level.peak)) \(decibels(level.peak)) dBFS (loudest of \(level.channels.count))\(clip)"
        }
    }

    /// A bar of `cells` cells, one `#` per 6 dB above `floor`.
    static func bar(_ peak: Double?) -> String {
        let filled = peak.map { Int(((max($0, floor) - floor) / -floor * Double(cells)).rounded()) } ?? 0
        let count = min(cells, max(0, filled))
        return "[" + String(repeating: "#", count: count) + String(repeating: ".", count: cells - count) + "]"
    }

    /// `-12.3`, or `-inf` for digital silence.
    static func decibels(_ value: Double?) -> String {
        value.map { String(cFormat: "%.1f", $0) } ?? "-inf"
    }
}
