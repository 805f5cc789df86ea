import CaptureCore
import FoundationEssentials
import Glibc

/// `capture meter`: a microphone's live levels, without recording.
struct MeterCommand: Command {
    static let spec = CommandSpec(
        name: "meter",
        abstract: "Show a microphone's live levels without recording, for setting its gain.",
        discussion: """
            Opens the microphone as 'capture record --audio' would (the same sample rate and \
            channels, or those asked) and shows each channel's peak in dBFS: on a terminal a \
            meter redrawn ten times a second, otherwise one line per --interval. Peaks at 0 dBFS \
            are clipped (CLIP); -inf is digital silence. A microphone that delivers digital \
            silence (every sample below -90 dBFS) for 5 s is warned about once, with its mixer, \
            and again when sound returns. Ends after --duration seconds of audio, or on Ctrl-C \
            (SIGINT), SIGTERM or SIGHUP with exit status 0, then prints the peak, RMS, clipped \
            samples and seconds of silence over the whole run. With --json, each reading is an \
            audio_level line (peak, RMS and clipped samples per channel) and the summary a JSON \
            object.
            """,
        arguments: [
            ArgumentSpec(
                name: "device",
                help:
                    "Microphone: index or name from 'capture list' (hw:CARD=PCH,DEV=0, pulse:NAME), 'test', or lavfi:GRAPH.",
                kind: .device(.audio))
        ],
        options: [
            .option(
                "--duration", "seconds", help: "Measure this many seconds of audio, then stop.", default: "until Ctrl-C"
            ),
            .option(
                "--interval", "seconds", help: "Audio between readings, at least 0.1.",
                default: "0.1 on a terminal, 1 otherwise"),
            .option("--sample-rate", "Hz", help: "Sample rate to ask the microphone for."),
            .option("--channels", "n", help: "Channels to ask the microphone for."),
            .option(
                "--stall-timeout", "seconds", help: "End with exit 74 when the microphone sends nothing for this long.",
                default: "5"),
            .waitOption,
            .json,
            .flag("--quiet", help: "Print no readings, only the summary (and errors); with --json too."),
            .verbose,
        ],
        examples: [
            ("capture meter hw:CARD=PCH,DEV=0", "Watch a microphone's levels while setting its gain; Ctrl-C ends."),
            ("capture meter test --duration 5 --json", "Five seconds of the test tone's levels as JSON lines."),
        ]
    )

    var request: MicrophoneMeter.Request
    var json: Bool
    var quiet: Bool
    var wait: DeviceWaitOption?
    /// True when the readings redraw one line on a terminal.
    var redraws: Bool

    init(_ arguments: ParsedArguments) throws {
        func number<T: LosslessStringConvertible & Comparable>(_ name: String, _ range: ClosedRange<T>) throws -> T? {
            try arguments.number(name, range, command: Self.spec)
        }
        json = arguments.flag("--json")
        quiet = arguments.flag("--quiet")
        redraws = !json && isatty(STDOUT_FILENO) == 1
        request = MicrophoneMeter.Request(device: try DeviceName(parsing: arguments.positionals[0]))
        request.duration = try number("--duration", 0.1...DurationValue.longest)
        request.interval = try number("--interval", 0.1...3600.0) ?? (redraws ? 0.1 : 1)
        request.sampleRate = try number("--sample-rate", 1000...768_000)
        request.channels = try number("--channels", 1...64)
        request.stallTimeout = try number("--stall-timeout", 0.1...3600.0) ?? 5
        wait = try DeviceWaitOption(arguments, command: Self.spec)
    }

    func run() throws -> Int32 {
        let stop = StopSignal()
        stop.installHandlers()
        signal(SIGPIPE, SIG_IGN)
        if let wait, !(try wait.run([(request.device, .audio)], stop: stop, quiet: quiet)) { return 0 }
        let meter = MicrophoneMeter(request: request, stop: stop)
        let (json, quiet, redraws) = (json, quiet, redraws)
        meter.onWarning = { line in
            if !quiet { printError((redraws ? "\r\u{1B}[K" : "") + "Warning: \(line)\n") }
        }
        meter.onReading = { event in
            guard !quiet else { return }
            if json {
                try? printJSONLine(event)
            } else {
                let line = Self.readingText(event)
                print(redraws ? "\r\(line)\u{1B}[K" : line, terminator: redraws ? "" : "\n")
                flushStandardOutput()
            }
            // A reader that went away (`| head -1`) ends the meter, as Ctrl-C would.
            if standardOutputFailure() != nil { stop.request() }
        }
        let summary = try meter.run()
        if redraws && !quiet { print("") }
        if json {
            try printJSON(summary)
        } else {
            print(Self.summaryText(summary), terminator: "")
        }
        return 0
    }

    /// `00:00:01.0  L [########..] -12.0  R [#######...] -15.1 dBFS`
    static func readingText(_ e: RecordingEvent) -> String {
        let end = (e.start ?? 0) + (e.duration ?? 0)
        let clock = String(
            cFormat: "%02d:%02d:%04.1f", Int(end) / 3600, Int(end) / 60 % 60, end.truncatingRemainder(dividingBy: 60))
        return "\(clock)  " + LevelText.meter(AudioLevel(channels: e.channels ?? []))
    }

    /// `Measured hw:1: 5.0 s of pcm_s16le s16 48000 Hz 2 channels, peak -6.0 dBFS, RMS -9.0 dBFS,
    /// 0 clipped, 0.0 s of digital silence`
    static func summaryText(_ s: MicrophoneMeter.Summary) -> String {
        var out = "Measured \(s.device): \(String(cFormat: "%.1f", s.duration)) s"
        if !s.input.isEmpty { out += " of \(s.input)" }
        if let l = s.levels {
            out +=
                ", peak \(LevelText.decibels(l.peak)) dBFS, RMS \(LevelText.decibels(l.rms)) dBFS, "
                + "\(l.clipped) clipped, \(String(cFormat: "%.1f", l.secondsSilent)) s of digital silence"
        }
        if let signal = s.stoppedBy { out += " (stopped by \(signal))" }
        return out + "\n"
    }
}
