/// Finds PulseAudio sources (also those of PipeWire's pulse server) through libpulse. No server
/// means no sources, never an error, and costs at most the connection timeout.
enum PulseDiscovery {
    /// The sources of the running server as `capture list` entries, named `pulse:NAME`; monitors
    /// of sinks have the role "monitor"; the server's default source is marked.
    static func sources(connection: PulseConnection) -> [Device] {
        guard let sources = connection.sources() else { return [] }
        let defaultName = connection.defaultSourceName()
        return sources.map { device($0, isDefault: $0.name == defaultName) }
    }

    /// Looks a source up by name; nil is the server's default source.
    ///
    /// - Throws: `.deviceNotFound` listing the sources there are; `.notSupported` (69) when no
    ///   server answers.
    static func device(source: String?) throws(CaptureError) -> Device {
        let display = display(source: source)
        guard let connection = PulseConnection(), let sources = connection.sources() else {
            throw .notSupported(
                device: display,
                reason: "no PulseAudio server is running; start pulseaudio or pipewire-pulse, or set PULSE_SERVER")
        }
        let defaultName = connection.defaultSourceName()
        let wanted = source ?? defaultName
        guard let found = sources.first(where: { $0.name == wanted }) else {
            throw .deviceNotFound(
                device: display, valid: sources.map { "pulse:\($0.name)" },
                hint: source == nil ? "the server has no default source" : nil)
        }
        return device(found, isDefault: found.name == defaultName)
    }

    /// True when a server answers now (`PulseConnection`): at most the connection timeout.
    static func serverAnswers() -> Bool { PulseConnection() != nil }

    /// How messages name a source: `pulse:NAME`, or the default source.
    static func display(source: String?) -> String { source.map { "pulse:\($0)" } ?? "pulse: (the default source)" }

    private static func device(_ source: PulseSource, isDefault: Bool) -> Device {
        Device(
            name: "pulse:\(source.name)", kind: .audio, api: .pulse,
            role: source.isMonitor ? "monitor" : "microphone",
            description: source.description.isEmpty ? source.name : source.description,
            isDefault: isDefault, isVirtual: !source.isHardware,
            pulse: PulseDetails(
                source: source.name, monitor: source.isMonitor, sampleSpec: source.sampleSpec,
                channelMap: source.channelPositions.joined(separator: ",")))
    }
}
