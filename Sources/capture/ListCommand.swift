import CaptureCore

/// `capture list`: every camera and microphone, with the index and name that select it.
struct ListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List cameras and microphones.",
        discussion: """
            Cameras are V4L2 nodes whose device capabilities include video capture. Microphones \
            are ALSA capture PCMs (the cards' devices; default, dsnoop, pulse, pipewire and the \
            PCMs of your own asoundrc from the ALSA configuration) and PulseAudio sources. The \
            built-in test sources are always listed. The index or the name selects a device in \
            'capture probe' and 'capture record' (--video 0, --audio hw:CARD=PCH,DEV=0).
            """,
        options: [
            .json,
            .flag(
                "--all",
                help:
                    "Also show V4L2 nodes that are not cameras (metadata, output, VBI, radio, touch ...) and ALSA plugin PCMs that are not microphones (rate converters, mixers, null ...)."
            ),
            .flag("--video-only", help: "Show cameras only."),
            .flag("--audio-only", help: "Show microphones only."),
            .verbose,
            // For the shell completions: one selecting name per line, nothing to parse.
            .flag("--names", help: "Print the name of each device, one per line.", hidden: true),
        ],
        examples: [
            ("capture list", "Every camera and microphone, with the index and name that select it."),
            ("capture list --json --video-only", "The cameras as JSON."),
        ]
    )

    var json: Bool
    var all: Bool
    var video: Bool
    var audio: Bool
    var names: Bool

    init(_ arguments: ParsedArguments) throws {
        json = arguments.flag("--json")
        all = arguments.flag("--all")
        video = !arguments.flag("--audio-only")
        audio = !arguments.flag("--video-only")
        names = arguments.flag("--names")
        if !video && !audio {
            throw UsageError(message: "--video-only and --audio-only exclude each other", command: Self.spec)
        }
        if names && json {
            throw UsageError(message: "--names and --json exclude each other", command: Self.spec)
        }
    }

    func run() throws -> Int32 {
        let list = DeviceDiscovery.list(includeOther: all, video: video, audio: audio)
        if names {
            print(Self.names(list), terminator: "")
        } else if json {
            try printJSON(list)
        } else {
            print(Self.text(list, video: video, audio: audio, all: all), terminator: "")
        }
        return 0
    }

    /// Each camera's, then each microphone's selecting name on a line of its own, each name once
    /// (`test` is both); what the shell completions offer after `--video`, `--audio` and `probe`.
    static func names(_ list: DeviceList) -> String {
        var seen: Set<String> = []
        var out = ""
        for device in list.cameras + list.microphones where seen.insert(device.name).inserted {
            out += device.name + "\n"
        }
        return out
    }

    static func text(_ list: DeviceList, video: Bool, audio: Bool, all: Bool) -> String {
        var out = ""
        if video {
            out += "Cameras:\n" + list.cameras.map(row).joined()
        }
        if audio {
            out += (out.isEmpty ? "" : "\n") + "Microphones:\n" + list.microphones.map(row).joined()
        }
        if video && all {
            let nodes = list.other.filter { $0.api == .v4l2 }
            out += "\nOther V4L2 nodes:\n" + (nodes.isEmpty ? "  (none)\n" : nodes.map(row).joined())
        }
        if audio && all {
            let pcms = list.other.filter { $0.api == .alsa }
            out += "\nOther ALSA PCMs:\n" + (pcms.isEmpty ? "  (none)\n" : pcms.map(row).joined())
        }
        return out
    }

    private static func row(_ device: Device) -> String {
        let label = device.index.map { "[\($0)]" } ?? "   "
        var marks: [String] = []
        if device.role != "camera" && device.role != "microphone" { marks.append(device.role) }
        if device.isDefault { marks.append("default") }
        if device.isVirtual { marks.append("virtual") }
        if device.pulse?.monitor == true && !marks.contains("monitor") { marks.append("monitor") }
        var line = "  \(label) \(device.name)  \(device.description)"
        if !marks.isEmpty { line += "  (\(marks.joined(separator: ", ")))" }
        line += "\n"
        let pad = "      "
        if let v4l2 = device.v4l2 {
            // A node that could not be opened has no bus info: say only what is known.
            let facts = [
                v4l2.driver.isEmpty ? nil : "driver \(v4l2.driver)",
                v4l2.busInfo.isEmpty ? nil : "bus \(v4l2.busInfo)",
                v4l2.multiplanar ? "multiplanar" : nil,
            ].compactMap { $0 }
            if !facts.isEmpty { line += "\(pad)\(facts.joined(separator: ", "))\n" }
            if let stable = v4l2.stablePath { line += "\(pad)stable name \(stable)\n" }
        }
        if let alsa = device.alsa {
            var parts: [String] = []
            if let cardName = alsa.cardName, let cardIndex = alsa.cardIndex {
                parts.append("card \(cardIndex) \(cardName)")
            }
            if let deviceName = alsa.deviceName, let number = alsa.device {
                parts.append("device \(number) \(deviceName)")
            }
            if let free = alsa.subdevicesAvailable, let total = alsa.subdevicesTotal {
                parts.append("\(free)/\(total) subdevices free")
            }
            if !parts.isEmpty { line += "\(pad)\(parts.joined(separator: ", "))\n" }
            if let plug = alsa.plugName { line += "\(pad)with conversion: \(plug)\n" }
        }
        if let pulse = device.pulse {
            line += "\(pad)\(pulse.sampleSpec), \(pulse.channelMap)\n"
        }
        if let group = device.group { line += "\(pad)group \(group)\n" }
        if !device.accessible { line += "\(pad)not accessible: \(device.reason ?? "unknown reason")\n" }
        return line
    }
}
