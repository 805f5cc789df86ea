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

    /// `text`, a value of option `name`, as a number within `range`.
    private func number<T: LosslessStringConvertible & Comparable>(
        _ name: String, _ text: String, _ range: ClosedRange<T>
    ) throws -> T {
        guard let number = T(text), range.contains(number) else {
            throw fail("\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// The value of option `name` read by `parse`; a value it refuses is a usage error saying
    /// what the option `takes`.
    private func parsed<T>(_ name: String, _ parse: (String) -> T?, takes: String) throws -> T? {
        guard let text = arguments.value(name) else { return nil }
        guard let value = parse(text) else { throw fail("\(name) takes \(takes), not '\(text)'") }
        return value
    }

    /// The options that choose one camera's mode, and one microphone's format: each follows the
    /// `--video` or `--audio` it is for.
    static let cameraOptions = ["--video-size", "--framerate", "--input-format"]
    static let microphoneOptions = ["--sample-rate", "--channels"]

    /// For each device given to `deviceOption`, the values of `options` given after it and before
    /// the next device of its kind, over those given before the first device, which apply to
    /// every one that gives none; the last of a repeated option wins.
    func perDevice(_ deviceOption: String, options: [String]) -> [[String: String]] {
        var shared: [String: String] = [:]
        var devices: [[String: String]] = []
        for (name, value) in arguments.sequence {
            if name == deviceOption {
                devices.append([:])
            } else if options.contains(name) {
                if devices.isEmpty { shared[name] = value } else { devices[devices.count - 1][name] = value }
            }
        }
        return devices.isEmpty ? [shared] : devices.map { $0.merging(shared) { own, _ in own } }
    }

    /// The device `text` that option `name` gives; an empty one is a usage error naming it.
    func device(_ name: String, _ text: String) throws -> DeviceName {
        guard !text.isEmpty else {
            throw fail("\(name) takes an index or name from 'capture list', 'test' or lavfi:GRAPH, not ''")
        }
        return try DeviceName(parsing: text)
    }

    /// A frame size as `--video-size` takes it.
    func videoSize(_ text: String) throws -> FrameDimensions {
        guard let size = FrameDimensions(videoSize: text), size.width <= 16384, size.height <= 16384 else {
            throw fail(
                "--video-size takes WIDTHxHEIGHT up to 16384x16384 (e.g. 1280x720) or a name such as hd720, not '\(text)'"
            )
        }
        return size
    }

    /// A frame rate as `--framerate` takes it; above 1000 fps no camera delivers and the
    /// encoders' time bases give out.
    func frameRate(_ text: String) throws -> Rational {
        guard let rate = Rational(videoRate: text), rate.doubleValue <= 1000 else {
            throw fail("--framerate takes frames per second up to 1000, e.g. 30, 29.97 or 30000/1001, not '\(text)'")
        }
        return rate
    }

    /// The cameras (`--video`, repeated for several) and what each asks of its mode.
    func readCameras(into request: inout RecordingRequest) throws {
        let devices = try arguments.values("--video").map { try device("--video", $0) }
        let options = perDevice("--video", options: Self.cameraOptions)
        var cameras: [CameraRequest] = []
        for (index, given) in options.enumerated() {
            cameras.append(
                CameraRequest(
                    index < devices.count ? devices[index] : .test,
                    videoSize: try given["--video-size"].map(videoSize),
                    frameRate: try given["--framerate"].map(frameRate), inputFormat: given["--input-format"]))
        }
        // Without --video the options are the default camera's, as the first camera's are.
        let first = cameras.first
        request.video = devices.first
        request.videoSize = first?.videoSize
        request.frameRate = first?.frameRate
        request.inputFormat = first?.inputFormat
        request.moreCameras = Array(cameras.dropFirst())
    }

    /// The camera's encoding.
    func readVideo(into request: inout RecordingRequest) throws {
        try readCameras(into: &request)
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
        request.encoder =
            try parsed(
                "--encoder", VideoEncoderChoice.init(rawValue:),
                takes: VideoEncoderChoice.allCases.map(\.rawValue).joined(separator: ", ")) ?? .auto
        request.bitRate = try parsed(
            "--bitrate", RecordCommand.bitRate, takes: "bits per second, e.g. 4M, 800k or 2500000")
        request.maxRate = try parsed("--maxrate", RecordCommand.bitRate, takes: "bits per second, e.g. 3M or 800k")
        request.bufferSize = try parsed("--bufsize", RecordCommand.bitRate, takes: "bits, e.g. 6M or 1500k")
        if request.bufferSize != nil && request.maxRate == nil { throw fail("--bufsize needs --maxrate") }
    }

    /// The microphones (`--audio`, repeated for several) and the audio encoding.
    func readAudio(into request: inout RecordingRequest) throws {
        let devices = try arguments.values("--audio").map { try device("--audio", $0) }
        var microphones: [MicrophoneRequest] = []
        for (index, given) in perDevice("--audio", options: Self.microphoneOptions).enumerated() {
            microphones.append(
                MicrophoneRequest(
                    index < devices.count ? devices[index] : .test,
                    sampleRate: try given["--sample-rate"].map { try number("--sample-rate", $0, 1000...768_000) },
                    channels: try given["--channels"].map { try number("--channels", $0, 1...64) }))
        }
        request.audio = devices.first
        request.sampleRate = microphones.first?.sampleRate
        request.channels = microphones.first?.channels
        request.moreMicrophones = Array(microphones.dropFirst())
        request.audioCodec = try parsed(
            "--audio-codec", AudioCodec.init(rawValue:), takes: "aac, opus, pcm or flac")
        request.sampleFormat = try parsed(
            "--sample-format", SampleFormat.init(rawValue:), takes: "s16, s24, s32 or flt")
    }

    /// Where it goes and for how long: limits, streams, reconnects, segments.
    func readOutputs(into request: inout RecordingRequest) throws {
        request.duration = try number("--duration", 0.001...DurationValue.longest)
        request.frames = try number("--frames", 1...Int(Int32.max))
        request.buffers = try number("--buffers", 2...32)
        request.v4l2Reader = try parsed("--v4l2-reader", V4L2Reader.init(rawValue:), takes: "native or ffmpeg")
        request.stallTimeout = try number("--stall-timeout", 0.1...3600.0) ?? 5
        request.also = arguments.values("--also")
        request.streamCamera = try number("--stream-video", 0...Int(Int32.max))
        request.streamMicrophone = try number("--stream-audio", 0...Int(Int32.max))
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
        request.levelInterval = try number("--level-interval", 0.1...3600.0)
        try readClips(into: &request)
    }

    /// Event clips: pre-roll, post-roll and what triggers them.
    func readClips(into request: inout RecordingRequest) throws {
        request.preRoll = try number("--pre-roll", 0.0...600.0)
        request.postRoll = try number("--post-roll", 0.1...DurationValue.longest)
        request.preRollBytes = try parsed("--pre-roll-size", ByteSize.bytes, takes: "a size such as 64M or 1G")
        request.maxClip = try number("--max-clip", 1.0...DurationValue.longest)
        request.clipTriggers = try arguments.values("--trigger").map { text in
            if text == "stdin" { return .standardInput }
            let lower = text.lowercased()
            if lower.hasPrefix("level:"),
                let value = Double(lower.dropFirst(6).replacing("dbfs", with: "").replacing("db", with: "")),
                value.isFinite
            {
                return .level(value)
            }
            throw fail("--trigger takes stdin or level:DBFS (e.g. level:-30dB), not '\(text)'")
        }
        request.triggerHold = try number("--trigger-hold", 0...60_000).map { (ms: Int) in Double(ms) / 1000 }
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
