/// Chooses the x264 preset a live camera's recording can sustain on this machine, from measured
/// encoding speeds: the slowest (best-compressing) of the default and the faster ones that keeps
/// `EncoderBudget.margin` times real time. A preset asked for is kept and only measured.
///
/// Pure apart from `measure`, which the caller gives (`EncoderSpeed` in a recording), so the
/// choice and its messages are tested with chosen speeds.
enum PresetBudget {
    /// The presets tried when none is asked, slowest first: the default and the faster ones.
    static let candidates = ["veryfast", "superfast", "ultrafast"]
    /// How much faster than the preset before a middle preset is taken to be at most.
    static let middleReach = 1.5

    /// A frame size and rate the camera offers, and the recording's own.
    struct Mode: Hashable, Sendable {
        var width: Int
        var height: Int
        /// Frames per second.
        var rate: Rational

        /// Pixels per second to encode.
        var load: Double { Double(width * height) * rate.doubleValue }
        var description: String { "\(width)x\(height) at \(rate.decimalDescription) fps" }
    }

    /// Measures presets for `mode` and settles the one to record with.
    ///
    /// - Parameters:
    ///   - asked: the preset asked for; nil lets the budget choose among `candidates`.
    ///   - offered: the camera's own modes, to name one that would keep up when none does.
    ///   - sharing: how many cameras encode with x264 at once: each is measured alone, so each
    ///     must keep its share of the cores, the margin times this many.
    ///   - measure: frames per second the encoder sustains with a preset, at `mode`'s size.
    /// - Throws: what `measure` throws.
    static func settle(
        _ mode: Mode, asked: String?, offered: [Mode], sharing: Int = 1,
        measure: (String) throws(CaptureError) -> Double
    ) throws(CaptureError) -> EncoderBudget {
        let rate = max(mode.rate.doubleValue, 1e-3)
        let required = EncoderBudget.margin * Double(max(1, sharing))
        var measured: [EncoderBudget.Measurement] = []
        var speed = 0.0
        let presets = asked.map { [$0] } ?? candidates
        for (index, preset) in presets.enumerated() {
            // A middle preset that would have to be more than half as fast again as the one
            // before is not timed (superfast rarely is; 4K on a small board spent seconds on it).
            if index > 0 && index < presets.count - 1 && speed * Self.middleReach < required { continue }
            speed = try measure(preset) / rate
            measured.append(.init(preset: preset, speed: speed))
            if speed >= required { break }
        }
        let keepsUp = speed >= required
        var budget = EncoderBudget(
            mode: mode.description, preset: measured.last?.preset ?? candidates[0], chosen: asked == nil,
            measured: measured, keepsUp: keepsUp,
            suggestedMode: keepsUp
                ? nil : largest(of: offered, keepingUpAt: speed, measuredAt: mode, required: required)?.description)
        budget.sharing = max(1, sharing)
        return budget
    }

    /// The largest of `offered` (by pixels, then rate) that would keep up, at `speed` measured at
    /// `mode`, scaled by pixels per second: x264's work grows with the pixels it encodes.
    static func largest(
        of offered: [Mode], keepingUpAt speed: Double, measuredAt mode: Mode, required: Double = EncoderBudget.margin
    ) -> Mode? {
        offered.filter { $0.load > 0 && speed * mode.load / $0.load >= required }
            .max { ($0.width * $0.height, $0.rate) < ($1.width * $1.height, $1.rate) }
    }

    /// The camera's modes to suggest from: each frame size its usable formats list (the largest of
    /// a range) at each rate listed there (the highest of a range).
    static func modes(of probe: CameraProbe) -> [Mode] {
        var modes: Set<Mode> = []
        for format in ModeSelector.usableFormats(probe) {
            for size in format.frameSizes {
                let rates =
                    size.intervals.type == .discrete
                    ? size.intervals.discreteRates : [size.intervals.highestRate].compactMap { $0 }
                for rate in rates { modes.insert(Mode(width: size.max.width, height: size.max.height, rate: rate)) }
            }
        }
        return Array(modes)
    }
}
