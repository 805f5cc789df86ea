/// What a finished recording wrote and what happened on the way: the JSON summary of
/// `capture record` (snake_case keys).
public struct RecordingSummary: Codable, Hashable, Sendable {
    /// Frames that never reached the file, by cause.
    public struct Drops: Codable, Hashable, Sendable {
        /// Discarded because the encoder fell behind, or duplicates: a second frame in one slot,
        /// or one stamped with the same time as the frame before it.
        public var late: Int
        /// Empty or damaged buffers from the device.
        public var corrupt: Int
        /// Missing from the device's timestamps: gaps over 1.5 frame intervals (of the camera's own
        /// cadence when it runs steadily below the nominal rate). When `device` counts the losses
        /// instead: only the frames missed while the camera was lost and opened again, which no
        /// sequence number spans.
        public var gaps: Int
        /// Lost by the device or its driver, counted exactly from the sequence numbers of its
        /// buffers (a camera read by capture's own V4L2 reader whose driver numbers them; a
        /// wrapping counter is no loss); nil for the others, whose losses are `gaps`.
        public var device: Int? = nil
        public var total: Int { late + corrupt + gaps + (device ?? 0) }
    }

    public struct Video: Codable, Hashable, Sendable {
        /// The device argument, e.g. `/dev/video0` or `test`.
        public var device: String
        /// What the device delivered: codec and pixel format, e.g. `rawvideo yuyv422`.
        public var input: String
        /// The encoder (`libx264`, `rawvideo`) or `copy`.
        public var codec: String
        public var width: Int
        public var height: Int
        public var pixelFormat: String
        /// Frames per second asked for as the frame rate, if any.
        public var frameRateRequested: Rational?
        /// Frames per second the stream is written at.
        public var frameRate: Rational
        /// Frames per second measured from the device's timestamps.
        public var frameRateMeasured: Double?
        /// Frames per second the camera delivered when it ran steadily below `frameRate` (a webcam
        /// lowering its rate in dim light); nil when it kept its rate. Its missing places on the
        /// nominal grid are not drops.
        public var frameRateDelivered: Double?
        public var framesWritten: Int
        public var framesDropped: Drops
        /// Frames of an inter-frame stream (a camera's own H.264) before its first keyframe, which
        /// nothing can decode: not part of the recording, not drops.
        public var framesSkippedAtStart: Int
        /// Frames written twice or more to fill the slots the camera left empty, in a container
        /// without timestamps (`.y4m`, `.h264` encoded), whose players take every frame as one slot:
        /// without them its pictures would play faster than they were captured. Nil for the others.
        public var framesDuplicated: Int?
        /// The first frame's time from the start of the recording, seconds.
        public var start: Double
        /// With reconnecting (`RecordingRequest.reconnect`): how often the camera was lost and came
        /// back, and the seconds it was away in all; nil without.
        public var reconnects: Int? = nil
        public var secondsDisconnected: Double? = nil
        /// With several cameras: how much faster (positive) or slower than its nominal rate the
        /// camera ran, in parts per million, from its frames' capture times on the session clock.
        public var drift: Double? = nil
        /// With several cameras at one rate: where this camera's frames fall against the first
        /// camera's, in milliseconds within half a frame interval (positive: taken later). Cameras
        /// free-run, so this is how far apart their pictures of one moment are.
        public var framePhase: Double? = nil
        /// For a live camera encoded by x264: the speeds measured before the recording and the
        /// preset that ran (`EncoderBudget`).
        public var encoderBudget: EncoderBudget? = nil
    }

