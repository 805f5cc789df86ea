/// Which reader records a V4L2 camera.
public enum V4L2Reader: String, Sendable, Hashable, CaseIterable, Codable {
    /// capture's own (`V4L2Stream`): multiplanar cameras, sequence numbers, source changes.
    case native
    /// FFmpeg's v4l2 input (libavdevice), single-planar cameras only.
    case ffmpeg
}
