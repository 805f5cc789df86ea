internal import CALSA
import FoundationEssentials
import Glibc

/// A card's simple mixer (libasound's `snd_mixer_*`, what amixer uses), opened on `hw:N`: the
/// elements that bear on capture, read and written. Closed in deinit.
///
/// The mixer is the card's control interface, not a PCM: it answers while a program records
/// from the microphone.
public final class ALSAMixer {
    private let handle: OpaquePointer
    /// `hw:N`.
    public let card: String

    /// Opens and loads the simple mixer of `card` (`hw:1`).
    ///
    /// Wraps snd_mixer_open, snd_mixer_attach, snd_mixer_selem_register and snd_mixer_load.
    /// - Throws: `CaptureError.permissionDenied` (77) when the control device may not be opened,
    ///   `.failed` otherwise.
    public init(card: String) throws(CaptureError) {
        var opened: OpaquePointer?
        guard snd_mixer_open(&opened, 0) >= 0, let opened else { throw .failed("\(card): snd_mixer_open failed") }
        for (call, result) in [
            ("snd_mixer_attach", snd_mixer_attach(opened, card)),
            ("snd_mixer_selem_register", snd_mixer_selem_register(opened, nil, nil)),
            ("snd_mixer_load", snd_mixer_load(opened)),
        ] where result < 0 {
            snd_mixer_close(opened)
            if Errno(rawValue: -result).isPermission { throw .permissionDenied(device: card, group: "audio") }
            throw .failed("\(card): \(call) failed: \(ALSAText.string(snd_strerror(result)) ?? "\(result)")")
        }
        handle = opened
        self.card = card
    }

    deinit { snd_mixer_close(handle) }

    /// The active elements with a capture volume, a capture switch or a capture enum, in the
    /// mixer's order.
    public func elements() -> [MixerElement] {
        var result: [MixerElement] = []
        var element = snd_mixer_first_elem(handle)
        while let current = element {
            defer { element = snd_mixer_elem_next(current) }
            if let read = read(current) { result.append(read) }
        }
        return result
    }

