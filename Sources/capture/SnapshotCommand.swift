import CaptureCore
import FoundationEssentials
import Glibc

/// `capture snapshot`: one still, or several at an interval, from a camera or the test source.
struct SnapshotCommand: Command {
    static let spec = CommandSpec(
        name: "snapshot",
        abstract: "Take a still picture (or several at an interval) from a camera or the test source.",
        discussion: """
            The picture format follows the output's extension: .jpg, .png, .ppm or .pgm. The camera \
            is opened in the largest size it offers unless --video-size says otherwise, and frames \
            are dropped for --settle seconds (default 1) so auto exposure can settle; --skip N drops \
            N frames instead, and --skip 0 takes the first. A camera's MJPEG frame goes to .jpg as \
            it came, after checking it decodes, with the Huffman tables a UVC camera leaves out put \
            in. With --count above 1, OUTPUT is a template: strftime fields such as %Y%m%d-%H%M%S \
            (local time, --utc for UTC) and %n for the number (0001, 0002 ...); without a field, \
            -0001 and so on is added before the extension. A single OUTPUT with fields has them \
            filled in too. Files appear whole (written beside the target and moved there) and an \
            existing file is never replaced without --force. Ctrl-C (SIGINT), SIGTERM and SIGHUP \
            stop it; the pictures taken so far stay and the exit status is 0.
            """,
        arguments: [
            ArgumentSpec(
                name: "device", help: "Camera: index or name from 'capture list', 'test', or lavfi:GRAPH.",
                kind: .device(.video)),
            ArgumentSpec(
                name: "output",
                help: "The picture to write, or a template with --count; the extension chooses the format.",
                kind: .file(extensions: StillFormat.extensions)),
        ],
        options: [
            .option(
                "--video-size", "WxH",
                help: "Frame size to ask the camera for: 1280x720, or a name FFmpeg knows such as hd720 or vga.",
                default: "the largest"),
            .option(
                "--input-format", "format",
                help:
                    "The camera's pixel format: its fourcc (YUYV, NM12, MJPG) or FFmpeg's name for it (yuyv422, nv12, mjpeg).",
                kind: .choices(FormatNames.cameraInputFormats)),
            .option("--skip", "n", help: "Drop this many frames before the first picture (0: take the first)."),
            .option(
                "--settle", "seconds", help: "Drop frames for this long before the first picture, at least 0.5.",
                default: "1"),
            .option("--count", "n", help: "Pictures to take.", default: "1"),
            .option("--interval", "seconds", help: "Time between pictures with --count.", default: "1"),
            .flag("--utc", help: "Fill in a template's time fields in UTC rather than local time."),
            .option(
                "--stall-timeout", "seconds", help: "End with exit 74 when the camera sends nothing for this long.",
                default: "5"),
            .waitOption,
            .flag("--force", help: "Overwrite pictures that exist."),
            .json,
            .flag("--quiet", help: "Print nothing but errors (and the --json summary)."),
            .verbose,
        ],
        examples: [
            ("capture snapshot test pattern.png", "One picture of the test pattern."),
            ("capture snapshot /dev/video0 door.jpg", "One picture from a camera at its largest size."),
            (
                "capture snapshot 0 --count 10 --interval 60 'cam-%Y%m%d-%H%M%S.jpg'",
                "Ten pictures a minute apart, named by the time each was taken."
            ),
        ]
    )

    var request: SnapshotRequest
    var json: Bool
    var quiet: Bool
    /// `--wait`, when given.
    var wait: DeviceWaitOption?

    init(_ arguments: ParsedArguments) throws {
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: Self.spec) }
        func number<T: LosslessStringConvertible & Comparable>(_ name: String, _ range: ClosedRange<T>) throws -> T? {
            try arguments.number(name, range, command: Self.spec)
        }
        request = SnapshotRequest(
            device: try DeviceName(parsing: arguments.positionals[0]), output: arguments.positionals[1])
        if let text = arguments.value("--video-size") {
            guard let size = FrameDimensions(videoSize: text), size.width <= 16384, size.height <= 16384 else {
                throw fail(
                    "--video-size takes WIDTHxHEIGHT up to 16384x16384 (e.g. 1280x720) or a name such as hd720, not '\(text)'"
                )
            }
            request.videoSize = size
        }
        request.inputFormat = arguments.value("--input-format")
        request.skip = try number("--skip", 0...100_000)
        request.settle = try number("--settle", 0.5...3600.0)
        if request.skip != nil && request.settle != nil {
            throw fail("--skip and --settle both say which frame comes first; give one of them")
        }
        request.count = try number("--count", 1...1_000_000) ?? 1
        if let interval: Double = try number("--interval", 0.001...86_400.0) {
            if request.count == 1 { throw fail("--interval applies with --count above 1") }
            request.interval = interval
        }
        request.utc = arguments.flag("--utc")
        request.stallTimeout = try number("--stall-timeout", 0.1...3600.0) ?? 5
        request.force = arguments.flag("--force")
        try Snapshooter.validate(request)
        json = arguments.flag("--json")
        quiet = arguments.flag("--quiet")
        wait = try DeviceWaitOption(arguments, command: Self.spec)
    }

    func run() throws -> Int32 {
        let stop = StopSignal()
        stop.installHandlers()
        signal(SIGPIPE, SIG_IGN)
        if let wait, !(try wait.run([(request.device, .video)], stop: stop, quiet: quiet)) { return 0 }
        let result = try Snapshooter(request: request, stop: stop).run()
        var summary = result.summary
        // The error as this command words it, with its own option names.
        if let failure = result.failure { summary.error = failure.line }
        if json {
            try printJSON(summary)
        } else if !quiet {
            print(Self.summaryText(summary), terminator: "")
        }
        if summary.stills.isEmpty, let signal = summary.stoppedBy {
            printError("capture: stopped by \(signal) before the first picture; nothing written\n")
        }
        if let failure = result.failure {
            printError("Error: \(failure.line)\n")
            return failure.exitCode
        }
        return 0
    }

    /// `Saved door.jpg: 1280x720 JPEG, 182.3 KiB, the camera's own (frame 31, 1.03 s)`
    static func summaryText(_ s: SnapshotSummary) -> String {
        var out = ""
        for still in s.stills {
            let how = still.copied ? "the camera's own JPEG" : "from \(s.input)"
            out +=
                "Saved \(still.path): \(still.width)x\(still.height) \(still.format.uppercased()), "
                + "\(RecordCommand.byteText(Int64(still.bytes))), \(how) (frame \(still.frame), "
                + "\(String(cFormat: "%.2f", still.time)) s)\n"
        }
        if let signal = s.stoppedBy, !s.stills.isEmpty {
            out += "Stopped by \(signal) after \(s.stills.count) of the pictures asked for\n"
        }
        return out
    }
}
