/// Something that happened during a recording, as it happened: a segment opened, closed
/// (finished: trailer written, in place) or deleted by the retention policy; a device lost and
/// back (`--reconnect`); a camera's source changed mode (segments go on at the new mode); a
/// microphone's level over the last interval; a clip's trigger, its file opened and closed
/// (finished), and deleted by the retention policy (as a segment). `capture record --json` prints each as one JSON object on a line of its
/// own (snake_case keys) before the summary.
public struct RecordingEvent: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case segmentOpened = "segment_opened"
        case segmentClosed = "segment_closed"
        case segmentDeleted = "segment_deleted"
        case deviceLost = "device_lost"
        case deviceBack = "device_back"
        case sourceChanged = "source_changed"
        case audioLevel = "audio_level"
        case trigger
        case clipOpened = "clip_opened"
        case clipClosed = "clip_closed"
    }

    public var event: Kind
    /// The segment's file (segment events).
    public var path: String?
    /// The segment's number in this run, from 1; nil for a file of an earlier run deleted.
    public var number: Int?
    /// Where the segment starts on the recording's clock, seconds (opened, closed); where the
    /// samples measured start (audio level).
    public var start: Double?
    /// Seconds the segment holds: from its start to the end of its last frame or sample (closed);
    /// seconds of samples measured (audio level).
    public var duration: Double?
    /// Video frames and audio samples (per channel) in it (closed).
    public var frames: Int?
    public var samples: Int64?
    /// Bytes on disk (closed, deleted).
    public var size: Int64?
    /// Why a closed segment is not as it should be (its trailer or rewrite failed); nil when fine.
    public var problem: String?
    /// The device (device events), as the request named it.
    public var device: String?
    /// Why the device was lost, in a few words (lost); from which mode to which its source
    /// changed (source changed); what triggered a clip (`SIGUSR1`, `stdin`,
    /// `level`: trigger, opened), or why it closed (`post-roll`, `trigger`, `max-clip`, `stop`,
    /// `write failed`: closed).
    public var reason: String?
    /// Seconds the device was away (back).
    public var secondsAway: Double?
    /// Frame slots the camera's absence left empty, counted as gaps (back, cameras).
    public var framesMissing: Int?
    /// The microphone's level over the interval, channel by channel (audio level).
    public var channels: [AudioLevel.Channel]?

    public init(
        event: Kind, path: String? = nil, number: Int? = nil, start: Double? = nil, duration: Double? = nil,
        frames: Int? = nil, samples: Int64? = nil, size: Int64? = nil, problem: String? = nil, device: String? = nil,
        reason: String? = nil, secondsAway: Double? = nil, framesMissing: Int? = nil,
        channels: [AudioLevel.Channel]? = nil
    ) {
        self.event = event
        self.path = path
        self.number = number
        self.start = start
        self.duration = duration
        self.frames = frames
        self.samples = samples
        self.size = size
        self.problem = problem
        self.device = device
        self.reason = reason
        self.secondsAway = secondsAway
        self.framesMissing = framesMissing
        self.channels = channels
    }
}
