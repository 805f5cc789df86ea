/// The codecs and sample formats a recording can be asked for: plain values shared by the
/// request, the planner, the container rules and the summary.

/// How video is written (`capture record --codec`).
public enum VideoCodec: String, Sendable, CaseIterable, Codable {
    /// H.264 through libx264.
    case h264
    /// The frames as the device delivers them, uncompressed.
    case raw
    /// The device's compressed packets (MJPEG, H.264) as they are.
    case copy
}

/// How audio is written (`capture record --audio-codec`).
public enum AudioCodec: String, Sendable, CaseIterable, Codable {
    case aac, opus, pcm, flac
}

/// The sample format PCM and FLAC audio is written in (`--sample-format`).
public enum SampleFormat: String, Sendable, CaseIterable, Codable {
    /// 16-bit integer.
    case s16
    /// 24-bit integer (3 bytes a sample in PCM, `pcm_s24le`).
    case s24
    /// 32-bit integer.
    case s32
    /// 32-bit float.
    case flt
}
