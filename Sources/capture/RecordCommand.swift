import CaptureCore
import FoundationEssentials
import Glibc

/// `capture record`: cameras and microphones (or the test sources) to a file.
struct RecordCommand: Command {
    static let spec = CommandSpec(
        name: "record",
        abstract: "Record video and audio from cameras, microphones or the test sources to a file or a stream.",
        discussion: """
            The container follows the output's extension: .mp4 .mov .mkv .nut .avi .y4m .h264 \
            (video, with audio where it fits), .wav .flac .m4a .opus (audio only). With neither \
            --video nor --audio the first camera is recorded. Ctrl-C (SIGINT), SIGTERM and SIGHUP \
            stop the recording cleanly: the file is finalized and the exit status is 0.

            Segments: with --segment-time or --segment-size, OUTPUT is a template for a series of \
            files, each complete on its own and starting with a keyframe, cut without a pause: \
            strftime fields (cam-%Y%m%d-%H%M%S.mp4, local time unless --utc) and %n for the \
            segment number (0001 ...); without a field, -0001 etc. is added before the extension. \
            --keep and --max-total-size delete the oldest files of the series (this run's, and \
            those in the folder the template could have named), never others. With --json, each \
            segment opened, closed and deleted is one JSON line on stdout before the summary.

            Streaming: an output that is an rtmp:// or rtmps:// URL is sent to that server as FLV \
            (H.264 and AAC), an srt:// URL as MPEG-TS (the caller connects to a listener). \
            --also adds outputs fed by the same capture and encode, typically a file and a stream; \
            each has its own fate: a stream that fails never stops or damages the file. A server \
            that cannot be reached at the start ends the command with exit 69 before anything is \
            recorded. A connection lost later is made again with backoff (1, 2, 4 ... 30 s) for \
            --reconnect-timeout, resuming at a keyframe; meanwhile the stream's packets are dropped \
            and counted, never queued without limit. A recording with only streams ends with exit \
            74 when none comes back in time. Stream keys, passphrases and user:password@ never \
            appear in messages or the summary: they show as ***.
            """,
        arguments: [
            ArgumentSpec(
                name: "output",
                help:
                    "The file to write (its extension chooses the container), - for standard output (with --format), or a stream: rtmp://, rtmps:// or srt:// URL.",
                kind: .file(extensions: ContainerFormat.all.map(\.fileExtension)))
        ],
        options: [
            .option(
                "--video", "device", help: "Camera: index or name from 'capture list', 'test', or lavfi:GRAPH.",
                kind: .device(.video)),
            .option(
                "--audio", "device", help: "Microphone: index or name from 'capture list', 'test', or lavfi:GRAPH.",
                kind: .device(.audio)),
            .option(
                "--video-size", "WxH",
                help: "Frame size to ask the camera for: 1280x720, or a name FFmpeg knows such as hd720 or vga."),
            .option(
                "--framerate", "fps",
                help: "Frame rate to ask the camera for: 30, 30000/1001, or a name FFmpeg knows such as ntsc or pal."),
            .option(
                "--input-format", "format", help: "The camera's format, as FFmpeg names it (yuyv422, mjpeg, h264).",
                kind: .choices(FormatNames.cameraInputFormats)),
            .option(
                "--pixel-format", "format", help: "Pixel format to record (h264: a 4:2:0 format such as nv12).",
                default: "yuv420p for h264, the camera's for raw", kind: .choices(FormatNames.recordablePixelFormats)),
            .option(
                "--codec", "codec", help: "Video codec: h264, raw or copy.",
                default: "h264 for .mp4 .mov .mkv .h264, raw for .nut .avi .y4m",
                kind: .choices(VideoCodec.allCases.map(\.rawValue))),
            .option("--crf", "n", help: "H.264 quality, 0-51 (lower is better).", default: "23"),
            .option(
                "--preset", "name", help: "H.264 speed preset, ultrafast ... veryslow.", default: "veryfast",
                kind: .choices(RecordingRequest.x264Presets)),
            .option("--bitrate", "rate", help: "H.264 bit rate instead of --crf, e.g. 4M or 800k."),
            .option("--sample-rate", "Hz", help: "Audio sample rate to record.", default: "the microphone's"),
            .option("--channels", "n", help: "Audio channels to record.", default: "the microphone's"),
            .option(
                "--sample-format", "format", help: "PCM or FLAC sample format: s16, s24, s32 or flt.",
                default: "the microphone's; FLAC at most s24",
                kind: .choices(SampleFormat.allCases.map(\.rawValue))),
            .option(
                "--audio-codec", "codec", help: "Audio codec: aac, opus, pcm or flac.",
                default: "aac for .mp4 .mov .m4a, pcm for .mkv .nut .avi .wav, flac for .flac, opus for .opus",
                kind: .choices(AudioCodec.allCases.map(\.rawValue))),
            .option(
                "--maxrate", "rate",
                help: "H.264 rate cap (x264 VBV), e.g. 3M, so a stream stays within what the link carries."),
            .option(
                "--bufsize", "bits", help: "H.264 VBV buffer for --maxrate, e.g. 6M.",
                default: "one second of --maxrate"),
            .option(
                "--also", "output",
                help: "Another output from the same encode: a file or a stream URL; repeat for more.", repeats: true),
            .option(
                "--format", "name",
                help: "Container for the output where its name does not say: flv, mpegts (udp://, tcp://), mkv ..."),
            .option(
                "--connect-timeout", "seconds",
                help: "Give up on a server that does not answer at the start (exit 69).",
                default: "5"),
            .option(
                "--reconnect-timeout", "seconds",
                help:
                    "Keep trying this long to reconnect a stream whose connection broke; with --reconnect, also "
                    + "how long a lost device is waited for, which is for ever when this is not given.",
                default: "60"),
            .flag(
                "--reconnect",
                help:
                    "When the camera or microphone is lost or stalls, keep the file, wait for the same "
                    + "device to come back and continue; the gap is missing frames and silence."),
            .option(
                "--segment-time", "duration",
                help: "Cut the recording into files of this length (90, 10m, 1h); OUTPUT is then a template."),
            .option(
                "--segment-size", "size", help: "Cut the recording into files of about this size (500M, 2G)."),
            .option("--keep", "n", help: "Keep the newest N finished segments, delete older ones of the series."),
            .option(
                "--max-total-size", "size",
                help: "Delete the oldest segments of the series so that it stays within this size."),
            .flag("--utc", help: "Fill in a template's time fields in UTC rather than local time."),
            .option("--duration", "seconds", help: "Stop after this many seconds."),
            .option("--frames", "n", help: "Stop after exactly this many video frames."),
            .option(
                "--stall-timeout", "seconds",
                help: "End with exit 74 when a device sends nothing for this long (with --reconnect, wait for it).",
                default: "5"),
            .option(
                "--control", "name=value",
                help:
                    "Set a camera control before streaming, as 'capture controls --set' does; repeat for more. Controls stay set after the recording.",
                repeats: true),
            .option(
                "--controls-from", "file", help: "Apply a profile from 'capture controls --save' before streaming.",
                kind: .file(extensions: ["json"])),
            .flag("--restore-controls", help: "Put the controls back as they were when the recording ends."),
            .waitOption,
            .flag("--force", help: "Overwrite the output if it exists."),
            .json,
            .flag("--quiet", help: "Print nothing but errors (and the --json summary)."),
            .verbose,
        ],
        examples: [
            (
                "capture record --video test --audio test --duration 5 clip.mp4",
                "Five seconds of the test pattern and tone, H.264 and AAC."
            ),
            (
                "capture record --video /dev/video0 --video-size 1280x720 --framerate 30 clip.mkv",
                "A camera at 720p30, in whichever pixel format reaches it."
            ),
            (
                "capture record --audio hw:CARD=PCH,DEV=0 --sample-rate 48000 voice.flac",
                "A microphone to FLAC until Ctrl-C."
            ),
            (
                "capture record --video 0 --codec raw --frames 100 raw.nut",
                "100 frames from the first camera as it delivers them."
            ),
            (
                "capture record --video 0 --audio default --segment-time 1h --keep 48 'cam-%Y%m%d-%H%M%S.mp4'",
                "Hour-long files named by their start time; the last two days are kept."
            ),
            (
                "capture record --video 0 --audio default --maxrate 3M rtmp://media.example/live/KEY --also room.mkv",
                "Stream to an RTMP server (nginx-rtmp, MediaMTX, SRS) and keep a local file."
            ),
            (
                "capture record --video test --audio test 'srt://gateway.example:9000?passphrase=SECRET'",
                "Stream to an SRT listener as MPEG-TS."
            ),
        ]
    )

