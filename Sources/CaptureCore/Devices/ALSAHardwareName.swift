/// An ALSA name that addresses one card's PCM device directly: `hw:1,0`, `hw:CARD=Loopback,DEV=1`,
/// `hw:Loopback,1,0`, `plughw:CARD=1,DEV=0,SUBDEV=0`, `hw:1`.
///
/// Parsed here so that `hw:1,0` and `hw:CARD=Loopback,DEV=0` can be checked against the cards
/// that exist before libasound is asked, and so both spellings resolve to the same device.
struct ALSAHardwareName: Hashable, Sendable {
    /// `plughw` (ALSA converts format, rate and channels) rather than `hw`.
    var plug: Bool
    /// The card as given: a number ("1") or an id ("Loopback").
    var card: String
    /// The PCM device number; ALSA's default is 0.
    var device: Int
    /// The subdevice, when one was named.
    var subdevice: Int?

    /// Parses `hw[:ARGS]` / `plughw[:ARGS]`, where ARGS are CARD, DEV, SUBDEV given by position
    /// or as `KEY=VALUE`, values optionally in double or single quotes.
    ///
    /// - Returns: nil for any other PCM name, or when the arguments are not of that form.
    init?(_ name: String) {
        let prefix: Substring
        let rest: Substring
        if let colon = name.firstIndex(of: ":") {
            prefix = name[..<colon]
            rest = name[name.index(after: colon)...]
        } else {
            prefix = name[...]
            rest = ""
        }
        switch prefix {
        case "hw": plug = false
        case "plughw": plug = true
        default: return nil
        }
        let keys = ["CARD", "DEV", "SUBDEV"]
        var values: [String: String] = [:]
        var position = 0
        for part in rest.split(separator: ",", omittingEmptySubsequences: false) where !rest.isEmpty {
            var key: String
            var value: Substring
            if let equals = part.firstIndex(of: "=") {
                key = part[..<equals].uppercased()
                value = part[part.index(after: equals)...]
                guard keys.contains(key) else { return nil }
                position = keys.firstIndex(of: key)! + 1
            } else {
                guard position < keys.count else { return nil }
                key = keys[position]
                value = part
                position += 1
            }
            if value.count >= 2, let first = value.first, first == value.last, first == "\"" || first == "'" {
                value = value.dropFirst().dropLast()
            }
            guard !value.isEmpty, values[key] == nil else { return nil }
            values[key] = String(value)
        }
        card = values["CARD"] ?? "0"
        guard let device = Int(values["DEV"] ?? "0"), device >= 0 else { return nil }
        self.device = device
        if let text = values["SUBDEV"] {
            guard let subdevice = Int(text), subdevice >= -1 else { return nil }
            // -1 is ALSA's "any free subdevice", the same as naming none.
            self.subdevice = subdevice >= 0 ? subdevice : nil
        } else {
            subdevice = nil
        }
    }

    /// The canonical spelling for a card id: `hw:CARD=Loopback,DEV=1[,SUBDEV=0]`.
    static func canonical(plug: Bool, cardID: String, device: Int, subdevice: Int? = nil) -> String {
        var name = "\(plug ? "plughw" : "hw"):CARD=\(cardID),DEV=\(device)"
        if let subdevice { name += ",SUBDEV=\(subdevice)" }
        return name
    }
}
