import CaptureCore

/// `capture probe` for a camera: the text a person reads (laid out like v4l2-ctl's) and the JSON
/// shape scripts read.
enum CameraProbeText {
    /// The `probe --json` document for a camera:
    /// `{"api": "v4l2", "camera": CameraProbe, "summary": [SizeSummary]}`.
    struct Report: Encodable {
        var api = "v4l2"
        var camera: CameraProbe
        var summary: [SizeSummary]
    }

    /// Probes `device` (a V4L2 camera) and prints the text or JSON form; returns the exit status.
    static func run(_ device: Device, json: Bool) throws -> Int32 {
        let probe = try CameraProber.probe(path: device.v4l2?.path ?? device.name)
        if json {
            try printJSON(report(probe))
        } else {
            print(text(probe), terminator: "")
        }
        return 0
    }

    static func report(_ probe: CameraProbe) -> Report {
        Report(camera: probe, summary: SizeSummary.summarize(probe))
    }

    static func text(_ probe: CameraProbe) -> String {
        var out = "Camera \(probe.path)\n"
        func field(_ label: String, _ value: String) {
            out += "\t" + label.padded(toLength: 17) + ": \(value)\n"
        }
        field("Driver name", probe.driver)
        field("Card type", probe.card)
        field("Bus info", probe.busInfo)
        field("Device Caps", probe.capabilities.joined(separator: ", "))
        if let input = probe.input {
            field("Input", "\(input.index) (\(input.name))" + (input.dvTimings == true ? ", DV timings" : ""))
        }
        if probe.inputs.count > 1 {
            field("Inputs", probe.inputs.map { "\($0.index) \($0.name)" }.joined(separator: ", "))
        }
        if let current = probe.current {
            let rate = current.frameRate.map { " at \(fps($0))" } ?? ""
            field("Current format", "'\(current.fourcc)' \(current.width)x\(current.height)\(rate)")
            if let planes = current.planes, !planes.isEmpty { field("Memory planes", planesText(planes)) }
        }
        if let buffers = probe.bufferCount {
            field("Buffers", "\(buffers.min) to \(buffers.max)")
        }

        out += "\nHighest frame rate per frame size:\n"
        let summary = SizeSummary.summarize(probe)
        out += summary.isEmpty ? "\t(no frame sizes listed)\n" : summary.map { "\t\($0.text)\n" }.joined()

        var lastType = ""
        for (index, format) in probe.formats.enumerated() {
            if format.bufferType != lastType {
                lastType = format.bufferType
                out +=
                    "\nFormats (\(format.bufferType == "video-capture" ? "Video Capture" : "Video Capture Multiplanar")):\n"
            }
            var flags: [String] = []
            if format.compressed { flags.append("compressed") }
            if format.emulated { flags.append("emulated") }
            let ffmpeg = format.ffmpegName.map { "FFmpeg \($0)" } ?? "not capturable"
            out += "\t[\(index)]: '\(format.fourcc)' (\(format.description)) \(ffmpeg)"
            out += flags.isEmpty ? "\n" : ", \(flags.joined(separator: ", "))\n"
            for size in format.frameSizes {
                out += "\t\t\(sizeText(size)): \(ratesText(size.intervals, current: probe.current?.frameRate))\n"
            }
        }

        if !probe.controls.isEmpty {
            var lastClass: String?? = .none
            for control in probe.controls {
                if lastClass != .some(control.className) {
                    lastClass = .some(control.className)
                    out += "\n\(control.className ?? "Controls")\n\n"
                }
                out += controlText(control)
            }
        }
        return out
    }

    static func fps(_ rate: Rational) -> String { "\(rate.decimalDescription) fps" }

    static func sizeText(_ size: FrameSize) -> String {
        switch size.type {
        case .discrete: "\(size.min)"
        case .stepwise: "\(size.min) - \(size.max), step \(size.step)"
        case .continuous: "\(size.min) - \(size.max), any size"
        }
    }

    /// "30, 15, 7.5 fps" (exact intervals shown as fractions when the rate is not a round number).
    /// "2 (320 bytes per line, 57600 bytes; 320 bytes per line, 28800 bytes)".
    static func planesText(_ planes: [PlaneLayout]) -> String {
        let each = planes.map { "\($0.bytesPerLine) bytes per line, \($0.sizeImage) bytes" }
        return "\(planes.count) (\(each.joined(separator: "; ")))"
    }

    static func ratesText(_ intervals: FrameIntervals, current: Rational?) -> String {
        switch intervals.type {
        case .discrete:
            return intervals.discreteRates.map(\.decimalDescription).joined(separator: ", ") + " fps"
        case .stepwise, .continuous:
            let fastest = intervals.min.map { $0.inverted.decimalDescription } ?? "?"
            let slowest = intervals.max.map { $0.inverted.decimalDescription } ?? "?"
            let step = intervals.step.map { " (interval step \($0) s)" } ?? ""
            return "\(slowest) - \(fastest) fps\(step)"
        case .none:
            return "rate set by the input" + (current.map { " (now \(fps($0)))" } ?? "")
        }
    }

    /// One control in v4l2-ctl's `-L` layout.
    static func controlText(_ c: CameraControl) -> String {
        var parts: [String] = []
        switch c.type {
        case "bool":
            parts.append("default=\(c.defaultValue)")
        case "button":
            break
        case "bitmask":
            parts.append("max=0x" + String(UInt32(truncatingIfNeeded: c.maximum), radix: 16))
            parts.append("default=0x" + String(UInt32(truncatingIfNeeded: c.defaultValue), radix: 16))
        case "menu", "intmenu":
            parts += ["min=\(c.minimum)", "max=\(c.maximum)", "default=\(c.defaultValue)"]
        case "str":
            parts += ["min=\(c.minimum)", "max=\(c.maximum)", "step=\(c.step)"]
        default:
            parts += ["min=\(c.minimum)", "max=\(c.maximum)", "step=\(c.step)", "default=\(c.defaultValue)"]
        }
        if !c.dims.isEmpty { parts.append("dims=" + c.dims.map { "[\($0)]" }.joined()) }
        if let value = c.value {
            var text =
                c.type == "bitmask"
                ? "value=0x" + String(UInt32(truncatingIfNeeded: value), radix: 16) : "value=\(value)"
            if let entry = c.menu.first(where: { $0.index == value }) {
                text += " (\(entry.name ?? entry.value.map(String.init) ?? ""))"
            }
            parts.append(text)
        } else if let string = c.stringValue {
            parts.append("value='\(string)'")
        }
        if !c.flags.isEmpty { parts.append("flags=\(c.flags.joined(separator: ", "))") }
        let name = String(repeating: " ", count: max(0, 30 - c.name.count)) + c.name
        let type = ("(" + c.type + ")").padded(toLength: 10)
        var out = "\(name) \(type): \(parts.joined(separator: " "))\n"
        for entry in c.menu {
            out += "\t\t\t\t\(entry.index): \(entry.name ?? entry.value.map(String.init) ?? "")\n"
        }
        return out
    }
}
