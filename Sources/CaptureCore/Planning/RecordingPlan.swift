/// Everything a recording will do, decided before any device opens or any file is touched: the
/// devices and how each is opened, the codecs and formats, the encoder settings, the container
/// and its muxer options, the limits. Made by `RecordingPlanner`, carried out by `RecordingSession`;
/// every field is a constant, so a plan stays what the planner checked.
public struct RecordingPlan: Sendable {
    /// The output file; for a recording with no file, the first output as given.
    public let output: String
    /// The file and the network streams, fed by one capture and one encode.
    public let outputs: OutputPlan
    /// The container whose codecs the recording writes: the file's, or the first stream's.
    public let container: ContainerFormat
    /// Replace an existing output.
    public let force: Bool
    /// Muxer options that keep the file readable if the process dies, and WAV past 4 GiB
    /// (`muxerOptions(for:)`).
    public let muxerOptions: [String: String]
    /// The cameras, in the order asked; each becomes a video track.
    public let videos: [Video]
    /// The microphones, in the order asked; each becomes an audio track.
    public let audios: [Audio]
    /// The first camera: the one whose controls are set, and the one a single-camera recording has.
    public var video: Video? { videos.first }
    /// The first microphone.
    public var audio: Audio? { audios.first }
    /// Seconds of recording, on the session clock; nil: until stopped.
    public let duration: Double?
    /// Video frames to record; nil: until stopped.
    public let frameLimit: Int?
    /// Seconds without data from a live device before it counts as stalled.
    public let stallTimeout: Double
    /// Seconds to connect to a streaming server at the start, and to keep reconnecting after a
    /// connection broke.
    public let connectTimeout: Double
    public let reconnectTimeout: Double
    /// How a lost device is waited for; nil: a lost device ends the recording.
    public let deviceReconnect: DeviceReconnect?

    /// Waiting for a lost camera or microphone to come back (`RecordingRequest.reconnect`).
    public struct DeviceReconnect: Sendable {
        /// Seconds to wait; nil: forever.
        public let timeout: Double?
    }
    /// Camera controls to set before the camera streams; nil when none are asked.
    public let controls: Controls?
    /// How the file is cut into a series of files; nil: one file.
    public let segments: SegmentPlan?
    /// The segments and window of an HLS playlist (`.m3u8`); nil for any other output.
    public let playlist: PlaylistPlan?
    /// Which camera and which microphone the network streams carry: indices among `videos` and
    /// `audios`.
    public let streamCamera: Int
    public let streamMicrophone: Int
    /// With a per-device file name (`cam%d.mp4`, see `DeviceFiles`): each device's file, or its
    /// series' template with segments, cameras first; empty when one output takes every device.
    public let deviceFiles: [String]
    /// Seconds between each microphone's `audio_level` events; nil: none.
    public internal(set) var levelInterval: Double? = nil
    /// Event clips with pre-roll instead of one file; nil: none.
    public internal(set) var clips: ClipPlan? = nil
    /// The preview server, as the request gave it; nil: none.
    public internal(set) var preview: PreviewSettings? = nil

    /// The camera or video source and what becomes of its frames.
    public struct Video: Sendable {
        public let device: Device
        /// How the device is opened: the chosen mode for a camera.
        var source: InputSource
        /// The chosen camera mode (V4L2); nil for the test pattern and lavfi graphs.
        public var mode: VideoMode? { source.mode }
        /// What is written: `.copy` also when H.264 encoding meets a camera sending H.264 of its
        /// own and nothing asks for re-encoding (`copiesCameraStream`).
        public let codec: VideoCodec
        /// The codec asked for (or the container's default), as the summary names the encoder.
        public let requestedCodec: VideoCodec
        /// The frame rate asked for, in frames per second; nil: the device's choice.
        public let requestedFrameRate: Rational?
        /// The pixel format asked for; nil: yuv420p for H.264, the input's for raw.
        public let pixelFormat: String?
        /// Bits per second for H.264; nil: constant quality (`x264Options` has crf).
        public let bitRate: Int?
        /// libx264's private options: preset, crf, thread layout.
        public let x264Options: [String: String]
        /// The x264 preset asked for; nil: the encoder budget chooses one for a live camera
        /// (`PresetBudget`), else `x264Options` has the default.
        public let presetAsked: String?
        /// The camera's own modes, for the encoder budget to name one that would keep up.
        let offeredModes: [PresetBudget.Mode]
        /// For H.264 encoding: the encoders to open, the first that opens recording; empty for
        /// raw and copy.
        let encoders: [EncoderCandidate]
    }

    /// The microphone or audio source and how it is encoded.
    public struct Audio: Sendable {
        public let device: Device
        let source: InputSource
        public let codec: AudioCodec
        /// The sample rate (Hz) and channel count asked for; nil: the device's.
        public let sampleRate: Int?
        public let channels: Int?
        /// The sample format asked for PCM or FLAC.
        public let sampleFormat: SampleFormat?
        /// The encoder, when the device reported its format (microphones); for the test tone and
        /// lavfi graphs it is planned once the input is open and says what it delivers.
        let encoder: AudioEncoderPlan?
    }

    /// What the request asks of the camera's controls: single settings, a profile, restoring them.
    public struct Controls: Sendable {
        public let settings: [ControlSetting]
        public let profile: String?
        public let restore: Bool
    }
}
