internal import CALSA
import Foundation

/// The PCMs that the ALSA configuration defines for capture (what `arecord -L` lists):
/// `default`, `dsnoop`, `pulse`, `pipewire`, and the entries of the user's `.asoundrc`.
enum ALSAConfigurationPCMs {
    /// One hint from `snd_device_name_hint`.
    struct Hint: Hashable, Sendable {
        var name: String
        /// The description lines joined into one ("Loopback, Loopback PCM - Direct sample snooping device").
        var description: String
    }

    /// The per-card expansions that name the same hardware as the card entries of `capture list`
    /// (`hw:CARD=x,DEV=n` and its plug, sysdefault, front and surround variants).
    private static let cardDuplicates = ["hw", "plughw", "sysdefault", "front"]

    /// Every capture-capable PCM of the configuration (IOID `Input` or none), in the
    /// configuration's order, without the per-card duplicates and without repeats.
    ///
    /// Wraps `snd_device_name_hint(-1, "pcm")`; nothing is opened. A broken configuration gives
    /// an empty list (libasound's own complaint goes to the library log).
    static func hints() -> [Hint] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var result: [Hint] = []
        var seen = Set<String>()
        var cursor = hints
        while let hint = cursor.pointee {
            cursor += 1
            guard let name = ALSAText.take(snd_device_name_get_hint(hint, "NAME")) else { continue }
            let direction = ALSAText.take(snd_device_name_get_hint(hint, "IOID"))
            guard direction == nil || direction == "Input" else { continue }
            guard !isCardDuplicate(name), seen.insert(name).inserted else { continue }
            let lines = (ALSAText.take(snd_device_name_get_hint(hint, "DESC")) ?? "")
                .split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            result.append(Hint(name: name, description: lines.joined(separator: " - ")))
        }
        return result
    }

    static func isCardDuplicate(_ name: String) -> Bool {
        let prefix = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name
        guard name.contains(":") else { return false }
        return cardDuplicates.contains(prefix) || prefix.hasPrefix("surround")
    }

    /// True when the ALSA configuration defines `name` (with its arguments, as in `dsnoop:1`),
    /// whether or not it has a hint. Wraps `snd_config_update_ref` (a counted reference to the
    /// global configuration, rather than the unsynchronized `snd_config` variable) and
    /// `snd_config_search_definition`; nothing is opened.
    static func defines(_ name: String) -> Bool {
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let root = top else { return false }
        defer { snd_config_unref(root) }
        var definition: OpaquePointer?
        guard snd_config_search_definition(root, "pcm", name, &definition) >= 0, let definition else {
            return false
        }
        snd_config_delete(definition)
        return true
    }

    /// The card a configuration PCM names in a `CARD=` argument (`dsnoop:CARD=Loopback,DEV=1`).
    static func cardArgument(_ name: String) -> (card: String, device: Int?)? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        var card: String?
        var device: Int?
        for part in name[name.index(after: colon)...].split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "CARD" { card = String(pair[1]) }
            if pair[0] == "DEV" { device = Int(pair[1]) }
        }
        return card.map { ($0, device) }
    }
}
