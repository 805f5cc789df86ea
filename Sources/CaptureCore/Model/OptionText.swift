/// A setting of a request that an error can point at, named by whoever shows the error.
///
/// The library says what a setting is (`RequestOption.frameLimit`); a front end says how it is
/// spelled there (`capture` writes a flag for it). Messages hold these values, not flag names, so a
/// program using `CaptureCore` words its errors in its own terms.
public enum RequestOption: String, Sendable, Hashable, CaseIterable {
    case video, audio, output, videoSize, frameRate, inputFormat, pixelFormat, videoCodec, crf, preset, bitRate
    /// The H.264 encoder: x264 or a hardware one.
    case encoder
    case sampleRate, channels, audioCodec, sampleFormat, duration, frameLimit, force, stallTimeout
    /// The MMAP buffers asked of a camera read by capture's own V4L2 reader.
    case buffers
    /// Which V4L2 reader records the cameras (`V4L2Reader`).
    case v4l2Reader
    case control, controlsProfile, restoreControls
    /// Waiting for a device that is not there yet.
    case wait
    /// Waiting for a lost camera or microphone to come back.
    case reconnect
    /// Segments: their length, their size, how many are kept, and the budget for them all.
    case segmentTime, segmentSize, keep, maxTotalSize
    /// Time fields of a template in UTC.
    case utc
    /// Streaming: more outputs, the container, time limits of a connection, the rate cap.
    case also, format, connectTimeout, reconnectTimeout, maxRate, bufferSize
    /// Which camera and which microphone the network streams carry.
    case streamVideo, streamAudio
    /// Saving a camera's controls to a profile.
    case saveControls
    /// Loading a profile onto a camera.
    case loadControls
    /// Event clips: the seconds kept before a trigger, after the last one, the pre-roll's byte
    /// limit, the longest clip, what triggers one, and how long a level must hold.
    case preRoll, postRoll, preRollSize, maxClip, trigger, triggerHold
    /// Audio levels as JSON lines.
    case levelInterval
    /// The preview server: its address, its picture rate and size, its token.
    case serve, serveRate, serveSize, serveToken

    /// The words a message uses when nobody names the options: "the frame limit".
    public var plainName: String {
        switch self {
        case .video: "the video device"
        case .audio: "the audio device"
        case .output: "the output"
        case .videoSize: "the frame size"
        case .frameRate: "the frame rate"
        case .inputFormat: "the input format"
        case .pixelFormat: "the pixel format"
        case .videoCodec: "the video codec"
        case .crf: "the constant rate factor"
        case .preset: "the x264 preset"
        case .encoder: "the H.264 encoder"
        case .bitRate: "the bit rate"
        case .sampleRate: "the sample rate"
        case .channels: "the channel count"
        case .audioCodec: "the audio codec"
        case .sampleFormat: "the sample format"
        case .duration: "the duration"
        case .frameLimit: "the frame limit"
        case .force: "the option to overwrite"
        case .stallTimeout: "the stall timeout"
        case .buffers: "the buffer count"
        case .v4l2Reader: "the choice of V4L2 reader"
        case .control: "a control setting"
        case .controlsProfile: "a controls profile"
        case .restoreControls: "restoring the controls"
        case .saveControls: "saving the controls"
        case .loadControls: "loading the controls"
        case .wait: "waiting"
        case .segmentTime: "the segment length"
        case .segmentSize: "the segment size"
        case .keep: "the number of segments kept"
        case .maxTotalSize: "the size budget"
        case .utc: "UTC times in names"
        case .also: "another output"
        case .streamVideo: "the camera the streams carry"
        case .streamAudio: "the microphone the streams carry"
        case .format: "the container format"
        case .connectTimeout: "the connect timeout"
        case .reconnectTimeout: "the reconnect timeout"
        case .reconnect: "reconnecting"
        case .maxRate: "the maximum bit rate"
        case .bufferSize: "the rate control buffer"
        case .preRoll: "the pre-roll"
        case .postRoll: "the post-roll"
        case .preRollSize: "the pre-roll's size limit"
        case .maxClip: "the longest clip"
        case .trigger: "a clip trigger"
        case .triggerHold: "the level trigger's hold time"
        case .levelInterval: "the level interval"
        case .serve: "the preview server's address"
        case .serveRate: "the preview's picture rate"
        case .serveSize: "the preview's picture size"
        case .serveToken: "the preview server's token"
        }
    }
}

/// A message that may name request options, rendered with the caller's names for them.
///
/// Written like a string: `"\(.frameLimit) needs a video source (\(.video))"`, or with a value,
/// `"use \(.videoCodec, "h264")"`. `description` uses `RequestOption.plainName`; a front end calls
/// `rendered(naming:)` with its own spelling.
public struct OptionText: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    enum Part: Sendable, Hashable {
        case text(String)
        /// An option, and the value given to it if the message shows one.
        case option(RequestOption, String?)
    }

    var parts: [Part]

    public init(stringLiteral value: String) { parts = [.text(value)] }

    /// Text that names no option.
    public init(_ text: String) { parts = [.text(text)] }

    public init(stringInterpolation: Interpolation) { parts = stringInterpolation.parts }

    public struct Interpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) { parts.append(.text(literal)) }

        public mutating func appendInterpolation(_ option: RequestOption) { parts.append(.option(option, nil)) }

        public mutating func appendInterpolation(_ option: RequestOption, _ value: String) {
            parts.append(.option(option, value))
        }

        public mutating func appendInterpolation(_ text: OptionText) { parts += text.parts }

        public mutating func appendInterpolation<T>(_ value: T) { parts.append(.text("\(value)")) }
    }

    /// The message with each option spelled by `naming` (given the option and its value, if any).
    public func rendered(naming: (RequestOption, String?) -> String) -> String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .option(let option, let value): naming(option, value)
            }
        }.joined()
    }

    /// The message in plain words: "the frame limit needs a video source (the video device)".
    public var description: String {
        rendered { option, value in value.map { "\(option.plainName) \($0)" } ?? option.plainName }
    }

    /// The two messages one after the other.
    public static func + (lhs: OptionText, rhs: OptionText) -> OptionText {
        var joined = lhs
        joined.parts += rhs.parts
        return joined
    }

    /// The options the message names, in order.
    public var options: [RequestOption] {
        parts.compactMap { part in
            if case .option(let option, _) = part { return option }
            return nil
        }
    }
}
