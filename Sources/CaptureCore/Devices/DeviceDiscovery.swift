/// Finds every camera and microphone: V4L2 nodes, ALSA capture PCMs, PulseAudio sources and the
/// built-in test sources.
///
/// Nothing is opened for streaming; V4L2 nodes are opened only for VIDIOC_QUERYCAP, ALSA cards
/// through the control interface. Safe to call from any thread.
public enum DeviceDiscovery {
    /// Lists the devices of the kinds asked for.
    ///
    /// - Parameters:
    ///   - includeOther: also return, in `other`, the V4L2 nodes that are not cameras (with
    ///     `video`) and the ALSA configuration's plugin PCMs that are not microphones (with
    ///     `audio`), unnumbered (the full listing). The numbering of cameras and microphones is the same
    ///     either way.
    ///   - video: include cameras.
    ///   - audio: include microphones.
    /// - Returns: cameras and microphones numbered from 0 in the order device indices
    ///   count them in: hardware first (cameras by node number), the built-in test sources last.
    public static func list(includeOther: Bool = false, video: Bool = true, audio: Bool = true) -> DeviceList {
        var cameras: [Device] = []
        var other: [Device] = []
        if video {
            for node in V4L2Discovery.nodes() {
                if node.role == "camera" { cameras.append(node) } else if includeOther { other.append(node) }
            }
            cameras.append(TestSources.video)
        }
        var microphones: [Device] = []
        if audio {
            // One libpulse connection answers both whether the `pulse` PCM works and which
            // sources there are.
            let pulse = PulseConnection()
            let servers = SoundServerBridge.Servers(
                pulse: pulse != nil, pipewire: SoundServerBridge.pipewireAnswers())
            let alsa = ALSADiscovery.listing(servers: servers)
            microphones = alsa.microphones + (pulse.map { PulseDiscovery.sources(connection: $0) } ?? [])
            microphones.append(TestSources.audio)
            if includeOther { other += alsa.plugins }
        }
        number(&cameras)
        number(&microphones)
        // With no name given, `record` takes the first real camera; audio defaults are decided
        // by ALSA's and PulseAudio's own configuration.
        if let first = cameras.indices.first, cameras[first].api == .v4l2 { cameras[first].isDefault = true }
        return DeviceList(cameras: cameras, microphones: microphones, other: other)
    }

    private static func number(_ devices: inout [Device]) {
        for i in devices.indices { devices[i].index = i }
    }
}
