/// A device argument as the user typed it, before it is looked up.
///
/// Forms: a V4L2 node path (`/dev/video0`, `/dev/v4l/by-id/...`, `v4l2:PATH`); an ALSA PCM name
/// (`hw:CARD=PCH,DEV=0`, `hw:1,0`, `plughw:...`, `default`, any configured PCM, `alsa:NAME`); a
/// PulseAudio source (`pulse:NAME`, `pulse:` for the server's default); `test`; `lavfi:GRAPH`; or
/// an index from `capture list`.
public enum DeviceName: Hashable, Sendable, CustomStringConvertible {
    case v4l2(path: String)
    case alsa(pcm: String)
    /// `nil` is the server's default source.
    case pulse(source: String?)
    case test
    case lavfi(graph: String)
    /// The n-th camera or microphone of `capture list`, counted from 0.
    case index(Int)

    /// Parses a device argument. Only the form is checked here; whether the device exists is
    /// decided by `DeviceResolver`.
    ///
    /// - Throws: `CaptureError.usage` for an empty name or an empty `v4l2:`/`alsa:`/`lavfi:` body.
    public init(parsing text: String) throws(CaptureError) {
        func body(_ prefix: String) throws(CaptureError) -> String? {
            guard text.hasPrefix(prefix) else { return nil }
            let rest = String(text.dropFirst(prefix.count))
            if rest.isEmpty && prefix != "pulse:" {
                throw .usage("'\(text)': missing the name after '\(prefix)'")
            }
            return rest
        }
        if text.isEmpty { throw .usage("empty device name") }
        if let path = try body("v4l2:") {
            self = .v4l2(path: path)
        } else if let pcm = try body("alsa:") {
            self = .alsa(pcm: pcm)
        } else if let source = try body("pulse:") {
            self = .pulse(source: source.isEmpty ? nil : source)
        } else if let graph = try body("lavfi:") {
            self = .lavfi(graph: graph)
        } else if text == "test" {
            self = .test
        } else if let index = Int(text), index >= 0, text.allSatisfy(\.isASCII) {
            self = .index(index)
        } else if text.hasPrefix("/") || text.hasPrefix("./") || text.hasPrefix("../") {
            self = .v4l2(path: text)
        } else {
            self = .alsa(pcm: text)
        }
    }

    /// The canonical spelling, which `init(parsing:)` reads back to the same value.
    public var description: String {
        switch self {
        case .v4l2(let path): path.hasPrefix("/") ? path : "v4l2:\(path)"
        case .alsa(let pcm):
            // A PCM called "test" or "0", or one that looks like a path, needs its prefix.
            (try? DeviceName(parsing: pcm)) == self ? pcm : "alsa:\(pcm)"
        case .pulse(let source): "pulse:\(source ?? "")"
        case .test: "test"
        case .lavfi(let graph): "lavfi:\(graph)"
        case .index(let index): "\(index)"
        }
    }

    /// True when an ALSA name looks like a PulseAudio or PipeWire source name
    /// (`alsa_input.pci-0000_00_1f.3.analog-stereo`, `*.monitor`), which ALSA will never open.
    public var looksLikePulseSource: Bool {
        guard case .alsa(let pcm) = self else { return false }
        return pcm.hasPrefix("alsa_input.") || pcm.hasPrefix("alsa_output.")
            || pcm.hasPrefix("bluez_") || pcm.hasSuffix(".monitor") || pcm.hasPrefix("auto_null")
    }
}
