import CaptureCore

/// Reads `capture record`'s options into a `RecordingRequest`; a value an option does not take
/// is a usage error (64) saying what it takes.
struct RecordOptions {
    let arguments: ParsedArguments
    let command: CommandSpec

    func fail(_ message: String) -> UsageError { UsageError(message: message, command: command) }

    private func number<T: LosslessStringConvertible & Comparable>(_ name: String, _ range: ClosedRange<T>) throws
        -> T?
    {
        try arguments.number(name, range, command: command)
    }

    /// The value of option `name` read by `parse`; a value it refuses is a usage error saying
    /// what the option `takes`.
    private func parsed<T>(_ name: String, _ parse: (String) -> T?, takes: String) throws -> T? {
        guard let text = arguments.value(name) else { return nil }
        guard let value = parse(text) else { throw fail("\(name) takes \(takes), not '\(text)'") }
        return value
    }

    /// The camera, its mode and the video encoding.
    func readVideo(into request: inout RecordingRequest) throws {
        request.video = try arguments.value("--video").map { try DeviceName(parsing: $0) }
        if let text = arguments.value("--video-size") {
            guard let size = FrameDimensions(videoSize: text), size.width <= 16384, size.height <= 16384 else {
                throw fail("--video-size takes WIDTHxHEIGHT, e.g. 1280x720, not '\(text)'")
            }
            request.videoSize = size
        }
        // Above 1000 fps no camera delivers and the encoders' time bases give out.
        request.frameRate = try parsed(
            "--framerate", { Rational(videoRate: $0).flatMap { $0.doubleValue <= 1000 ? $0 : nil } },
            takes: "frames per second up to 1000, e.g. 30, 29.97 or 30000/1001")
        request.inputFormat = arguments.value("--input-format")
        request.pixelFormat = arguments.value("--pixel-format")
        request.videoCodec = try parsed("--codec", VideoCodec.init(rawValue:), takes: "h264, raw or copy")
        request.crf = try number("--crf", 0...51)
        if let preset = arguments.value("--preset") {
            guard RecordingRequest.x264Presets.contains(preset) else {
                throw fail(
                    "--preset takes one of \(RecordingRequest.x264Presets.joined(separator: ", ")), not '\(preset)'")
            }
            request.preset = preset
        }
        request.bitRate = try parsed(
            "--bitrate", RecordCommand.bitRate, takes: "bits per second, e.g. 4M, 800k or 2500000")
        request.maxRate = try parsed("--maxrate", RecordCommand.bitRate, takes: "bits per second, e.g. 3M or 800k")
        request.bufferSize = try parsed("--bufsize", RecordCommand.bitRate, takes: "bits, e.g. 6M or 1500k")
        if request.bufferSize != nil && request.maxRate == nil { throw fail("--bufsize needs --maxrate") }
    }

    /// The microphone and the audio encoding.
    func readAudio(into request: inout RecordingRequest) throws {
        request.audio = try arguments.value("--audio").map { try DeviceName(parsing: $0) }
        request.audioCodec = try parsed(
            "--audio-codec", AudioCodec.init(rawValue:), takes: "aac, opus, pcm or flac")
        request.sampleFormat = try parsed(
            "--sample-format", SampleFormat.init(rawValue:), takes: "s16, s24, s32 or flt")
        request.sampleRate = try number("--sample-rate", 1000...768_000)
        request.channels = try number("--channels", 1...64)
    }

    /// Where it goes and for how long: limits, streams, reconnects, segments.
    func readOutputs(into request: inout RecordingRequest) throws {
        request.duration = try number("--duration", 0.001...DurationValue.longest)
        request.frames = try number("--frames", 1...Int(Int32.max))
        request.stallTimeout = try number("--stall-timeout", 0.1...3600.0) ?? 5
        request.also = arguments.values("--also")
        request.format = arguments.value("--format")
        request.connectTimeout = try number("--connect-timeout", 0.1...600.0) ?? 5
        let reconnectTimeout = try number("--reconnect-timeout", 0.0...86400.0)
        request.reconnectTimeout = reconnectTimeout ?? 60
        request.reconnect = arguments.flag("--reconnect")
        if request.reconnect { request.deviceReconnectTimeout = reconnectTimeout }
        request.force = arguments.flag("--force")
        request.segmentTime = try parsed(
            "--segment-time", DurationValue.seconds, takes: "a length such as 90, 10m, 1h or 1h30m")
        request.segmentSize = try parsed("--segment-size", ByteSize.bytes, takes: "a size such as 500M, 2G or 750k")
        request.retention.keep = try number("--keep", 1...1_000_000)
        request.retention.maxTotalBytes = try parsed(
            "--max-total-size", ByteSize.bytes, takes: "a size such as 20G or 500M")
        request.utc = arguments.flag("--utc")
    }

    /// The camera controls set for the recording.
    func readControls(into request: inout RecordingRequest) throws {
        request.controls = try arguments.values("--control").map { text in
            guard let setting = ControlSetting(parsing: text) else {
                throw fail("--control takes NAME=VALUE, e.g. brightness=20, not '\(text)'")
            }
            return setting
        }
        request.controlsProfile = arguments.value("--controls-from")
        request.restoreControls = arguments.flag("--restore-controls")
        if request.restoreControls && request.controls.isEmpty && request.controlsProfile == nil {
            throw fail("--restore-controls needs --control or --controls-from")
        }
    }
}
