/// What `capture snapshot` took: one entry per picture written. Its JSON is what `capture snapshot` prints as JSON.
public struct SnapshotSummary: Codable, Sendable, Equatable {
    /// One picture written.
    public struct Still: Codable, Sendable, Equatable {
        /// The file written.
        public var path: String
        /// "jpeg", "png", "ppm" or "pgm".
        public var format: String
        public var width: Int
        public var height: Int
        /// The file's size in bytes.
        public var bytes: Int
        /// Which frame of the stream it is (0: the first delivered).
        public var frame: Int
        /// Seconds from the first frame to this one, on the source's timestamps.
        public var time: Double
        /// True when the camera's own JPEG was written as it came, without decoding and encoding
        /// again (only made whole: `mjpeg2jpeg`).
        public var copied: Bool
    }

    /// The device as resolved (`/dev/video0`, `test`).
    public var device: String
    /// What the source delivered, e.g. "mjpeg 1280x720" or "yuyv422 640x480".
    public var input: String
    public var stills: [Still]
    /// "SIGINT", "SIGTERM" or "SIGHUP" when a signal ended it before every still was taken; nil
    /// otherwise.
    public var stoppedBy: String?
    /// The error that ended the series after some pictures were written; nil otherwise.
    public var error: String?
}

/// What `Snapshooter.run` took, and the error that ended the series early if one came after the
/// first picture (the pictures written stay).
public struct SnapshotResult: Sendable {
    public var summary: SnapshotSummary
    public var failure: CaptureError?

    public init(summary: SnapshotSummary, failure: CaptureError? = nil) {
        self.summary = summary
        self.failure = failure
    }
}
