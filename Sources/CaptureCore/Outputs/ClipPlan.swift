/// Event clips with pre-roll instead of one file: nothing goes to disk until a trigger, the last
/// `preRoll` seconds of encoded packets are kept in memory, and a trigger opens a clip that starts
/// with the oldest keyframe they hold and runs on to `postRoll` seconds after the last trigger.
public struct ClipPlan: Sendable {
    /// How the clips are named: strftime fields (filled in when a clip opens) and `%n`, its number.
    public var template: OutputTemplate
    /// Seconds of packets kept before a trigger.
    public var preRoll: Double
    /// Seconds a clip runs on after the last trigger; nil: a trigger toggles, a clip runs from one
    /// trigger to the next.
    public var postRoll: Double?
    /// The most bytes of packets the pre-roll keeps; past it, the oldest go (said once).
    public var preRollBytes: Int64
    /// The longest a clip may last, seconds from its first packet; nil: no limit.
    public var maxClip: Double?
    /// Which finished clips to delete as they accumulate (`--keep`, `--max-total-size`).
    public var retention: RetentionPolicy
    /// True when a line `clip` on standard input is a trigger.
    public var fromStandardInput: Bool
    /// A trigger from the microphones' level; nil: none.
    public var level: LevelTrigger?

    /// A microphone's peak at or above `threshold` dBFS for at least `hold` seconds.
    public struct LevelTrigger: Sendable, Hashable {
        public var threshold: Double
        public var hold: Double
    }

    /// The pre-roll's byte limit unless one is given: a minute of 1080p H.264 at 20 Mbit/s fits,
    /// raw video soon does not, and the warning says so.
    public static let defaultPreRollBytes: Int64 = 256 << 20

    /// The clips as a series, for `SegmentSweeper` and `SeriesFile`: named by the template, kept
    /// by the retention policy.
    var series: SegmentPlan { SegmentPlan(template: template, seconds: nil, bytes: nil, retention: retention) }
}
