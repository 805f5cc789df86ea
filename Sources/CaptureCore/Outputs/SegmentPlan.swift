/// A series of files instead of one: each complete on its own, cut at a keyframe once it is
/// `seconds` long or holds `bytes`.
public struct SegmentPlan: Sendable {
    /// How the files are named (the recording's `output` is its pattern).
    public var template: OutputTemplate
    /// Seconds of recording a file holds before the next is cut; nil: no time limit.
    public var seconds: Double?
    /// Bytes a file reaches before the next is cut; nil: no size limit.
    public var bytes: Int64?
    /// Which finished files to delete as the series grows.
    public var retention: RetentionPolicy
}
