/// Everything `capture record` was asked to do, as plain values.
///
/// Devices are names as the user typed them; the recorder resolves them. Nil means "choose":
/// the container's default codec, the device's native size, rate and format.
public struct RecordingRequest: Sendable {
    /// The camera or video source; nil for audio only.
    public var video: DeviceName?
    /// The microphone or audio source; nil for video only.
    public var audio: DeviceName?
    /// The cameras after the first (`video`, whose options are `videoSize`, `frameRate` and
    /// `inputFormat`), in the order given: every camera becomes a video track of the recording.
    public var moreCameras: [CameraRequest] = []
    /// The microphones after the first (`audio`, whose options are `sampleRate` and `channels`),
    /// in the order given: every microphone becomes an audio track.
    public var moreMicrophones: [MicrophoneRequest] = []
    /// The output file; its extension chooses the container.
    public var output: String
    /// Requested frame size; nil: the device's choice.
    public var videoSize: FrameDimensions?
    /// Requested frames per second; nil: the device's choice.
    public var frameRate: Rational?
    /// The camera's input format, as FFmpeg names it (`yuyv422`, `mjpeg`); nil: chosen.
    public var inputFormat: String?
    /// The recorded pixel format (FFmpeg name); nil: yuv420p for H.264, the device's for raw.
    public var pixelFormat: String?
    public var videoCodec: VideoCodec?
    /// x264 constant rate factor, 0-51 (lower is better); used unless `bitRate` is set.
    public var crf: Int?
    /// x264 preset, `ultrafast` ... `placebo`.
    public var preset: String?
    /// Video bit rate in bits per second; replaces crf.
    public var bitRate: Int?
    /// Which H.264 encoder: x264, a hardware one, or `auto`, the first hardware one whose device
    /// this machine has that opens, else x264.
    public var encoder: VideoEncoderChoice = .auto
    /// Recorded audio sample rate in Hz; nil: the device's.
    public var sampleRate: Int?
    /// Recorded channel count; nil: the device's.
    public var channels: Int?
    public var audioCodec: AudioCodec?
    /// The sample format of PCM or FLAC audio; nil: the microphone's (FLAC: at most 24 bits).
    public var sampleFormat: SampleFormat?
    /// Stop after this many seconds of recording.
    public var duration: Double?
    /// Stop after exactly this many video frames.
    public var frames: Int?
    /// Overwrite an existing output.
    public var force: Bool
    /// Seconds without data from a live device before it counts as stalled.
    public var stallTimeout: Double
    /// MMAP buffers to ask of a camera read by capture's own V4L2 reader (a multiplanar-only
    /// one), 2 to 32; nil: enough for half a second at the mode's rate. The driver may give
    /// another count.
    public var buffers: Int? = nil
    /// Which reader records the cameras; nil: capture's own for multiplanar-only cameras and
    /// HDMI grabbers, FFmpeg's v4l2 input for the others.
    public var v4l2Reader: V4L2Reader? = nil
    /// Camera controls to set before streaming, one by one, on top of the profile.
    public var controls: [ControlSetting] = []
    /// A profile `capture controls` saved, to apply before streaming.
    public var controlsProfile: String?
    /// Put the controls back as they were when the recording ends.
    public var restoreControls = false

