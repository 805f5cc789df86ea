import FoundationEssentials
import Glibc

/// One ALSA simple-mixer element of a microphone's card that bears on capture: a capture
/// volume (raw units and dB), a capture switch, a capture source enum. Read by `ALSAMixer`.
///
/// JSON (snake_case keys) is the `mixer` list of the `capture controls` JSON for a microphone.
public struct MixerElement: Codable, Hashable, Sendable {
    /// One channel's state.
    public struct Channel: Codable, Hashable, Sendable {
        /// ALSA's channel name: `Front Left`, `Mono`.
        public var name: String
        /// Capture volume in the driver's raw units.
        public var volume: Int?
        /// The volume as amixer shows it, 0-100 over the raw range.
        public var percent: Int?
        /// The volume in dB.
        public var dB: Double?
        /// The capture switch: true when capturing.
        public var captureOn: Bool?
        /// The chosen item of an enum element.
        public var item: String?

        enum CodingKeys: String, CodingKey { case name, volume, percent, dB = "db", captureOn, item }
    }

    /// The mixer name (`Capture`, `Mic Boost`, `Mic`).
    public var name: String
    /// The index that tells elements of one name apart (amixer's `'Mic',1`).
    public var index: Int
    /// amixer's capability words: `cvolume`, `cswitch`, `enum`.
    public var capabilities: [String]
    /// The raw capture volume range.
    public var minimum: Int?
    public var maximum: Int?
    /// The capture volume range in dB, when the driver gives one.
    public var minimumDB: Double?
    public var maximumDB: Double?
    /// The items of an enum element (`Mic`, `Line`).
    public var items: [String]
    public var channels: [Channel]

    enum CodingKeys: String, CodingKey {
        case name, index, capabilities, minimum, maximum, minimumDB = "minimumDb", maximumDB = "maximumDb", items,
            channels
    }

    public var hasVolume: Bool { capabilities.contains("cvolume") }
    public var hasSwitch: Bool { capabilities.contains("cswitch") }
    public var isEnum: Bool { capabilities.contains("enum") }

    /// True when `other`'s channels hold what this element's do: volume, switch and item.
    func holdsState(of other: MixerElement) -> Bool {
        channels.count == other.channels.count
            && zip(channels, other.channels).allSatisfy {
                $0.volume == $1.volume && $0.captureOn == $1.captureOn && $0.item == $1.item
            }
    }

    /// The capture state for messages, amixer's words: `80 [-6.00dB] [on]`, each channel named
    /// where they differ (`Front Left 80 [-6.00dB], Front Right 0 [-45.00dB]`).
    var stateText: String {
        func text(_ channel: Channel) -> String {
            var parts: [String] = []
            if let volume = channel.volume { parts.append("\(volume)") }
            if let dB = channel.dB { parts.append("[\(MixerWrite.dB(dB))]") }
            if let on = channel.captureOn { parts.append(on ? "[on]" : "[off]") }
            if let item = channel.item { parts.append("'\(item)'") }
            return parts.joined(separator: " ")
        }
        let texts = channels.map(text)
        guard Set(texts).count > 1 else { return texts.first ?? "" }
        return zip(channels, texts).map { "\($0.name) \($1)" }.joined(separator: ", ")
    }

    /// A raw volume from a percentage, rounded as amixer rounds.
    func raw(percent: Double) -> Int? {
        guard let minimum, let maximum else { return nil }
        return minimum + Int((percent * Double(maximum - minimum) / 100).rounded())
    }
}

/// What to write to one mixer element, parsed from `NAME=VALUE`: a volume (raw, `NN%`, `-6dB`),
/// the capture switch (`on`/`off`, `cap`/`nocap`), an enum item; several joined by commas
/// (`Capture=-6dB,on`).
enum MixerWrite: Hashable, Sendable {
    case raw(Int)
    /// Hundredths of a dB, as libasound takes them.
    case centiDB(Int)
    case captureSwitch(Bool)
    case item(Int)

    /// Parses `text` for `element`, checking ranges before anything is written.
    ///
    /// - Throws: `ControlValueParser.Rejection` saying what the element takes.
    static func parse(_ text: String, for element: MixerElement) throws(ControlValueParser.Rejection) -> [MixerWrite] {
        var writes: [MixerWrite] = []
        for part in text.split(separator: ",").map({ $0.trimmingSpaces() }) {
            let lower = part.lowercased()
            if element.isEnum, let index = element.items.firstIndex(where: { $0.lowercased() == lower }) {
                writes.append(.item(index))
            } else if ["on", "off", "cap", "nocap", "true", "false"].contains(lower) {
                guard element.hasSwitch else {
                    throw .init(reason: "is a switch setting, but \(element.name) has no capture switch")
                }
                writes.append(.captureSwitch(["on", "cap", "true"].contains(lower)))
            } else if lower.hasSuffix("db"), let decibels = Double(lower.dropLast(2)) {
                guard element.hasVolume, let low = element.minimumDB, let high = element.maximumDB else {
                    throw .init(reason: "is in dB, but \(element.name) has no capture volume in dB")
                }
                guard decibels >= low - 0.005, decibels <= high + 0.005 else {
                    throw .init(reason: "is out of range; \(element.name) takes \(dB(low)) to \(dB(high))")
                }
                writes.append(.centiDB(Int((decibels * 100).rounded())))
            } else if lower.hasSuffix("%"), let percent = Double(lower.dropLast()) {
                guard element.hasVolume, let raw = element.raw(percent: percent) else {
                    throw .init(reason: "is a volume, but \(element.name) has no capture volume")
                }
                guard (0...100).contains(percent) else {
                    throw .init(reason: "is out of range; percentages run 0% to 100%")
                }
                writes.append(.raw(raw))
            } else if let raw = Int(lower) {
                guard element.hasVolume, let minimum = element.minimum, let maximum = element.maximum else {
                    throw .init(reason: "is a volume, but \(element.name) has no capture volume")
                }
                guard (minimum...maximum).contains(raw) else {
                    throw .init(
                        reason: "is out of range; \(element.name) takes \(minimum) to \(maximum) (raw), 0% to 100%"
                            + (element.minimumDB.map { " or \(dB($0)) to \(dB(element.maximumDB ?? $0))" } ?? ""))
                }
                writes.append(.raw(raw))
            } else {
                throw .init(reason: "is not a value for \(element.name); it takes \(takes(element))")
            }
        }
        if writes.isEmpty { throw .init(reason: "is empty; \(element.name) takes \(takes(element))") }
        return writes
    }

    static func dB(_ value: Double) -> String { String(cFormat: "%.2fdB", value) }

    static func takes(_ element: MixerElement) -> String {
        var parts: [String] = []
        if element.hasVolume, let minimum = element.minimum, let maximum = element.maximum {
            parts.append("\(minimum) to \(maximum) (raw), 0% to 100%")
            if let low = element.minimumDB, let high = element.maximumDB { parts.append("\(dB(low)) to \(dB(high))") }
        }
        if element.hasSwitch { parts.append("on/off") }
        if element.isEnum { parts.append(element.items.map { "'\($0)'" }.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
