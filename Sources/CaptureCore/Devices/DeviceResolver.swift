/// Turns a device argument into the device it names, or the error the user needs.
public enum DeviceResolver {
    /// Looks `name` up as a device of `kind`.
    ///
    /// An index counts cameras (`.video`) or microphones (`.audio`) as `capture list` numbers them.
    /// A path is checked as a V4L2 node, an ALSA name against the cards and the ALSA configuration,
    /// a `pulse:` name against the server.
    ///
    /// - Returns: the device, as `capture list` would show it.
    /// - Throws: `CaptureError.deviceNotFound` (66) listing the valid names, with a hint to use
    ///   `pulse:` for a PulseAudio-style name given as ALSA, or to `capture list` for a camera name
    ///   that neither V4L2 nor ALSA knows; `.wrongKind` (66) for a known name of the other kind;
    ///   `.permissionDenied` (77);
    ///   `.notSupported` (69) for a node that is not a capture device of that kind.
    ///   A PCM that leads to a sound server (`pulse`, `pipewire`, or `default` and any alias or plug
    ///   chain that resolves to one) whose server does not run is `.notSupported`
    ///   (69) with the fix, rather than libasound's connection error at open.
    public static func resolve(_ name: DeviceName, kind: Device.Kind) throws(CaptureError) -> Device {
        let device = try lookUp(name, kind: kind)
        if device.api == .alsa, !device.accessible,
            let reason = device.reason, ALSAConfigurationPCMs.soundServer(device.name) != nil
        {
            throw .notSupported(device: device.name, reason: "\(reason); \(SoundServerBridge.fix(pcm: device.name))")
        }
        return device
    }

    private static func lookUp(_ name: DeviceName, kind: Device.Kind) throws(CaptureError) -> Device {
        switch name {
        case .test:
            return kind == .video ? TestSources.video : TestSources.audio
        case .lavfi(let graph):
            return Device(
                name: name.description, kind: kind, api: .lavfi, role: kind == .video ? "camera" : "microphone",
                description: "lavfi \(graph)", isVirtual: true, lavfiGraph: graph)
        case .index(let index):
            let list = DeviceDiscovery.list(video: kind == .video, audio: kind == .audio)
            let devices = kind == .video ? list.cameras : list.microphones
            guard devices.indices.contains(index) else {
                throw .deviceNotFound(
                    device: "\(kind == .video ? "camera" : "microphone") \(index)",
                    valid: devices.map { "\($0.index ?? 0) (\($0.name))" }, hint: nil)
            }
            return devices[index]
        case .v4l2(let path):
            if kind == .audio {
                throw .wrongKind(device: path, what: "a camera name", valid: names(.audio), validKind: "microphones")
            }
            return try V4L2Discovery.device(path: path)
        case .alsa(let pcm):
            if kind == .video {
                // Only a name ALSA knows is a microphone name; any other word is a camera name
                // nobody has, and saying it is ALSA's would send the user the wrong way.
                guard ALSAHardwareName(pcm) != nil || ALSAConfigurationPCMs.defines(pcm) else {
                    throw .deviceNotFound(
                        device: pcm, valid: names(.video),
                        hint: "not a camera name or a V4L2 node (see capture list)")
                }
                throw .wrongKind(
                    device: pcm, what: "an ALSA microphone name", valid: names(.video), validKind: "cameras")
            }
            do {
                return try ALSADiscovery.device(pcm: pcm)
            } catch .deviceNotFound(let device, _, let hint) {
                // Every microphone, not only ALSA's: the user may have meant any of them.
                let pulseHint: OptionText =
                    name.looksLikePulseSource
                    ? "this looks like a PulseAudio source name: use pulse:\(pcm)"
                    : "not an ALSA card or a PCM the ALSA configuration defines (see capture list)"
                throw .deviceNotFound(device: device, valid: names(.audio), hint: hint ?? pulseHint)
            }
        case .pulse(let source):
            if kind == .video {
                throw .wrongKind(
                    device: name.description, what: "a PulseAudio microphone name", valid: names(.video),
                    validKind: "cameras")
            }
            return try PulseDiscovery.device(source: source)
        }
    }

    /// The names `capture list` shows for one kind, test source included.
    private static func names(_ kind: Device.Kind) -> [String] {
        let list = DeviceDiscovery.list(video: kind == .video, audio: kind == .audio)
        return (kind == .video ? list.cameras : list.microphones).map(\.name)
    }
}
