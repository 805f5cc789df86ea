/// Something that happened to one file of a segmented recording, as it happened: opened, closed
/// (finished: trailer written, in place) or deleted by the retention policy. `capture record
/// --json` prints each as one JSON object on a line of its own (snake_case keys) before the
/// summary.
public struct SegmentEvent: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case opened = "segment_opened"
        case closed = "segment_closed"
        case deleted = "segment_deleted"
    }

    public var event: Kind
    public var path: String
    /// The segment's number in this run, from 1; nil for a file of an earlier run deleted.
    public var number: Int?
    /// Where the segment starts on the recording's clock, seconds (opened, closed).
    public var start: Double?
    /// Seconds the segment holds: from its start to the end of its last frame or sample (closed).
    public var duration: Double?
    /// Video frames and audio samples (per channel) in it (closed).
    public var frames: Int?
    public var samples: Int64?
    /// Bytes on disk (closed, deleted).
    public var size: Int64?
    /// Why a closed segment is not as it should be (its trailer or rewrite failed); nil when fine.
    public var problem: String?
}