    private func read(_ element: OpaquePointer) -> MixerElement? {
        guard snd_mixer_selem_is_active(element) != 0 else { return nil }
        let volume = snd_mixer_selem_has_capture_volume(element) != 0
        let captureSwitch = snd_mixer_selem_has_capture_switch(element) != 0
        let enumerated =
            snd_mixer_selem_is_enum_capture(element) != 0
            || (snd_mixer_selem_is_enumerated(element) != 0 && snd_mixer_selem_has_playback_volume(element) == 0
                && snd_mixer_selem_has_playback_switch(element) == 0
                && (ALSAText.string(snd_mixer_selem_get_name(element)) ?? "").lowercased().contains(
                    /capture|input|source/))
        guard volume || captureSwitch || enumerated else { return nil }
        var out = MixerElement(
            name: ALSAText.string(snd_mixer_selem_get_name(element)) ?? "",
            index: Int(snd_mixer_selem_get_index(element)),
            capabilities: (volume ? ["cvolume"] : []) + (captureSwitch ? ["cswitch"] : [])
                + (enumerated ? ["enum"] : []),
            items: [], channels: [])
        if volume {
            var low = 0
            var high = 0
            snd_mixer_selem_get_capture_volume_range(element, &low, &high)
            out.minimum = low
            out.maximum = high
            if snd_mixer_selem_get_capture_dB_range(element, &low, &high) >= 0 {
                out.minimumDB = Double(low) / 100
                out.maximumDB = Double(high) / 100
            }
        }
        if enumerated {
            let count = max(0, Int(snd_mixer_selem_get_enum_items(element)))
            out.items = (0..<count).map { index in
                var name = [CChar](repeating: 0, count: 128)
                snd_mixer_selem_get_enum_item_name(element, UInt32(index), name.count, &name)
                return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        for raw in 0...Int32(SND_MIXER_SCHN_LAST.rawValue) {
            let channel = snd_mixer_selem_channel_id_t(rawValue: raw)
            let present =
                (volume || captureSwitch)
                ? snd_mixer_selem_has_capture_channel(element, channel) != 0 : raw == 0
            guard present else { continue }
            let mono = volume && snd_mixer_selem_is_capture_mono(element) != 0
            out.channels.append(readChannel(channel, of: element, as: out, mono: mono))
            if mono { break }
        }
        return out
    }

    /// One capture channel of `element`, whose ranges and items `described` already holds: its
    /// volume (raw, percent, dB), switch and item, as far as the element has them.
    private func readChannel(
        _ channel: snd_mixer_selem_channel_id_t, of element: OpaquePointer, as described: MixerElement, mono: Bool
    ) -> MixerElement.Channel {
        var entry = MixerElement.Channel(
            name: mono ? "Mono" : ALSAText.string(snd_mixer_selem_channel_name(channel)) ?? "\(channel.rawValue)")
        if described.capabilities.contains("cvolume") {
            var value = 0
            if snd_mixer_selem_get_capture_volume(element, channel, &value) >= 0 {
                entry.volume = value
                if let low = described.minimum, let high = described.maximum, high > low {
                    entry.percent = Int((Double(value - low) * 100 / Double(high - low)).rounded())
                }
            }
            if described.minimumDB != nil, snd_mixer_selem_get_capture_dB(element, channel, &value) >= 0 {
                entry.dB = Double(value) / 100
            }
        }
        if described.capabilities.contains("cswitch") {
            var on: Int32 = 0
            if snd_mixer_selem_get_capture_switch(element, channel, &on) >= 0 { entry.captureOn = on != 0 }
        }
        if described.capabilities.contains("enum") {
            var item: UInt32 = 0
            if snd_mixer_selem_get_enum_item(element, channel, &item) >= 0, Int(item) < described.items.count {
                entry.item = described.items[Int(item)]
            }
        }
        return entry
    }

    /// Checks every setting against its element first, then writes them, then reads back.
    ///
    /// A write the card fails half-way through a set (an element's volume taken, its switch
    /// refused) puts back every element the set wrote, the failing one included, to its state
    /// before the set, then reads the card back through a mixer opened afresh (libasound's
    /// simple mixer keeps the value of a write that failed as if it had gone in) and says in the
    /// error what that proved: "Mic was put back to ...", which element holds what, or "nothing
    /// was set".
    ///
    /// - Returns: per element, the state before and after.
    /// - Throws: `.usage` (64) for an element the card does not have (listing them, the nearest
    ///   suggested), `.notSupported` (69) for a value the element does not take; nothing is
    ///   written then. A write the card fails: `.io` (74) for an I/O error, `.notSupported` (69)
    ///   for a value it refuses, `.failed` otherwise, once what went in was put back.
    public func apply(_ settings: [ControlSetting], device: String) throws(CaptureError) -> [MixerChange] {
        let before = elements()
        var planned: [(MixerElement, [MixerWrite])] = []
        for setting in settings {
            let (name, index) = Self.splitIndex(setting.name)
            guard
                let element = before.first(where: {
                    $0.name.equalsIgnoringCase(name) && (index == nil || $0.index == index)
                })
            else {
                let names = before.map(\.name)
                let nearest = names.min {
                    ControlPlan.editDistance($0.lowercased(), name.lowercased())
                        < ControlPlan.editDistance($1.lowercased(), name.lowercased())
                }
                var message = "\(device) has no capture mixer element '\(setting.name)'"
                if let nearest, ControlPlan.editDistance(nearest.lowercased(), name.lowercased()) <= 3 {
                    message += "; did you mean '\(nearest)'?"
                }
                throw .usage(OptionText(message + " Elements: " + names.map { "'\($0)'" }.joined(separator: ", ")))
            }
            do throws(ControlValueParser.Rejection) {
                planned.append((element, try MixerWrite.parse(setting.value, for: element)))
            } catch {
                throw .notSupported(
                    device: device, reason: "\(element.name)=\(setting.value) \(error.reason); nothing was set")
            }
        }
        // The elements the set has written to, in order, as they were before it.
        var written: [MixerElement] = []
        for (element, writes) in planned {
            guard let pointer = find(element) else { continue }
            written.append(element)
            for write in writes {
                let result: Int32
                switch write {
                case .raw(let value): result = snd_mixer_selem_set_capture_volume_all(pointer, value)
                case .centiDB(let value): result = snd_mixer_selem_set_capture_dB_all(pointer, value, 0)
                case .captureSwitch(let on): result = snd_mixer_selem_set_capture_switch_all(pointer, on ? 1 : 0)
                case .item(let index):
                    result = snd_mixer_selem_set_enum_item(pointer, SND_MIXER_SCHN_FRONT_LEFT, UInt32(index))
                }
                if result < 0 {
                    throw Self.failure(result, element: element.name, device: device, outcome: putBack(written))
                }
            }
        }
        snd_mixer_handle_events(handle)
        let after = elements()
        return planned.map { element, _ in
            MixerChange(
                name: element.name, before: element,
                after: after.first { $0.name == element.name && $0.index == element.index } ?? element)
        }
    }

    /// Puts `written` (elements as they were before a set) back, last written first, through a
    /// mixer opened afresh, whose values are the card's own; then reads the card back.
    ///
    /// - Returns: what holds, as the end of the error line.
    private func putBack(_ written: [MixerElement]) -> String {
        func same(_ element: MixerElement, in elements: [MixerElement]?) -> MixerElement? {
            elements?.first { $0.name == element.name && $0.index == element.index }
        }
        let after = (try? ALSAMixer(card: card))?.elements()
        let changed = written.filter { same($0, in: after)?.holdsState(of: $0) != true }
        if let mixer = try? ALSAMixer(card: card) {
            for element in changed.reversed() { mixer.write(state: element) }
        }
        let now = (try? ALSAMixer(card: card))?.elements()
        var parts: [String] = []
        for element in written {
            guard let current = same(element, in: now) else {
                parts.append("\(element.name) cannot be read back")
                continue
            }
            if !current.holdsState(of: element) {
                parts.append("\(element.name) holds \(current.stateText) (it was \(element.stateText))")
            } else if changed.contains(element) {
                parts.append("\(element.name) was put back to \(element.stateText)")
            }
        }
        return parts.isEmpty ? "nothing was set" : parts.joined(separator: ", ")
    }

    /// Writes the capture volume, switch and item of each of `element`'s channels as it holds
    /// them. What the card refuses is left; the caller reads back.
    private func write(state element: MixerElement) {
        guard let pointer = find(element) else { return }
        for channel in element.channels {
            guard let id = Self.channelID(named: channel.name) else { continue }
            if let volume = channel.volume { snd_mixer_selem_set_capture_volume(pointer, id, volume) }
            if let on = channel.captureOn { snd_mixer_selem_set_capture_switch(pointer, id, on ? 1 : 0) }
            if let item = channel.item, let index = element.items.firstIndex(of: item) {
                snd_mixer_selem_set_enum_item(pointer, id, UInt32(index))
            }
        }
    }

    /// The channel `name` names (`Front Left`; `Mono` is the first channel, as `read` lists it).
    private static func channelID(named name: String) -> snd_mixer_selem_channel_id_t? {
        if name == "Mono" { return SND_MIXER_SCHN_FRONT_LEFT }
        for raw in 0...Int32(SND_MIXER_SCHN_LAST.rawValue) {
            let channel = snd_mixer_selem_channel_id_t(rawValue: raw)
            if ALSAText.string(snd_mixer_selem_channel_name(channel)) == name { return channel }
        }
        return nil
    }

    /// The error for a write libasound failed with `code` (a negative errno).
    private static func failure(_ code: Int32, element: String, device: String, outcome: String) -> CaptureError {
        let text = ALSAText.string(snd_strerror(code)) ?? "\(code)"
        switch Errno(rawValue: -code) {
        case .ioError:
            return .io(subject: device, reason: "\(element): writing the mixer failed: \(text); \(outcome)")
        case .invalidArgument, .outOfRange, .permissionDenied, .notPermitted:
            return .notSupported(device: device, reason: "\(element): the card refused the value (\(text)); \(outcome)")
        default:
            return .failed("\(device): \(element): the card refused the value: \(text); \(outcome)")
        }
    }

    private func find(_ wanted: MixerElement) -> OpaquePointer? {
        var element = snd_mixer_first_elem(handle)
        while let current = element {
            if ALSAText.string(snd_mixer_selem_get_name(current)) == wanted.name,
                Int(snd_mixer_selem_get_index(current)) == wanted.index
            {
                return current
            }
            element = snd_mixer_elem_next(current)
        }
        return nil
    }

    /// `Mic,1` -> ("Mic", 1); `Capture` -> ("Capture", nil).
    static func splitIndex(_ name: String) -> (String, Int?) {
        guard let comma = name.lastIndex(of: ","), let index = Int(name[name.index(after: comma)...]) else {
            return (name, nil)
        }
        return (String(name[..<comma]), index)
    }

    /// The card (`hw:N`) of an ALSA microphone, or nil for a plugin PCM without one.
    public static func card(of device: Device) -> String? {
        device.alsa?.cardIndex.map { "hw:\($0)" }
    }
}

/// One mixer element before and after a set.
public struct MixerChange: Codable, Hashable, Sendable {
    public var name: String
    public var before: MixerElement
    public var after: MixerElement
}
