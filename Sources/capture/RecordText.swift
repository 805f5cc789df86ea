import CaptureCore
import FoundationEssentials

/// `capture record`'s text: the progress line, the events and the summary.
extension RecordCommand {
    /// `00:00:04.2  126 frames  30.0 fps  0 dropped  1.1 MiB  2.2 Mbit/s`
    static func progressText(_ p: RecordingProgress) -> String {
        let seconds = max(0, p.elapsed)
        let clock = String(
            cFormat: "%02d:%02d:%04.1f", Int(seconds) / 3600, Int(seconds) / 60 % 60,
            seconds.truncatingRemainder(dividingBy: 60))
        return "\(clock)  \(p.frames) frames  \(String(cFormat: "%.1f", p.fps)) fps  \(p.dropped) dropped  "
            + "\(byteText(p.bytes))  \(String(cFormat: "%.1f", p.bitRate / 1e6)) Mbit/s"
            + p.levels.map { "  " + LevelText.meter($0) }.joined()
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

    /// `segment 3: cam-0003.mp4, 10.00 s from 20.00 s, 300 frames, 480000 samples, 1.2 MiB`, a
    /// clip's trigger, opening and closing alike, or a deletion; nil for the other events.
    static func segmentText(_ e: RecordingEvent) -> String? {
        switch e.event {
        case .segmentOpened, .deviceLost, .deviceBack, .sourceChanged, .audioLevel:
            // The next line reports an opened segment closed; a device's comings and goings are
            // warnings already.
            return nil
        case .trigger:
            return "trigger (\(e.reason ?? "")) at \(String(cFormat: "%.2f", e.start ?? 0)) s\n"
        case .clipOpened:
            return "clip \(e.number ?? 0): \(e.path ?? "") opened from \(String(cFormat: "%.2f", e.start ?? 0)) s\n"
        case .segmentClosed, .clipClosed:
            let counts = [e.frames.map { "\($0) frames" }, e.samples.map { "\($0) samples" }].compactMap { $0 }
            let kind = e.event == .clipClosed ? "clip" : "segment"
            var line =
                "\(kind) \(e.number ?? 0): \(e.path ?? ""), \(String(cFormat: "%.2f", e.duration ?? 0)) s from "
                + "\(String(cFormat: "%.2f", e.start ?? 0)) s, \((counts + [byteText(e.size ?? 0)]).joined(separator: ", "))"
            if let reason = e.reason { line += ", closed by \(reason)" }
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
        if let clips = s.clips {
            // Event clips: the recording ran its time, and only the clips are on disk.
            out =
                "Recorded \(String(cFormat: "%.2f", s.duration)) s with \(clips) clip\(clips == 1 ? "" : "s") of \(s.output) "
                + "(\(s.container), \(byteText(s.fileSize)))\n"
        }
        // With several cameras or microphones, each one's lines in the order given.
        for v in s.cameras ?? (s.video.map { [$0] } ?? []) { out += videoText(v, container: s.container) }
        for a in s.microphones ?? (s.audio.map { [$0] } ?? []) { out += audioText(a) }
        if let cameras = s.cameras {
            out += skewText(cameras, microphones: s.microphones ?? (s.audio.map { [$0] } ?? []))
        }
        if let offset = s.startOffset {
            out += "  audio/video start offset: \(String(cFormat: "%+.3f", offset)) s\n"
        }
        if let controls = s.controls { out += ControlsText.recorded(controls) }
        if let segments = s.segments { out += "  segments: \(segments) file\(segments == 1 ? "" : "s")\n" }
        if let preRoll = s.preRoll {
            out +=
                "  pre-roll: \(String(cFormat: "%.1f", preRoll.seconds)) s held at the end in \(byteText(preRoll.bytes))\n"
        }
        for file in s.files ?? [] {
            let series = file.segments.map { ", \($0) segment\($0 == 1 ? "" : "s")" } ?? ""
            out +=
                "  file: \(file.path): \(String(cFormat: "%.2f", file.duration)) s, \(byteText(file.fileSize))\(series)\n"
        }
        out += "  stopped by: \(s.stopReason)\n"
        if let problem = s.finishProblem { out += "  note: \(problem)\n" }
        let streams = s.streams ?? []
        for (index, stream) in streams.enumerated() {
            // Two streams to one server read alike once their keys are hidden: they are numbered.
            out += streamText(stream, number: streams.count > 1 ? index + 1 : nil)
        }
        return out
    }

    /// The lines of one camera's summary.
    static func videoText(_ v: RecordingSummary.Video, container: String) -> String {
        var out = ""
        var rate = "\(v.frameRate.decimalDescription) fps"
        if let delivered = v.frameRateDelivered {
            rate +=
                " (the camera delivered \(String(cFormat: "%.1f", delivered)) fps of the \(v.frameRate.decimalDescription) asked)"
        } else if let measured = v.frameRateMeasured {
            rate += " (measured \(String(cFormat: "%.2f", measured)))"
        }
        out += "  video: \(v.device) \(v.input) -> \(v.codec) \(v.pixelFormat) \(v.width)x\(v.height) \(rate)\n"
        if let budget = v.encoderBudget {
            let speed = budget.speed.map { ", \(EncoderBudget.times($0)) real time here" } ?? ""
            let how = budget.chosen ? "chosen" : "as asked"
            let lag = budget.keepsUp ? "" : ", too slow to keep up"
            out += "         preset \(budget.preset) (\(how)\(speed)\(lag))\n"
        }
        let d = v.framesDropped
        out +=
            "         \(v.framesWritten) frames written, \(d.total) dropped "
            + "(\(d.late) late, \(d.corrupt) corrupt, "
            + (d.device.map { "\($0) lost by the device" } ?? "\(d.gaps) in gaps")
            + "), starts at \(String(cFormat: "%.3f", v.start)) s\n"
        if let duplicated = v.framesDuplicated, duplicated > 0 {
            out +=
                "         \(duplicated) frame\(duplicated == 1 ? "" : "s") repeated to fill the slots the camera left empty "
                + "(\(container) stores no timestamps)\n"
        }
        if v.framesSkippedAtStart > 0 {
            out += "         \(v.framesSkippedAtStart) frames before the camera's first keyframe skipped\n"
        }
        out += reconnectText(v.reconnects, v.secondsDisconnected, what: "frames missing")
        return out
    }

    /// The worst skew between several devices: how far apart their streams start, their frames
    /// are taken, and their rates run.
    static func skewText(_ cameras: [RecordingSummary.Video], microphones: [RecordingSummary.Audio]) -> String {
        let starts = cameras.map(\.start) + microphones.map(\.start)
        var parts = ["streams start within \(String(cFormat: "%.3f", (starts.max() ?? 0) - (starts.min() ?? 0))) s"]
        if let phase = cameras.compactMap({ $0.framePhase.map(abs) }).max() {
            parts.append("frames taken up to \(String(cFormat: "%.1f", phase)) ms apart")
        }
        if let drift = cameras.compactMap({ $0.drift.map(abs) }).max() {
            parts.append("rates within \(String(cFormat: "%.0f", drift)) ppm of nominal")
        }
        return "  skew: \(parts.joined(separator: ", "))\n"
    }

    /// The lines of one microphone's summary.
    static func audioText(_ a: RecordingSummary.Audio) -> String {
        var out = ""
        var channels = a.channels == 1 ? "1 channel" : "\(a.channels) channels"
        if let layout = a.channelLayout, !["mono", "stereo", channels].contains(layout) {
            channels += " (\(layout))"
        }
        out += "  audio: \(a.device) \(a.input) -> \(a.codec) \(a.sampleFormat) \(a.sampleRate) Hz \(channels)\n"
        out +=
            "         \(a.samples) samples written, \(a.overruns) overruns, starts at \(String(cFormat: "%.3f", a.start)) s\n"
        out += reconnectText(a.reconnects, a.secondsDisconnected, what: "silence")
        if let l = a.levels {
            out +=
                "         peak \(LevelText.decibels(l.peak)) dBFS, RMS \(LevelText.decibels(l.rms)) dBFS, "
                + "\(l.clipped) clipped, \(String(cFormat: "%.1f", l.secondsSilent)) s of digital silence\n"
        }
        return out
    }
}
