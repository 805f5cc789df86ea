internal import CALSA
import FoundationEssentials
import Glibc

/// The PCMs that the ALSA configuration defines for capture (what `arecord -L` lists), and which of
/// them are microphones: `default`, `dsnoop`, `pulse`, `pipewire`, and the entries of the user's
/// `.asoundrc`, as against the plugin definitions packages install.
enum ALSAConfigurationPCMs {
    /// One hint from `snd_device_name_hint`.
    struct Hint: Hashable, Sendable {
        var name: String
        /// The description lines joined into one ("Loopback, Loopback PCM - Direct sample snooping device").
        var description: String
        /// The PCM is a `type hw` entry itself (a card device with narrowed parameters), not a
        /// plugin.
        var isHardware = false
    }

    /// The per-card expansions that name the same hardware as the card entries of `capture list`
    /// (`hw:CARD=x,DEV=n` and its plug, sysdefault, front and surround variants).
    private static let cardDuplicates = ["hw", "plughw", "sysdefault", "front"]
    /// Per-card expansions that only play (S/PDIF, HDMI, mixing, USB streaming to the us122l),
    /// although their hints carry no direction.
    private static let playbackOnly = ["dmix", "iec958", "spdif", "hdmi", "usbstream"]

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
            guard !isCardDuplicate(name), !isPlaybackOnly(name), seen.insert(name).inserted else { continue }
            let lines = (ALSAText.take(snd_device_name_get_hint(hint, "DESC")) ?? "")
                .split(whereSeparator: \.isNewline)
                .map { $0.trimmingSpaces() }
                .filter { !$0.isEmpty }
            result.append(Hint(name: name, description: lines.joined(separator: " - ")))
        }
        return result
    }

    /// Families that are microphones whoever defines them: ALSA's default capture path
    /// (`default`, `sysdefault`), the sound-server bridges (`pulse`, `pipewire`) and capture
    /// sharing over a card (`dsnoop:CARD=x,DEV=n`). JACK is left out with the other bridges and
    /// converters: its definition exists whether or not a JACK server ever runs.
    static let microphoneFamilies: Set<String> = ["default", "sysdefault", "pulse", "pipewire", "dsnoop"]

    /// The PCM name without its arguments: `dsnoop` for `dsnoop:CARD=Loopback,DEV=1`.
    static func family(_ name: String) -> String {
        name.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? name
    }

    /// True when a configuration PCM is a microphone for `capture list`: one of the
    /// ``microphoneFamilies``, or defined in the user's own files (`userDefined`, the names
    /// ``ALSAUserConfiguration/pcmNames()`` finds). Every other configuration PCM is a plugin
    /// definition a package installed (a rate converter, a mixer, `null`), listed only with the full listing.
    static func isMicrophone(_ name: String, userDefined: Set<String>) -> Bool {
        let family = family(name)
        return microphoneFamilies.contains(family) || userDefined.contains(family)
    }

    static func isPlaybackOnly(_ name: String) -> Bool {
        let prefix = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name
        return name.contains(":") && playbackOnly.contains(prefix)
    }

    static func isCardDuplicate(_ name: String) -> Bool {
        let prefix = name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name
        guard name.contains(":") else { return false }
        return cardDuplicates.contains(prefix) || prefix.hasPrefix("surround")
    }

    /// True when the ALSA configuration defines `name` (with its arguments, as in `dsnoop:1`),
    /// whether or not it has a hint. Wraps `snd_config_update_ref` (a counted reference to the
    /// global configuration, rather than the unsynchronized `snd_config` variable) and
    /// `snd_config_search_definition`; nothing is opened. Expanding a definition can run the
    /// PulseAudio plugin's configuration hook, whose libpulse prints to stderr when `$HOME` is
    /// unusable (a service user's): that goes to the library log (`StandardErrorRoute`).
    static func defines(_ name: String) -> Bool {
        StandardErrorRoute.routing {
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
    }

    /// Configuration PCMs that `snd_device_name_hint` never reports although they open as they
    /// are: entries without arguments (an asoundrc's `pcm.mic { type hw; card X; device 1; ... }`
    /// names a device, which makes libasound skip it outside its per-card pass) that capture
    /// from a card in the end. In the configuration's order, without the names in `excluding`.
    static func unhintedHardwarePCMs(excluding: Set<String>) -> [Hint] {
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let root = top else { return [] }
        defer { snd_config_unref(root) }
        guard let pcms = child(root, "pcm"), snd_config_get_type(pcms) == SND_CONFIG_TYPE_COMPOUND else { return [] }
        var result: [Hint] = []
        var cursor = snd_config_iterator_first(pcms)
        let end = snd_config_iterator_end(pcms)
        while cursor != end, let entry = snd_config_iterator_entry(cursor) {
            cursor = snd_config_iterator_next(cursor)
            var id: UnsafePointer<CChar>?
            guard snd_config_get_id(entry, &id) >= 0, let name = ALSAText.string(id), !excluding.contains(name) else {
                continue
            }
            // Entries with arguments (hw, dsnoop, ...) are templates; with a hint, the hint list has them.
            guard snd_config_get_type(entry) == SND_CONFIG_TYPE_COMPOUND, child(entry, "@args") == nil,
                child(entry, "hint") == nil, let target = follow(node: entry, root: root, depth: 0)
            else { continue }
            let isHardware = child(entry, "type").flatMap(text) == "hw"
            result.append(
                Hint(
                    name: name, description: "ALSA PCM on card \(target.card) device \(target.device)",
                    isHardware: isHardware))
        }
        return result
    }

    /// The card and device a configuration PCM captures from in the end, found by following its
    /// definition down to a `type hw` PCM: through `slave.pcm` (plug, rate, dsnoop, speex ...)
    /// and `capture.pcm` (asym), by name or inline, with its arguments expanded. Wraps
    /// `snd_config_search_definition` and the `snd_config_get_*` readers; nothing is opened.
    ///
    /// - Returns: the card as the configuration names it (a number or an id) and the device
    ///   number (ALSA's default 0 when none is given); nil when the chain ends elsewhere (null,
    ///   pulse, a file) or is deeper than 8 links.
    static func hardwareTarget(_ name: String) -> (card: String, device: Int)? {
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let root = top else { return nil }
        defer { snd_config_unref(root) }
        return follow(name: name, root: root, depth: 0)
    }

    /// The sound server a configuration PCM captures through in the end: `pulse` or `pipewire`
    /// when its definition, followed through aliases, `slave.pcm` (plug, rate, softvol, ...) and
    /// `capture.pcm` (asym), reaches a PCM of `type pulse` or `type pipewire`; nil otherwise.
    /// `default` overridden by an asoundrc (`pcm.!default { type pulse }`), `sysdefault` overrides
    /// and a user's own aliases all count. Wraps `snd_config_search_definition`; nothing is opened.
    static func soundServer(_ name: String) -> String? {
        let direct = family(name)
        if direct == "pulse" || direct == "pipewire" { return direct }
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let root = top else { return nil }
        defer { snd_config_unref(root) }
        return server(name: name, root: root, depth: 0)
    }

    private static func server(name: String, root: OpaquePointer, depth: Int) -> String? {
        var definition: OpaquePointer?
        guard depth < 8, snd_config_search_definition(root, "pcm", name, &definition) >= 0, let definition else {
            return nil
        }
        defer { snd_config_delete(definition) }
        return server(node: definition, root: root, depth: depth + 1)
    }

    private static func server(node: OpaquePointer, root: OpaquePointer, depth: Int) -> String? {
        guard depth < 8 else { return nil }
        if snd_config_get_type(node) == SND_CONFIG_TYPE_STRING {
            return text(node).flatMap { server(name: $0, root: root, depth: depth + 1) }
        }
        let type = child(node, "type").flatMap(text)
        if type == "pulse" || type == "pipewire" { return type }
        guard let next = child(node, "slave.pcm") ?? child(node, "capture.pcm") else { return nil }
        return server(node: next, root: root, depth: depth + 1)
    }

    private static func follow(name: String, root: OpaquePointer, depth: Int) -> (card: String, device: Int)? {
        var definition: OpaquePointer?
        guard depth < 8, snd_config_search_definition(root, "pcm", name, &definition) >= 0, let definition else {
            return nil
        }
        defer { snd_config_delete(definition) }
        return follow(node: definition, root: root, depth: depth + 1)
    }

    private static func follow(node: OpaquePointer, root: OpaquePointer, depth: Int) -> (card: String, device: Int)? {
        guard depth < 8 else { return nil }
        if snd_config_get_type(node) == SND_CONFIG_TYPE_STRING {
            return text(node).flatMap { follow(name: $0, root: root, depth: depth + 1) }
        }
        let type = child(node, "type").flatMap(text)
        if type == "hw" {
            guard let card = child(node, "card").flatMap(text) else { return nil }
            let device = child(node, "device").flatMap(text).flatMap { Int($0) } ?? 0
            return (card, device)
        }
        // A `slave` given as a bare string names a pcm_slave definition, not a PCM; those are rare
        // enough in capture set-ups to end the search there.
        guard let next = child(node, "slave.pcm") ?? child(node, "capture.pcm") else { return nil }
        return follow(node: next, root: root, depth: depth + 1)
    }

    private static func child(_ node: OpaquePointer, _ key: String) -> OpaquePointer? {
        var found: OpaquePointer?
        guard snd_config_search(node, key, &found) >= 0 else { return nil }
        return found
    }

    /// A string or integer leaf as text.
    private static func text(_ node: OpaquePointer) -> String? {
        switch snd_config_get_type(node) {
        case SND_CONFIG_TYPE_STRING:
            var value: UnsafePointer<CChar>?
            guard snd_config_get_string(node, &value) >= 0 else { return nil }
            return ALSAText.string(value)
        case SND_CONFIG_TYPE_INTEGER:
            var value = 0
            guard snd_config_get_integer(node, &value) >= 0 else { return nil }
            return "\(value)"
        case SND_CONFIG_TYPE_INTEGER64:
            var value: Int64 = 0
            guard snd_config_get_integer64(node, &value) >= 0 else { return nil }
            return "\(value)"
        default:
            return nil
        }
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