    var request: RecordingRequest
    var json: Bool
    var quiet: Bool
    /// `--wait`, when given.
    var wait: DeviceWaitOption?

    init(_ arguments: ParsedArguments) throws {
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: Self.spec) }
        func number<T: LosslessStringConvertible & Comparable>(_ name: String, _ range: ClosedRange<T>) throws -> T? {
            try arguments.number(name, range, command: Self.spec)
        }
        /// The value of option `name` read by `parse`; a value it refuses is a usage error saying
        /// what the option `takes`.
        func parsed<T>(_ name: String, _ parse: (String) -> T?, takes: String) throws -> T? {
            guard let text = arguments.value(name) else { return nil }
            guard let value = parse(text) else { throw fail("\(name) takes \(takes), not '\(text)'") }
            return value
        }
        request = RecordingRequest(output: arguments.positionals[0])
        request.video = try arguments.value("--video").map { try DeviceName(parsing: $0) }
        request.audio = try arguments.value("--audio").map { try DeviceName(parsing: $0) }
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
        if let text = arguments.value("--codec") {
            guard let codec = VideoCodec(rawValue: text) else {
                throw fail("--codec takes h264, raw or copy, not '\(text)'")
            }
            request.videoCodec = codec
        }
        if let text = arguments.value("--audio-codec") {
            guard let codec = AudioCodec(rawValue: text) else {
                throw fail("--audio-codec takes aac, opus, pcm or flac, not '\(text)'")
            }
            request.audioCodec = codec
        }
        if let text = arguments.value("--sample-format") {
            guard let format = SampleFormat(rawValue: text) else {
                throw fail("--sample-format takes s16, s24, s32 or flt, not '\(text)'")
            }
            request.sampleFormat = format
        }
        request.crf = try number("--crf", 0...51)
        if let preset = arguments.value("--preset") {
            guard RecordingRequest.x264Presets.contains(preset) else {
                throw fail(
                    "--preset takes one of \(RecordingRequest.x264Presets.joined(separator: ", ")), not '\(preset)'")
            }
            request.preset = preset
        }
        request.bitRate = try parsed("--bitrate", Self.bitRate, takes: "bits per second, e.g. 4M, 800k or 2500000")
        request.sampleRate = try number("--sample-rate", 1000...768_000)
        request.channels = try number("--channels", 1...64)
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
        request.maxRate = try parsed("--maxrate", Self.bitRate, takes: "bits per second, e.g. 3M or 800k")
        request.bufferSize = try parsed("--bufsize", Self.bitRate, takes: "bits, e.g. 6M or 1500k")
        if request.bufferSize != nil && request.maxRate == nil { throw fail("--bufsize needs --maxrate") }
        request.force = arguments.flag("--force")
        request.segmentTime = try parsed(
            "--segment-time", DurationValue.seconds, takes: "a length such as 90, 10m, 1h or 1h30m")
        request.segmentSize = try parsed("--segment-size", ByteSize.bytes, takes: "a size such as 500M, 2G or 750k")
        request.retention.keep = try number("--keep", 1...1_000_000)
        request.retention.maxTotalBytes = try parsed(
            "--max-total-size", ByteSize.bytes, takes: "a size such as 20G or 500M")
        request.utc = arguments.flag("--utc")
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
        json = arguments.flag("--json")
        quiet = arguments.flag("--quiet")
        wait = try DeviceWaitOption(arguments, command: Self.spec)
        if wait != nil && request.video == nil && request.audio == nil {
            throw fail("--wait waits for a device named with --video or --audio")
        }
    }

    /// "4M", "800k", "2500000" in bits per second.
    static func bitRate(_ text: String) -> Int? {
        let lower = text.lowercased()
        let factor = lower.hasSuffix("m") ? 1_000_000 : lower.hasSuffix("k") ? 1000 : 1
        let digits = factor == 1 ? lower : String(lower.dropLast())
        guard let value = Double(digits), value > 0, value * Double(factor) < 1e10 else { return nil }
        return Int(value * Double(factor))
    }

    func run() throws -> Int32 {
        let stop = StopSignal()
        stop.installHandlers()
        // A reader that goes away (`| head -c1`, a FIFO closed) is EPIPE on that write, reported
        // with the file finalized as far as it goes, not a silent death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let devices = [request.video.map { ($0, Device.Kind.video) }, request.audio.map { ($0, Device.Kind.audio) }]
        if let wait, !(try wait.run(devices.compactMap { $0 }, stop: stop, quiet: quiet)) { return 0 }
        let session = try RecordingSession(plan: RecordingPlanner.plan(request), stop: stop)
        let quiet = self.quiet
        let progressLine = !quiet && isatty(STDERR_FILENO) == 1
        session.onWarning = { line in if !quiet { printError("Warning: \(line)\n") } }
        if progressLine {
            session.onProgress = { progress in printError("\r" + Self.progressText(progress) + "\u{1B}[K") }
        }
        let json = self.json
        session.onEvent = { event in
            if json {
                try? printJSONLine(event)
            } else if !quiet, let line = Self.segmentText(event) {
                printError((progressLine ? "\r\u{1B}[K" : "") + line)
            }
        }
        let result: RecordingResult
        switch try session.run() {
        case .recorded(let recorded):
            result = recorded
        case .stoppedBeforeFirstFrame(let signal):
            // A stop that came before any file existed ends cleanly: nothing to finalize.
            printError(
                "capture: stopped by \(signal ?? "a stop request") before the first frame; nothing was recorded, "
                    + "no file was written\n")
            return 0
        }
        if progressLine { printError("\r\u{1B}[K") }
        var summary = result.summary
        // The error as this command words it, with its own option names.
        if let failure = result.failure { summary.error = failure.line }
        if request.output == "-" {
            // Standard output carries the recording: the summary goes to stderr.
            if json {
                printError(try jsonText(summary) + "\n")
            } else if !quiet {
                printError(Self.summaryText(summary))
            }
        } else if json {
            try printJSON(summary)
        } else if !quiet {
            print(Self.summaryText(summary), terminator: "")
        }
        if let failure = result.failure {
            printError("Error: \(failure.line)\n")
            return failure.exitCode
        }
        if let problem = standardOutputFailure() {
            printError(
                "Error: stdout: writing the summary failed: \(problem); the recording is at \(result.summary.output)\n")
            return ExitCode.ioError.rawValue
        }
        return 0
    }

    /// `00:00:04.2  126 frames  30.0 fps  0 dropped  1.1 MiB  2.2 Mbit/s`
    static func progressText(_ p: RecordingProgress) -> String {
        let seconds = max(0, p.elapsed)
        let clock = String(
            cFormat: "%02d:%02d:%04.1f", Int(seconds) / 3600, Int(seconds) / 60 % 60,
            seconds.truncatingRemainder(dividingBy: 60))
        return "\(clock)  \(p.frames) frames  \(String(cFormat: "%.1f", p.fps)) fps  \(p.dropped) dropped  "
            + "\(byteText(p.bytes))  \(String(cFormat: "%.1f", p.bitRate / 1e6)) Mbit/s"
    }

    static func byteText(_ bytes: Int64) -> String {
        if bytes >= 1 << 20 { return String(cFormat: "%.1f MiB", Double(bytes) / 1_048_576) }
        if bytes >= 1 << 10 { return String(cFormat: "%.1f KiB", Double(bytes) / 1024) }
        return "\(bytes) bytes"
    }

    /// `  stream: rtmp://host/live/***: flv, 1.2 MiB sent, 300 packets, 0 dropped, 0 reconnects, 0.0 s disconnected, finished`
    static func streamText(_ r: StreamReport, number: Int? = nil) -> String {
        var out =
            "  stream\(number.map { " \($0)" } ?? ""): \(r.url): \(r.container), \(byteText(r.bytes)) sent, \(r.packetsSent) packets, "
            + "\(r.packetsDropped) dropped, \(r.reconnects) reconnect\(r.reconnects == 1 ? "" : "s"), "
            + "\(String(cFormat: "%.1f", r.secondsDisconnected)) s disconnected, \(r.state)\n"
        if let error = r.error { out += "          last error: \(error)\n" }
        return out
    }

    /// `segment 3: cam-0003.mp4, 10.00 s from 20.00 s, 300 frames, 480000 samples, 1.2 MiB`, or a
    /// deletion; nil for the other events.
    static func segmentText(_ e: RecordingEvent) -> String? {
        switch e.event {
        case .segmentOpened, .deviceLost, .deviceBack:
            // The next line reports an opened segment closed; a device's comings and goings are
            // warnings already.
            return nil
        case .segmentClosed:
            let counts = [e.frames.map { "\($0) frames" }, e.samples.map { "\($0) samples" }].compactMap { $0 }
            var line =
                "segment \(e.number ?? 0): \(e.path ?? ""), \(String(cFormat: "%.2f", e.duration ?? 0)) s from "
                + "\(String(cFormat: "%.2f", e.start ?? 0)) s, \((counts + [byteText(e.size ?? 0)]).joined(separator: ", "))"
            if let problem = e.problem { line += " (\(problem))" }
            return line + "\n"
        case .segmentDeleted:
            return "deleted \(e.path ?? "") (\(byteText(e.size ?? 0))) to stay within the retention limits\n"
        }
    }

    /// "         lost and back 2 times, 4.6 s away (frames missing)", or nothing without reconnecting.
    static func reconnectText(_ count: Int?, _ seconds: Double?, what: String) -> String {
        guard let count, let seconds, count > 0 || seconds > 0 else { return "" }
        let times = count == 1 ? "once" : "\(count) times"
        return "         lost and back \(times), \(String(cFormat: "%.1f", seconds)) s away (\(what))\n"
    }

    static func summaryText(_ s: RecordingSummary) -> String {
        var out =
            "\(s.streams != nil && s.output == s.streams?.first?.url ? "Streamed" : "Recorded") \(s.output == "-" ? "standard output" : s.output): \(s.container), \(String(cFormat: "%.2f", s.duration)) s, \(byteText(s.fileSize))\n"
        if let v = s.video {
            var rate = "\(v.frameRate.decimalDescription) fps"
            if let delivered = v.frameRateDelivered {
                rate +=
                    " (the camera delivered \(String(cFormat: "%.1f", delivered)) fps of the \(v.frameRate.decimalDescription) asked)"
            } else if let measured = v.frameRateMeasured {
                rate += " (measured \(String(cFormat: "%.2f", measured)))"
            }
            out += "  video: \(v.device) \(v.input) -> \(v.codec) \(v.pixelFormat) \(v.width)x\(v.height) \(rate)\n"
            let d = v.framesDropped
            out +=
                "         \(v.framesWritten) frames written, \(d.total) dropped "
                + "(\(d.late) late, \(d.corrupt) corrupt, \(d.gaps) in gaps), starts at \(String(cFormat: "%.3f", v.start)) s\n"
            if let duplicated = v.framesDuplicated, duplicated > 0 {
                out +=
                    "         \(duplicated) frames repeated to fill the slots the camera left empty "
                    + "(\(s.container) stores no timestamps)\n"
            }
            if v.framesSkippedAtStart > 0 {
                out += "         \(v.framesSkippedAtStart) frames before the camera's first keyframe skipped\n"
            }
            out += reconnectText(v.reconnects, v.secondsDisconnected, what: "frames missing")
        }
        if let a = s.audio {
            var channels = a.channels == 1 ? "1 channel" : "\(a.channels) channels"
            if let layout = a.channelLayout, !["mono", "stereo", channels].contains(layout) {
                channels += " (\(layout))"
            }
            out += "  audio: \(a.device) \(a.input) -> \(a.codec) \(a.sampleFormat) \(a.sampleRate) Hz \(channels)\n"
            out +=
                "         \(a.samples) samples written, \(a.overruns) overruns, starts at \(String(cFormat: "%.3f", a.start)) s\n"
            out += reconnectText(a.reconnects, a.secondsDisconnected, what: "silence")
        }
        if let offset = s.startOffset {
            out += "  audio/video start offset: \(String(cFormat: "%+.3f", offset)) s\n"
        }
        if let controls = s.controls { out += ControlsText.recorded(controls) }
        if let segments = s.segments { out += "  segments: \(segments) file\(segments == 1 ? "" : "s")\n" }
        out += "  stopped by: \(s.stopReason)\n"
        if let problem = s.finishProblem { out += "  note: \(problem)\n" }
        let streams = s.streams ?? []
        for (index, stream) in streams.enumerated() {
            // Two streams to one server read alike once their keys are hidden: they are numbered.
            out += streamText(stream, number: streams.count > 1 ? index + 1 : nil)
        }
        return out
    }
}
