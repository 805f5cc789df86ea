/// What a PulseAudio source delivers natively, asked of the server: the sound server's side of
/// probing a microphone.
enum PulseSourceProbe {
    /// The native sample spec of a source `device(source:)` or `sources()` returned.
    static func capabilities(of device: Device) throws(CaptureError) -> PulseSourceCapabilities {
        let name = device.pulse?.source ?? String(device.name.dropFirst("pulse:".count))
        guard let connection = PulseConnection(), let sources = connection.sources() else {
            throw .deviceNotFound(device: device.name, valid: [], hint: "no PulseAudio server answers")
        }
        guard let source = sources.first(where: { $0.name == name }) else {
            throw .deviceNotFound(device: device.name, valid: sources.map { "pulse:\($0.name)" }, hint: nil)
        }
        return PulseSourceCapabilities(
            source: source.name, description: source.description, sampleFormat: source.sampleFormat,
            sampleRate: source.sampleRate, channels: source.channels, channelMap: source.channelPositions,
            monitor: source.isMonitor, monitorOf: source.monitorOf,
            isDefault: source.name == connection.defaultSourceName(), driver: source.driver)
    }
}
