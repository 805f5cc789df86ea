/// What x264 was measured to sustain on this machine for a camera's mode, before its recording
/// started, and the preset that ran: the JSON summary's `encoder_budget` of a camera encoded to
/// H.264 in real time.
///
/// Speeds are multiples of real time: 2.0 encodes two seconds of the camera's frames in one
/// second of wall time on the cores there are.
public struct EncoderBudget: Codable, Hashable, Sendable {
    public struct Measurement: Codable, Hashable, Sendable {
        /// The x264 preset, e.g. `veryfast`.
        public var preset: String
        /// Multiples of real time, rounded to 0.01.
        public var speed: Double

        public init(preset: String, speed: Double) {
            self.preset = preset
            self.speed = (speed * 100).rounded() / 100
        }
    }

    /// The frame size and rate measured, e.g. `1920x1080 at 30 fps`.
    public var mode: String
    /// The preset that ran.
    public var preset: String
    /// True when the budget chose the preset; false when it was asked for (`--preset`) and kept.
    public var chosen: Bool
    /// Each preset measured, in the order tried (slowest first).
    public var measured: [Measurement]
    /// True when the preset that ran keeps at least `margin` times real time, times `sharing`.
    public var keepsUp: Bool
    /// How many cameras encode with x264 at once in this recording: each is measured alone and
    /// must keep its share of the cores.
    public var sharing = 1
    /// When no preset keeps up: the largest of the camera's own modes that would, from the
    /// fastest preset's speed scaled by pixels per second (e.g. `1280x720 at 30 fps`); nil when
    /// every mode keeps up or the source has no mode list (test sources, lavfi graphs).
    public var suggestedMode: String?

    /// The speed a preset must keep to be chosen: a fifth to spare for decoding, converting and
    /// the audio, which share the cores.
    public static let margin = 1.2

    public init(
        mode: String, preset: String, chosen: Bool, measured: [Measurement], keepsUp: Bool,
        suggestedMode: String? = nil
    ) {
        self.mode = mode
        self.preset = preset
        self.chosen = chosen
        self.measured = measured
        self.keepsUp = keepsUp
        self.suggestedMode = suggestedMode
    }

    /// The speed measured for the preset that ran.
    public var speed: Double? { measured.last { $0.preset == preset }?.speed }

    /// One line for the user: "1920x1080 at 30 fps: veryfast keeps 0.80x here, using ultrafast
    /// (1.90x)"; when nothing keeps up, what to do instead.
    public var line: String {
        let measures = measured.map { "\($0.preset) keeps \(Self.times($0.speed))" }.joined(separator: ", ")
        var text = "\(mode): \(measures) here"
        if sharing > 1 {
            text += " (\(sharing) cameras share the cores: each needs \(Self.times(Self.margin * Double(sharing))))"
        }
        if chosen && measured.first?.preset != preset { text += ", using \(preset)" }
        if !keepsUp {
            // Under real time frames are lost for sure; above it, the margin for decoding and the
            // audio is missing and they may be.
            text += (speed ?? 0) * Double(sharing) < 1 ? "; frames will be dropped" : "; frames may be dropped"
            if let suggestedMode { text += ": \(suggestedMode) would keep up" }
        }
        return text
    }

    /// Whether the line is worth telling before the recording: when the preset was changed or
    /// does not keep up. A default that keeps up goes to the summary only.
    public var isNews: Bool { !keepsUp || (chosen && measured.first?.preset != preset) }

    public static func times(_ speed: Double) -> String { String(cFormat: "%.2fx", speed) }
}