    public struct Audio: Codable, Hashable, Sendable {
        public var device: String
        /// What the device delivered, e.g. `pcm_s16le s16 48000 Hz 2 channels`.
        public var input: String
        /// The encoder: `aac`, `libopus`, `pcm_s16le`, `flac`.
        public var codec: String
        public var sampleRate: Int
        public var channels: Int
        /// The sample format written: `s16`, `s24`, `s32` or `flt` for PCM and FLAC (as
        /// `SampleFormat` names them), the encoder's (`fltp`) for AAC and Opus.
        public var sampleFormat: String
        /// The channel layout written, as FFmpeg names it: `mono`, `stereo`, `4.0`, `5.1`,
        /// `10 channels` (unspecified order).
        public var channelLayout: String?
        /// Samples per channel written.
        public var samples: Int64
        /// Gaps in the device's audio (overruns) filled with silence.
        public var overruns: Int
        /// The first sample's time from the start of the recording, seconds.
        public var start: Double
        /// With reconnecting (`RecordingRequest.reconnect`): how often the microphone was lost and
        /// came back, and the seconds it was away in all (silence in the file); nil without.
        public var reconnects: Int? = nil
        public var secondsDisconnected: Double? = nil
        /// The device's levels over the recording, from its own samples; nil when none came.
        public var levels: LevelSummary? = nil
    }

    /// The output file as given; for a recording with no file, the first stream's URL with its
    /// secrets replaced by `***`.
    public var output: String
    /// The muxer: `mp4`, `matroska`, ...
    public var container: String
    /// The camera's; with several, the first's (`cameras` has them all).
    public var video: Video?
    /// The microphone's; with several, the first's (`microphones` has them all).
    public var audio: Audio?
    /// With several cameras, each one's in the order given (tracks in that order in the file);
    /// nil with one.
    public var cameras: [Video]? = nil
    /// With several microphones, each one's in the order given; nil with one.
    public var microphones: [Audio]? = nil
    /// Why a finished MP4, MOV or M4A stays fragmented (its rewrite with the index in front
    /// failed); nil when it was rewritten or the container is another.
    public var finishProblem: String?
    /// The microphone's first sample minus the camera's first frame as the devices delivered
    /// them, in seconds, when both are recorded. The file starts where both have data, so its
    /// streams start within a frame of each other whatever this is.
    public var startOffset: Double?
    /// The duration of the finished file as it reads back, seconds.
    public var duration: Double
    /// Bytes on disk; for a recording with no file, bytes sent over the streams.
    public var fileSize: Int64
    /// Why the recording ended: `duration`, `frames`, `SIGINT`, `end of input`, `error`.
    public var stopReason: String
    /// The error that ended the recording, if one did; the file is finalized up to it.
    public var error: String?
    /// The camera controls set before streaming, and what the driver made of them.
    public var controls: ControlReport? = nil
    /// The network outputs (`rtmp://`, `srt://`), one entry each; nil when there are none.
    public var streams: [StreamReport]? = nil
    /// For a recording cut into segments: how many files it opened (`output` is the template,
    /// `file_size` the bytes of them all, deleted ones included).
    public var segments: Int? = nil
    /// With event clips: how many it opened (`output` is the template, `file_size` the bytes of
    /// them all, deleted ones included); nil otherwise.
    public var clips: Int? = nil
    /// With event clips: what the pre-roll held at the end; nil otherwise.
    public var preRoll: PreRollReport? = nil
    /// With a per-device file name (`cam%d.mp4`): each device's file, or its series' template,
    /// cameras first (`output` is the name as given, `file_size` the bytes of them all,
    /// `duration` the longest); nil otherwise.
    public var files: [File]? = nil

    /// One device's file.
    public struct File: Codable, Hashable, Sendable {
        public var path: String
        /// Bytes on disk.
        public var fileSize: Int64
        /// Seconds it lasts as it reads back (for a series, as encoded).
        public var duration: Double
        /// How many files its series opened; nil without segments.
        public var segments: Int?
    }
}

/// A snapshot for the progress line, taken at most four times a second.
public struct RecordingProgress: Sendable {
    /// Seconds recorded so far.
    public var elapsed: Double
    public var frames: Int
    /// Frames per second over the last moments.
    public var fps: Double
    public var dropped: Int
    /// Bytes written so far.
    public var bytes: Int64
    /// Bits per second, averaged over the recording.
    public var bitRate: Double
    /// Each microphone's level over its latest tenth of a second, in the order given; nil for
    /// one that has delivered less than that so far.
    public var levels: [AudioLevel?] = []
}

/// A finished recording: its summary, and the error that ended it early if any (exit 74 with
/// the file kept and finalized).
public struct RecordingResult: Sendable {
    public var summary: RecordingSummary
    public var failure: CaptureError?
}
