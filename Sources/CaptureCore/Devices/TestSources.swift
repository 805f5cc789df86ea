/// The built-in test sources: a test pattern for video and a test tone for audio, produced by
/// FFmpeg's lavfi and paced in real time like a real device.
public enum TestSources {
    /// The lavfi graph behind the `test` video source: SMPTE-style bars with a moving element, 30 fps.
    public static let videoGraph = "testsrc2=size=640x480:rate=30"
    /// The lavfi graph behind the `test` audio source: a 1 kHz tone at 48 kHz.
    public static let audioGraph = "sine=frequency=1000:sample_rate=48000"

    public static let video = Device(
        name: "test", kind: .video, api: .test, role: "camera",
        description: "Test pattern (lavfi \(videoGraph))", isVirtual: true)

    public static let audio = Device(
        name: "test", kind: .audio, api: .test, role: "microphone",
        description: "Test tone (lavfi \(audioGraph))", isVirtual: true)
}
