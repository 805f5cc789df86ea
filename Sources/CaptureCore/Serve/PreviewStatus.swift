/// The numbers `/status.json` serves: the progress line's, the levels, the devices, and the
/// preview's own. Encoded with snake_case keys.
struct PreviewStatus: Codable, Equatable, Sendable {
    /// `starting` until the first frame or sample, `recording`, `finished` once the summary's
    /// numbers are in.
    var state = "starting"
    /// The devices' names, cameras first, in the order given.
    var devices: [String] = []
    /// Seconds recorded.
    var elapsed = 0.0
    /// Video frames written, all cameras together.
    var frames = 0
    /// Frames per second over about the last second.
    var fps = 0.0
    /// Video frames dropped (late, corrupt, gaps), all cameras together.
    var dropped = 0
    /// Bytes written.
    var bytes: Int64 = 0
    /// Bits per second over the recording.
    var bitRate = 0.0
    /// Each microphone's level over its latest tenth of a second; null before it has one.
    var levels: [AudioLevel?] = []
    /// Viewers of `/stream` now.
    var viewers = 0
    /// Pictures made for the preview so far.
    var pictures = 0
    /// Counts the changes, so `/events` sends each once.
    var version = 0
}