    /// More outputs fed by the same capture and encode: a file or a stream URL each.
    public var also: [String] = []
    /// Which camera the network streams carry: its index among the cameras in the order given,
    /// from 0; nil: the first. A server takes one video and one audio stream.
    public var streamCamera: Int?
    /// Which microphone the network streams carry, as `streamCamera`; nil: the first.
    public var streamMicrophone: Int?
    /// The muxer for `output` where its name does not say: `mpegts`, `flv`, `nut` ...
    public var format: String?
    /// Seconds to connect to a streaming server at the start.
    public var connectTimeout: Double = 5
    /// Seconds a stream whose connection broke keeps trying to reconnect.
    public var reconnectTimeout: Double = 60
    /// Keep the file when a camera or microphone is lost (or stalls), wait for the same device to
    /// come back and continue on the session clock; the gap is missing frames and silence.
    public var reconnect = false
    /// Seconds a lost device is waited for with `reconnect`; nil: forever. Apart from
    /// `reconnectTimeout`, whose default is meant for streams.
    public var deviceReconnectTimeout: Double?
    /// H.264 VBV maximum rate in bits per second, so a stream stays near what the
    /// link carries.
    public var maxRate: Int?
    /// H.264 VBV buffer size in bits; nil with `maxRate`: one second of it.
    public var bufferSize: Int?
    /// Cut the file into segments of this many seconds; `output` is then a template
    /// (`OutputTemplate`). Nil: one file, unless `segmentSize` is set.
    public var segmentTime: Double?
    /// Cut the file into segments at the first keyframe once one holds this many bytes.
    public var segmentSize: Int64?
    /// Which finished segments to keep (`--keep`, `--max-total-size`); needs segments.
    public var retention = RetentionPolicy()
    /// Fill a template's time fields in UTC rather than local time.
    public var utc = false
    /// Seconds between each microphone's `audio_level` events; nil: none.
    public var levelInterval: Double?
    /// A preview server while recording (`PreviewServer`): the first camera's live picture and
    /// the progress numbers over HTTP; nil: none.
    public var preview: PreviewSettings?
    /// Event clips: seconds of packets kept in memory before a trigger; nil: no clips, the
    /// recording goes to `output` as one file (or segments). With it, `output` is the clips'
    /// template (`ClipPlan`), and the session takes SIGUSR1 as a trigger for the rest of the
    /// process.
    public var preRoll: Double?
    /// Seconds a clip runs on after the last trigger; nil: a trigger toggles a clip on and off.
    public var postRoll: Double?
    /// The most bytes the pre-roll keeps; nil: `ClipPlan.defaultPreRollBytes`.
    public var preRollBytes: Int64?
    /// The longest a clip may last, seconds; nil: no limit.
    public var maxClip: Double?
    /// What triggers a clip beside SIGUSR1.
    public var clipTriggers: [ClipTrigger] = []
    /// Seconds a level trigger's level must hold; nil: 0.2.
    public var triggerHold: Double?

    /// What triggers a clip, beside SIGUSR1 which always does.
    public enum ClipTrigger: Hashable, Sendable {
        /// A line `clip` on standard input.
        case standardInput
        /// A microphone's peak at or above this many dBFS.
        case level(Double)
    }

    public init(
        video: DeviceName? = nil, audio: DeviceName? = nil, output: String, videoSize: FrameDimensions? = nil,
        frameRate: Rational? = nil, inputFormat: String? = nil, pixelFormat: String? = nil,
        videoCodec: VideoCodec? = nil, crf: Int? = nil, preset: String? = nil, bitRate: Int? = nil,
        sampleRate: Int? = nil, channels: Int? = nil, audioCodec: AudioCodec? = nil,
        sampleFormat: SampleFormat? = nil, duration: Double? = nil, frames: Int? = nil, force: Bool = false,
        stallTimeout: Double = 5
    ) {
        self.video = video
        self.audio = audio
        self.output = output
        self.videoSize = videoSize
        self.frameRate = frameRate
        self.inputFormat = inputFormat
        self.pixelFormat = pixelFormat
        self.videoCodec = videoCodec
        self.crf = crf
        self.preset = preset
        self.bitRate = bitRate
        self.sampleRate = sampleRate
        self.channels = channels
        self.audioCodec = audioCodec
        self.sampleFormat = sampleFormat
        self.duration = duration
        self.frames = frames
        self.force = force
        self.stallTimeout = stallTimeout
    }

    /// Every camera with its own options, the first (`video`) first; empty for audio only.
    public var cameras: [CameraRequest] {
        guard let video else { return [] }
        return [CameraRequest(video, videoSize: videoSize, frameRate: frameRate, inputFormat: inputFormat)]
            + moreCameras
    }

    /// Every microphone with its own options, the first (`audio`) first; empty for video only.
    public var microphones: [MicrophoneRequest] {
        guard let audio else { return [] }
        return [MicrophoneRequest(audio, sampleRate: sampleRate, channels: channels)] + moreMicrophones
    }

    /// The presets libx264 knows, fastest first.
    public static let x264Presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]
}

/// One camera of a recording and what is asked of its mode; nil: the device's choice.
public struct CameraRequest: Sendable, Equatable {
    public var device: DeviceName
    public var videoSize: FrameDimensions?
    /// Frames per second.
    public var frameRate: Rational?
    /// The camera's input format, as FFmpeg names it (`yuyv422`, `mjpeg`).
    public var inputFormat: String?

    public init(
        _ device: DeviceName, videoSize: FrameDimensions? = nil, frameRate: Rational? = nil, inputFormat: String? = nil
    ) {
        self.device = device
        self.videoSize = videoSize
        self.frameRate = frameRate
        self.inputFormat = inputFormat
    }
}

/// One microphone of a recording and what is recorded of it; nil: the device's.
public struct MicrophoneRequest: Sendable, Equatable {
    public var device: DeviceName
    /// Hz.
    public var sampleRate: Int?
    public var channels: Int?

    public init(_ device: DeviceName, sampleRate: Int? = nil, channels: Int? = nil) {
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
