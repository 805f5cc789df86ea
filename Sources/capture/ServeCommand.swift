import CaptureCore
import FoundationEssentials
import Glibc

/// `capture serve`: a camera's live picture over HTTP with nothing recorded.
struct ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve a camera's live picture over HTTP without recording (a preview server).",
        discussion: """
            The same server as 'capture record --serve': / is a page with the live picture and \
            the numbers, /stream multipart MJPEG (?action=stream and ?action=snapshot as \
            mjpg-streamer's), /snapshot.jpg the latest picture, /status.json the numbers, /events \
            the numbers as server-sent events. An MJPEG camera's pictures pass as the camera sent \
            them; others are decoded and JPEG-encoded at --serve-rate and at most --serve-size, \
            only while someone watches. It listens on 127.0.0.1 unless --listen says otherwise; \
            any other address needs --serve-token (or --serve-token-file), which every request \
            must then carry as 'Authorization: Bearer TOKEN' or ?token=TOKEN. An address in use \
            ends it with exit 73 before the camera opens. Ctrl-C (SIGINT), SIGTERM and SIGHUP \
            stop it; the exit status is then 0.
            """,
        arguments: [
            ArgumentSpec(
                name: "device", help: "Camera: index or name from 'capture list', 'test', or lavfi:GRAPH.",
                kind: .device(.video))
        ],
        options: [
            .option("--listen", "host:port", help: "Where to serve: 127.0.0.1:8080, :8080.", default: "127.0.0.1:8080"),
            .option(
                "--video-size", "WxH",
                help: "Frame size to ask the camera for: 1280x720, or a name FFmpeg knows such as hd720 or vga.",
                default: "the largest"),
            .option(
                "--input-format", "format",
                help:
                    "The camera's pixel format: its fourcc (YUYV, NM12, MJPG) or FFmpeg's name for it (yuyv422, nv12, mjpeg).",
                kind: .choices(FormatNames.cameraInputFormats)),
        ] + PreviewOptions.specs + [
            .option(
                "--stall-timeout", "seconds", help: "End with exit 74 when the camera sends nothing for this long.",
                default: "5"),
            .json,
            .flag("--quiet", help: "Print nothing but errors (and the --json summary)."),
            .verbose,
        ],
        examples: [
            ("capture serve test", "The test pattern at http://127.0.0.1:8080/."),
            (
                "capture serve /dev/video0 --listen 0.0.0.0:8080 --serve-token-file ~/.config/capture/token",
                "A camera for the local network, for requests that carry the token."
            ),
        ]
    )

    let device: DeviceName
    let videoSize: FrameDimensions?
    let inputFormat: String?
    let stallTimeout: Double
    let settings: PreviewSettings
    let json: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        device = try DeviceName(parsing: arguments.positionals[0])
        if let text = arguments.value("--video-size") {
            guard let size = FrameDimensions(videoSize: text), size.width <= 16384, size.height <= 16384 else {
                throw UsageError(
                    message:
                        "--video-size takes WIDTHxHEIGHT up to 16384x16384 (e.g. 1280x720) or a name such as hd720, not '\(text)'",
                    command: Self.spec)
            }
            videoSize = size
        } else {
            videoSize = nil
        }
        inputFormat = arguments.value("--input-format")
        stallTimeout = try arguments.number("--stall-timeout", 0.1...3600.0, command: Self.spec) ?? 5
        settings = try PreviewOptions.settings(
            arguments.value("--listen") ?? "127.0.0.1:8080", addressOption: "--listen", arguments, command: Self.spec)
        json = arguments.flag("--json")
        quiet = arguments.flag("--quiet")
    }

    func run() throws -> Int32 {
        let stop = StopSignal()
        stop.installHandlers()
        signal(SIGPIPE, SIG_IGN)
        let summary: LivePreview.Summary
        do {
            let preview = try LivePreview(
                device: device, videoSize: videoSize, inputFormat: inputFormat, stallTimeout: stallTimeout,
                settings: settings, stop: stop)
            let quiet = quiet
            let address = settings.address
            summary = try preview.run { name, input in
                // The link, never the token: it may be copied from a log.
                if !quiet { printError("Serving \(name) (\(input)) at http://\(address)/; Ctrl-C stops\n") }
            }
        } catch {
            let line = PreviewOptions.line(error, listen: true)
            if case .usage = error { throw UsageError(message: line, command: Self.spec) }
            printError("Error: \(line)\n")
            return error.exitCode
        }
        if json {
            try printJSON(summary)
        } else if !quiet {
            print(
                "Served \(summary.device): \(summary.frames) frames read, \(summary.pictures) pictures made, "
                    + "\(String(cFormat: "%.1f", summary.duration)) s")
        }
        return 0
    }
}
