import CaptureCore

/// How this command line spells the request settings the library's messages point at.
enum OptionNames {
    /// `--frames`, `--codec h264`, `'capture controls --save'`'s inner part.
    static func flag(_ option: RequestOption) -> String {
        switch option {
        case .video: "--video"
        case .audio: "--audio"
        case .output: "OUTPUT"
        case .videoSize: "--video-size"
        case .frameRate: "--framerate"
        case .inputFormat: "--input-format"
        case .pixelFormat: "--pixel-format"
        case .videoCodec: "--codec"
        case .crf: "--crf"
        case .preset: "--preset"
        case .encoder: "--encoder"
        case .bitRate: "--bitrate"
        case .sampleRate: "--sample-rate"
        case .channels: "--channels"
        case .audioCodec: "--audio-codec"
        case .sampleFormat: "--sample-format"
        case .duration: "--duration"
        case .frameLimit: "--frames"
        case .force: "--force"
        case .stallTimeout: "--stall-timeout"
        case .buffers: "--buffers"
        case .v4l2Reader: "--v4l2-reader"
        case .control: "--control"
        case .controlsProfile: "--controls-from"
        case .restoreControls: "--restore-controls"
        case .saveControls: "capture controls --save"
        case .loadControls: "capture controls --load"
        case .wait: "--wait"
        case .segmentTime: "--segment-time"
        case .segmentSize: "--segment-size"
        case .keep: "--keep"
        case .maxTotalSize: "--max-total-size"
        case .utc: "--utc"
        case .also: "--also"
        case .streamVideo: "--stream-video"
        case .streamAudio: "--stream-audio"
        case .format: "--format"
        case .connectTimeout: "--connect-timeout"
        case .reconnectTimeout: "--reconnect-timeout"
        case .reconnect: "--reconnect"
        case .maxRate: "--maxrate"
        case .bufferSize: "--bufsize"
        case .preRoll: "--pre-roll"
        case .postRoll: "--post-roll"
        case .preRollSize: "--pre-roll-size"
        case .maxClip: "--max-clip"
        case .trigger: "--trigger"
        case .triggerHold: "--trigger-hold"
        case .levelInterval: "--level-interval"
        case .serve: "--serve"
        case .serveRate: "--serve-rate"
        case .serveSize: "--serve-size"
        case .serveToken: "--serve-token"
        }
    }

    /// The option as a message shows it, with its value when it has one: `--codec h264`.
    static func render(_ option: RequestOption, value: String?) -> String {
        value.map { "\(flag(option)) \($0)" } ?? flag(option)
    }
}

extension CaptureError {
    /// The line as this command line words it: options by their flags.
    var line: String { description(naming: OptionNames.render) }
}
