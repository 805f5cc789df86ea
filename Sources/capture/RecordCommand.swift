import CaptureCore
import FoundationEssentials
import Glibc

/// `capture record`: cameras and microphones (or the test sources) to a file.
struct RecordCommand: Command {
    static let spec = CommandSpec(
        name: "record",
        abstract: "Record video and audio from cameras, microphones or the test sources to a file or a stream.",
        discussion: """
            The container follows the output's extension: .mp4 .mov .mkv .ts .nut .avi .y4m .h264 \
            (video, with audio where it fits), .wav .flac .m4a .opus (audio only). With neither \
            --video nor --audio the first camera is recorded. Ctrl-C (SIGINT), SIGTERM and SIGHUP \
            stop the recording cleanly: the file is finalized and the exit status is 0.

            Several cameras and microphones: repeat --video and --audio. Each becomes a track of \
            the one file, in the order given, all on one clock: the recording starts when every \
            device delivers. --video-size, --framerate and --input-format apply to the --video \
            they follow (given before any --video, to every camera that sets none itself); \
            --sample-rate and --channels likewise to the --audio they follow. --control is the \
            first camera's, and a stream beside the file carries the first camera and microphone \
            (--stream-video and --stream-audio choose others). \
            A device field in OUTPUT writes a file per device on the one clock: %d (or %{index}, \
            which segment templates need) for its number, cameras first, and %{name} for its name \
            (take%d.mp4: take0.mp4, take1.mp4 ...).

            Segments: with --segment-time or --segment-size, OUTPUT is a template for a series of \
            files, each complete on its own and starting with a keyframe, cut without a pause: \
            strftime fields (cam-%Y%m%d-%H%M%S.mp4, local time unless --utc) and %n for the \
            segment number (0001 ...); without a field, -0001 etc. is added before the extension. \
            --keep and --max-total-size delete the oldest files of the series (this run's, and \
            those in the folder the template could have named), never others. With --json, each \
            segment opened, closed and deleted is one JSON line on stdout before the summary.

            HLS: an OUTPUT ending in .m3u8 is an HLS playlist with its MPEG-TS segments beside it \
            (cam.m3u8: cam-00000.ts, cam-00001.ts ...), H.264 and AAC, for any web server to serve \
            while it grows. Each segment starts with a keyframe and lasts --segment-time (2 s \
            unless given). The playlist lists every segment, or with --keep N the last N, and with \
            --max-total-size the newest that fit in that size, older ones deleted. It lists only \
            complete segments, also after a crash; a recording that ends (Ctrl-C included) marks \
            it ended.

            Event clips: with --pre-roll SECONDS nothing goes to disk until a trigger (SIGUSR1, \
            --trigger stdin or level:DBFS); the last SECONDS are kept in memory and a trigger \
            saves them, with what follows up to --post-roll after the last trigger, as a complete \
            file named from OUTPUT as a template. Levels: every microphone's peak and RMS per \
            channel are measured; on a terminal the progress line shows them, the summary gives \
            them, a microphone silent for 5 s is warned about, and --json --level-interval \
            SECONDS prints them as audio_level lines.

            Streaming: an output that is an rtmp:// or rtmps:// URL is sent to that server as FLV \
            (H.264 and AAC), an rtsp:// URL to an RTSP server that takes a publisher (ANNOUNCE and \
            RECORD, RTP over the RTSP connection; H.264 with AAC or Opus), an srt:// URL as \
            MPEG-TS (the caller connects to a listener). \
            --also adds outputs fed by the same capture and encode, typically a file and a stream; \
            each has its own fate: a stream that fails never stops or damages the file. A server \
            that cannot be reached at the start ends the command with exit 69 before anything is \
            recorded. A connection lost later is made again with backoff (1, 2, 4 ... 30 s) for \
            --reconnect-timeout, resuming at a keyframe; meanwhile the stream's packets are dropped \
            and counted, never queued without limit. A recording with only streams ends with exit \
            74 when none comes back in time. Stream keys, passphrases and user:password@ never \
            appear in messages or the summary: they show as ***.

            Preview: --serve 127.0.0.1:8080 serves the first camera's live picture while \
            recording, from the same capture: / (a page), /stream (MJPEG), /snapshot.jpg, \
            /status.json, /events, POST /clip. Pictures are made only while someone watches, at \
            --serve-rate and at most --serve-size (an MJPEG camera's pass as they came); a slow \
            viewer loses pictures, never frames of the recording. An address other than loopback \
            needs --serve-token; an address in use is exit 73 before anything is recorded.
            """,
        arguments: [
            ArgumentSpec(
                name: "output",
                help:
                    "The file to write (its extension chooses the container; .m3u8 is an HLS playlist), - for standard output (with --format), or a stream: rtmp://, rtmps://, rtsp://, srt://, udp:// or tcp:// URL.",
                kind: .file(extensions: ContainerFormat.all.map(\.fileExtension)))
        ],
        options: [
            .option(
                "--video", "device",
                help: "Camera: index or name from 'capture list', 'test', or lavfi:GRAPH; repeat for several.",
                repeats: true, kind: .device(.video)),
            .option(
                "--audio", "device",
                help: "Microphone: index or name from 'capture list', 'test', or lavfi:GRAPH; repeat for several.",
                repeats: true, kind: .device(.audio)),
            .option(
                "--video-size", "WxH",
                help: "Frame size to ask the camera for: 1280x720, or a name FFmpeg knows such as hd720 or vga."),
            .option(
                "--framerate", "fps",
                help: "Frame rate to ask the camera for: 30, 30000/1001, or a name FFmpeg knows such as ntsc or pal."),
            .option(
                "--input-format", "format",
                help:
                    "The camera's pixel format: its fourcc (YUYV, NM12, MJPG) or FFmpeg's name for it (yuyv422, nv12, mjpeg).",
                kind: .choices(FormatNames.cameraInputFormats)),
            .option(
                "--pixel-format", "format", help: "Pixel format to record (h264: a 4:2:0 format such as nv12).",
                default: "yuv420p for h264, the camera's for raw", kind: .choices(FormatNames.recordablePixelFormats)),
            .option(
                "--codec", "codec", help: "Video codec: h264, raw or copy.",
                default: "h264 for .mp4 .mov .mkv .ts .h264, raw for .nut .avi .y4m",
                kind: .choices(VideoCodec.allCases.map(\.rawValue))),
            .option("--crf", "n", help: "H.264 quality, 0-51 (lower is better).", default: "23"),
            .option(
                "--preset", "name",
                help:
                    "x264 speed preset, ultrafast ... placebo. For a camera, x264 is timed here at its mode before "
                    + "recording (a fraction of a second, 2 s at most per preset); a preset given is kept, with "
                    + "a warning when it falls short of real time.",
                default:
                    "for a camera, the slowest of veryfast, superfast, ultrafast that keeps 1.2x real time here, "
                    + "told in one warning line when not veryfast; else veryfast",
                kind: .choices(RecordingRequest.x264Presets)),
            .option(
                "--encoder", "name",
                help:
                    "H.264 encoder: auto, x264, vaapi, v4l2m2m, nvenc or qsv. A hardware encoder named without "
                    + "its device, or that does not open, exits 69; --crf, --preset and --pixel-format ask for x264 "
                    + "and are refused beside one (64).",
                default: "auto: the first hardware encoder whose device is here and opens, else x264",
                kind: .choices(VideoEncoderChoice.allCases.map(\.rawValue))),
            .option("--bitrate", "rate", help: "H.264 bit rate instead of --crf, e.g. 4M or 800k."),
            .option("--sample-rate", "Hz", help: "Audio sample rate to record.", default: "the microphone's"),
            .option("--channels", "n", help: "Audio channels to record.", default: "the microphone's"),
            .option(
                "--sample-format", "format", help: "PCM or FLAC sample format: s16, s24, s32 or flt.",
                default: "the microphone's; FLAC at most s24",
                kind: .choices(SampleFormat.allCases.map(\.rawValue))),
            .option(
                "--audio-codec", "codec", help: "Audio codec: aac, opus, pcm or flac.",
                default: "aac for .mp4 .mov .ts .m4a, pcm for .mkv .nut .avi .wav, flac for .flac, opus for .opus",
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
                "--stream-video", "n",
                help: "With several cameras, the one the network streams carry: its number among the cameras "
                    + "in the order given, from 0.", default: "0"),
            .option(
                "--stream-audio", "n",
                help: "With several microphones, the one the network streams carry, as --stream-video.",
                default: "0"),
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
            .option(
                "--keep", "n", help: "Keep the newest N finished segments (or clips), delete older ones of the series."),
            .option(
                "--max-total-size", "size",
                help: "Delete the oldest segments (or clips) of the series so that it stays within this size."),
            .option(
                "--pre-roll", "seconds",
                help:
                    "Event clips: keep this many seconds in memory and write nothing until a trigger (SIGUSR1, --trigger); OUTPUT is then a template."
            ),
            .option(
                "--post-roll", "seconds",
                help:
                    "Run a clip on this long after the last trigger (without it, a trigger toggles a clip on and off)."
            ),
            .option(
                "--pre-roll-size", "size", help: "The most memory the pre-roll's packets take (64M, 1G).",
                default: "256M"),
            .option("--max-clip", "seconds", help: "End a clip this long after its start, however it is triggered."),
            .option(
                "--trigger", "source",
                help:
                    "Also trigger a clip on a line 'clip' on standard input (stdin), or on a microphone's peak at or above a level (level:-30dB).",
                repeats: true),
            .option(
                "--trigger-hold", "ms", help: "How long the level must hold before it triggers a clip.",
                default: "200"),
            .flag("--utc", help: "Fill in a template's time fields in UTC rather than local time."),
            .option("--duration", "seconds", help: "Stop after this many seconds."),
            .option("--frames", "n", help: "Stop after exactly this many video frames."),
            .option(
                "--buffers", "n",
                help: "MMAP buffers for a camera read by capture's own V4L2 reader, 2-32; "
                    + "the driver may give another count.",
                default: "half a second at the camera's rate"),
            .option(
                "--v4l2-reader", "reader",
                help: "Which reader records the cameras: native (capture's own) or ffmpeg (FFmpeg's v4l2 input).",
                default: "native for every format it reads, ffmpeg for the others (a camera's own H.264)",
                kind: .choices(V4L2Reader.allCases.map(\.rawValue))),
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
            .option(
                "--level-interval", "seconds",
                help:
                    "With --json, print each microphone's level this often (0.1 s or more) as an audio_level line: peak and RMS per channel in dBFS, clipped samples."
            ),
            .option(
                "--serve", "host:port",
                help:
                    "While recording, serve a live preview over HTTP: / (a page), /stream (MJPEG), /snapshot.jpg, /status.json, /events, POST /clip; 127.0.0.1:8080 or :8080 for loopback."
            ),
        ] + PreviewOptions.specs + [
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
                "capture record --video 0 --audio default rtsp://cam:SECRET@mediamtx.example:8554/door",
                "Publish to an RTSP server (MediaMTX, go2rtc) that restreams it."
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
        let options = RecordOptions(arguments: arguments, command: Self.spec)
        request = RecordingRequest(output: arguments.positionals[0])
        try options.readVideo(into: &request)
        try options.readAudio(into: &request)
        try options.readOutputs(into: &request)
        try options.readControls(into: &request)
        try options.readPreview(into: &request)
        json = arguments.flag("--json")
        quiet = arguments.flag("--quiet")
        if request.levelInterval != nil {
            if !json { throw options.fail("--level-interval prints JSON lines; add --json") }
            if request.audio == nil { throw options.fail("--level-interval measures a microphone; add --audio") }
        }
        wait = try DeviceWaitOption(arguments, command: Self.spec)
        if wait != nil && request.video == nil && request.audio == nil {
            throw options.fail("--wait waits for a device named with --video or --audio")
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
        // SIGUSR1 triggers a clip; in a recording without clips it is ignored rather than ending it.
        RecordingSession.takeClipTriggerSignal()
        // A reader that goes away (`| head -c1`, a FIFO closed) is EPIPE on that write, reported
        // with the file finalized as far as it goes, not a silent death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let devices = [request.video.map { ($0, Device.Kind.video) }, request.audio.map { ($0, Device.Kind.audio) }]
        if let wait, !(try wait.run(devices.compactMap { $0 }, stop: stop, quiet: quiet)) { return 0 }
        let session = try RecordingSession(plan: RecordingPlanner.plan(request), stop: stop)
        let quiet = self.quiet
        let progressLine = !quiet && isatty(STDERR_FILENO) == 1
        // On a terminal a warning clears the progress line first, which the next one redraws.
        session.onWarning = { line in
            if !quiet { printError((progressLine ? "\r\u{1B}[K" : "") + "Warning: \(line)\n") }
        }
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
        return try report(result)
    }

    /// Prints the summary (on stderr when stdout carries the recording) and the error that
    /// ended the recording, if any.
    ///
    /// - Returns: the exit status: the failure's, 74 when stdout could not be written, else 0.
    private func report(_ result: RecordingResult) throws -> Int32 {
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
}
