/// Finds ALSA capture PCMs: every capture device of every card, then the capture PCMs of the ALSA
/// configuration. Cards are read through their control interface; no PCM is opened.
enum ALSADiscovery {
    /// What the ALSA configuration and the cards offer for capture, sorted for `capture list`.
    struct Listing {
        /// Card devices (`hw:CARD=<id>,DEV=<n>`) by card and device number, then the
        /// configuration's microphones in its own order: role `microphone`.
        var microphones: [Device]
        /// The other configuration PCMs (plugin definitions packages install), in the
        /// configuration's order: role `alsa-plugin`, for the full listing of `capture list`.
        var plugins: [Device]
    }

    /// The card devices and configuration PCMs, split into microphones and plugin definitions
    /// by ``ALSAConfigurationPCMs/isMicrophone(_:userDefined:)``.
    ///
    /// - Parameter servers: whether the sound servers answer; a bridge PCM (`pulse`, `pipewire`)
    ///   whose server does not is listed not accessible.
    static func listing(servers: SoundServerBridge.Servers) -> Listing {
        // Reading the configuration runs its hooks, and libasound2-plugins' pulse hook connects
        // through libpulse, which prints its own complaints to stderr.
        StandardErrorRoute.routing { unroutedListing(servers: servers) }
    }

    private static func unroutedListing(servers: SoundServerBridge.Servers) -> Listing {
        let cards = ALSACard.all()
        let userDefined = ALSAUserConfiguration.pcmNames()
        var listing = Listing(microphones: cards.flatMap { $0.devices() }, plugins: [])
        for hint in configurationPCMs() {
            if ALSAConfigurationPCMs.isMicrophone(hint.name, userDefined: userDefined) {
                listing.microphones.append(device(hint: hint, cards: cards, role: "microphone", servers: servers))
            } else {
                listing.plugins.append(device(hint: hint, cards: cards, role: pluginRole, servers: servers))
            }
        }
        return listing
    }

    /// The microphones of ``listing()``: what `capture list` shows and indexes.
    static func capturePCMs() -> [Device] {
        listing(servers: .init()).microphones
    }

    /// The role of a configuration PCM that is not a microphone.
    static let pluginRole = "alsa-plugin"

    /// The configuration's capture PCMs: those libasound's name hints report, then the
    /// hardware-backed ones it leaves out (a `type hw` entry in an asoundrc).
    private static func configurationPCMs() -> [ALSAConfigurationPCMs.Hint] {
        let hints = ALSAConfigurationPCMs.hints()
        return hints + ALSAConfigurationPCMs.unhintedHardwarePCMs(excluding: Set(hints.map(\.name)))
    }

    /// Looks an ALSA PCM name up.
    ///
    /// `hw:`/`plughw:` names are checked against the cards, by number or id, so `hw:1,0` and
    /// `hw:CARD=Loopback,DEV=0` give the same device (named in the `CARD=` form). Any other name
    /// must be a PCM the ALSA configuration defines; a plugin definition that `capture list`
    /// shows only with the full listing opens as well, with role `alsa-plugin`.
    ///
    /// - Throws: `.deviceNotFound` listing the microphones `capture list` shows; `.notSupported`
    ///   for a card device that only plays.
    static func device(pcm: String) throws(CaptureError) -> Device {
        // As in listing(): the configuration's hooks may print through libpulse.
        let result = StandardErrorRoute.routing { () -> Result<Device, CaptureError> in
            do throws(CaptureError) { return .success(try unroutedDevice(pcm: pcm)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private static func unroutedDevice(pcm: String) throws(CaptureError) -> Device {
        let cards = ALSACard.all()
        let hints = configurationPCMs()
        let userDefined = ALSAUserConfiguration.pcmNames()
        func role(_ name: String) -> String {
            ALSAConfigurationPCMs.isMicrophone(name, userDefined: userDefined) ? "microphone" : pluginRole
        }
        func notFound() -> CaptureError {
            let configured = hints.map(\.name).filter { role($0) == "microphone" }
            return .deviceNotFound(
                device: pcm, valid: cards.flatMap { $0.devices() }.map(\.name) + configured, hint: nil)
        }
        if let hardware = ALSAHardwareName(pcm) {
            guard let card = cards.first(where: { $0.id == hardware.card || "\($0.index)" == hardware.card }) else {
                throw notFound()
            }
            if var device = card.devices().first(where: { $0.alsa?.device == hardware.device }) {
                if hardware.plug || hardware.subdevice != nil {
                    device.name = ALSAHardwareName.canonical(
                        plug: hardware.plug, cardID: card.id, device: hardware.device, subdevice: hardware.subdevice)
                }
                return device
            }
            if let name = card.playbackOnly[hardware.device] {
                throw .notSupported(
                    device: pcm,
                    reason:
                        "device \(hardware.device) of card \(card.index) (\(card.id)) is a playback device (\(name)), it cannot capture"
                )
            }
            throw notFound()
        }
        let servers = SoundServerBridge.Servers.asking(for: ALSAConfigurationPCMs.soundServer(pcm) ?? "")
        if let hint = hints.first(where: { $0.name == pcm }) {
            return device(hint: hint, cards: cards, role: role(pcm), servers: servers)
        }
        if ALSAConfigurationPCMs.defines(pcm) {
            return device(
                hint: .init(name: pcm, description: "ALSA PCM from the configuration"), cards: cards, role: role(pcm),
                servers: servers)
        }
        throw notFound()
    }

    /// A configuration PCM as a device; one that captures from a card in the end
    /// (`dsnoop:CARD=x,DEV=n`, an asoundrc `type hw` entry, a plug over one) carries that card's
    /// details and group, so a busy card can be traced to the process holding it.
    /// A bridge to a sound server that does not answer is not accessible, with the reason.
    private static func device(
        hint: ALSAConfigurationPCMs.Hint, cards: [ALSACard], role: String, servers: SoundServerBridge.Servers
    ) -> Device {
        let unavailable = SoundServerBridge.unavailableReason(pcm: hint.name, servers: servers)
        var details: ALSADetails?
        var group: String?
        let target = ALSAConfigurationPCMs.hardwareTarget(hint.name) ?? ALSAConfigurationPCMs.cardArgument(hint.name)
        if let argument = target,
            let card = cards.first(where: { $0.id == argument.card || "\($0.index)" == argument.card })
        {
            let pcm = card.capture.first { $0.number == argument.device }
            details = ALSADetails(
                cardIndex: card.index, cardID: card.id, cardName: card.name.isEmpty ? nil : card.name,
                device: argument.device, deviceName: pcm.flatMap { $0.name.isEmpty ? nil : $0.name })
            group = PhysicalDevice.groupID(deviceLink: "/sys/class/sound/card\(card.index)/device")
        }
        return Device(
            name: hint.name, kind: .audio, api: .alsa, role: role,
            description: hint.description.isEmpty ? "ALSA PCM \(hint.name)" : hint.description,
            isDefault: hint.name == "default", isVirtual: !hint.isHardware, accessible: unavailable == nil,
            reason: unavailable, group: group, alsa: details)
    }
}
