/// For each frame size a camera offers: the highest frame rate and the pixel formats that reach
/// it, and when only compressed formats reach it, the best a raw format can do. This is what a
/// person needs to pick a mode ("1920x1080: 30 fps needs MJPG; YUYV reaches 5 fps").
public struct SizeSummary: Codable, Hashable, Sendable {
    /// The frame size, or for a range its description ("16x16 - 16384x8640, step 2x2").
    public var size: String
    /// Pixels per frame (the largest size of a range), for ordering.
    public var area: Int
    /// The highest frame rate at this size; nil when the driver lists none and reports no
    /// current rate.
    public var highestRate: Rational?
    /// True when the rate follows the input (no frame intervals listed; VIDIOC_G_PARM's rate).
    public var rateFromInput: Bool
    /// The formats (fourccs) that reach `highestRate`, in the driver's order.
    public var formats: [String]
    /// When only compressed formats reach `highestRate`: the highest rate of a raw format…
    public var bestRawRate: Rational?
    /// …and the raw formats that reach it.
    public var bestRawFormats: [String]

    /// Summarizes `probe`, largest sizes first.
    public static func summarize(_ probe: CameraProbe) -> [SizeSummary] {
        struct Offer {
            var fourcc: String
            var compressed: Bool
            var rate: Rational?
            var fromInput: Bool
        }
        var order: [String] = []
        var offers: [String: (area: Int, offers: [Offer])] = [:]
        for format in probe.formats {
            for size in format.frameSizes {
                let key =
                    size.type == .discrete
                    ? size.min.description
                    : "\(size.min) - \(size.max)" + (size.type == .stepwise ? ", step \(size.step)" : "")
                let highest = size.intervals.highestRate
                let offer = Offer(
                    fourcc: format.fourcc, compressed: format.compressed,
                    rate: highest ?? probe.current?.frameRate, fromInput: size.intervals.type == .none)
                if offers[key] == nil {
                    order.append(key)
                    offers[key] = (size.max.area, [])
                }
                // A format listed for both buffer types counts once.
                if !(offers[key]!.offers.contains { $0.fourcc == offer.fourcc }) { offers[key]!.offers.append(offer) }
            }
        }
        return order.map { key -> SizeSummary in
            let (area, list) = offers[key]!
            let best = list.compactMap(\.rate).max()
            let reaching = list.filter { $0.rate == best }
            var summary = SizeSummary(
                size: key, area: area, highestRate: best, rateFromInput: reaching.allSatisfy(\.fromInput),
                formats: reaching.map(\.fourcc), bestRawRate: nil, bestRawFormats: [])
            if !reaching.isEmpty && reaching.allSatisfy(\.compressed) {
                let raw = list.filter { !$0.compressed }
                if let rawBest = raw.compactMap(\.rate).max() {
                    summary.bestRawRate = rawBest
                    summary.bestRawFormats = raw.filter { $0.rate == rawBest }.map(\.fourcc)
                }
            }
            return summary
        }
        .enumerated().sorted { a, b in
            a.element.area != b.element.area ? a.element.area > b.element.area : a.offset < b.offset
        }
        .map(\.element)
    }

    /// One line for people: "1920x1080: 30 fps needs MJPG; YUYV reaches 5 fps".
    public var text: String {
        guard let rate = highestRate else { return "\(size): frame rate unknown (\(Self.list(formats)))" }
        let fps = "\(rate.decimalDescription) fps" + (rateFromInput ? " (set by the input signal)" : "")
        if let rawRate = bestRawRate {
            return "\(size): \(fps) needs \(Self.list(formats)); \(Self.list(bestRawFormats)) reaches "
                + "\(rawRate.decimalDescription) fps"
        }
        return "\(size): \(fps) (\(Self.list(formats)))"
    }

    /// "YUYV, UYVY, YVYU and 20 more".
    static func list(_ fourccs: [String], limit: Int = 4) -> String {
        let shown = fourccs.prefix(limit).map { $0.trimmingTrailingSpaces }.joined(separator: ", ")
        return fourccs.count > limit ? "\(shown) and \(fourccs.count - limit) more" : shown
    }
}

extension String {
    /// "Y10 " -> "Y10": fourccs pad with spaces, which read badly in prose.
    var trimmingTrailingSpaces: String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
