/// Everything `capture snapshot` was asked to do, as plain values.
public struct SnapshotRequest: Sendable {
    /// The camera or video source, as the user named it.
    public var device: DeviceName
    /// The picture's path, or with `count` above 1 a template (`OutputTemplate`); its extension
    /// chooses the format (`StillFormat`).
    public var output: String
    /// Frame size to ask for; nil: the largest the camera offers (the test source: 640x480).
    public var videoSize: FrameDimensions?
    /// The camera's format (FFmpeg's name or a fourcc); nil: as mode selection chooses.
    public var inputFormat: String?
    /// Frames to drop before the first still; nil: go by `settle`.
    public var skip: Int?
    /// Seconds of frames to drop before the first still, counted from the first frame on the
    /// source's own timestamps; nil: `defaultSettle`.
    public var settle: Double?
    /// Stills to take.
    public var count = 1
    /// Seconds between stills, on the source's timestamps.
    public var interval = 1.0
    /// Replace files that exist.
    public var force = false
    /// Template times in UTC rather than local time.
    public var utc = false
    /// End with exit 74 when the device sends nothing for this many seconds.
    public var stallTimeout = 5.0

    /// The settle time when neither `skip` nor `settle` is given: enough for a camera's auto
    /// exposure and white balance to converge after the stream starts (a UVC camera takes about
    /// half a second to a second), and never less than half a second.
    public static let defaultSettle = 1.0

    public init(device: DeviceName, output: String) {
        self.device = device
        self.output = output
    }
}
