import CaptureCore

/// `capture probe` for microphones: the text and JSON forms of a `MicrophoneProbe`.
enum MicrophoneProbeText {
    /// Probes an ALSA or PulseAudio device and prints the result.
    static func run(_ device: Device, json: Bool) throws -> Int32 {
        let probe = try MicrophoneProber.probe(device)
        if json {
            try printJSON(probe)
        } else {
            print(text(probe), terminator: "")
        }
        return 0
    }

    /// The readable form: one line per parameter, ranges as ALSA writes them (`[min max]`,
    /// a round bracket for an open end), unbounded ends as "no limit".
    static func text(_ probe: MicrophoneProbe) -> String {
        let device = probe.device
        var out = "\(device.name)  \(device.description)\n"
        var rows: [(String, String)] = []
        if let alsa = device.alsa, let card = alsa.cardIndex {
            var value = "\(card) \(alsa.cardID ?? "")"
            if let name = alsa.cardName { value += " (\(name))" }
            rows.append(("Card", value))
            if let number = alsa.device {
                var device = "\(number)"
                if let name = alsa.deviceName { device += " (\(name))" }
                if let free = alsa.subdevicesAvailable, let total = alsa.subdevicesTotal {
                    device += ", \(free)/\(total) subdevices free"
                }
                rows.append(("Device", device))
            }
        }
        if let group = device.group { rows.append(("Group", group)) }
        if let caps = probe.alsa {
            rows.append(("PCM type", caps.pcmType))
            rows.append(("Sample formats", caps.formats.isEmpty ? "none" : caps.formats.joined(separator: " ")))
            let counts = caps.channelCounts.map { $0.map(String.init).joined(separator: " ") }
            rows.append(("Channels", counts ?? range(caps.channels)))
            var rates = caps.standardRates.map(String.init).joined(separator: " ")
            if rates.isEmpty { rates = "none of the standard rates" }
            rows.append(("Sample rates", "\(rates) Hz (range \(range(caps.rates)))"))
            rows.append(("Period size", "\(range(caps.periodFrames)) frames, \(range(caps.periodMicroseconds)) µs"))
            rows.append(("Periods", range(caps.periods)))
            rows.append(("Buffer size", "\(range(caps.bufferFrames)) frames, \(range(caps.bufferMicroseconds)) µs"))
            rows.append(("Access", caps.access.joined(separator: " ")))
        }
        if let pulse = probe.pulse {
            rows.append(("Source", pulse.source + (pulse.isDefault ? " (default)" : "")))
            if pulse.monitor { rows.append(("Monitor of", pulse.monitorOf ?? "a sink")) }
            rows.append(("Sample format", pulse.sampleFormat))
            rows.append(("Sample rate", "\(pulse.sampleRate) Hz"))
            rows.append(("Channels", "\(pulse.channels) (\(pulse.channelMap.joined(separator: ", ")))"))
            if let driver = pulse.driver { rows.append(("Driver", driver)) }
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            out += "  \(label):" + String(repeating: " ", count: width - label.count + 1) + value + "\n"
        }
        return out
    }

    static func range(_ range: ALSARange) -> String {
        if range.min == range.max && !range.minOpen && !range.maxOpen { return "\(range.min)" }
        let high = range.max == UInt32.max ? "no limit" : "\(range.max)"
        return "\(range.minOpen ? "(" : "[")\(range.min) \(high)\(range.maxOpen ? ")" : "]")"
    }
}
