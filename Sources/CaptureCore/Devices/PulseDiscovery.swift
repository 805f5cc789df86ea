/// Enumerates PulseAudio sources. (Being written: finds nothing yet.)
enum PulseDiscovery {
    static func sources() -> [Device] { [] }

    static func device(source: String?) throws(CaptureError) -> Device {
        throw .deviceNotFound(device: "pulse:\(source ?? "")", valid: [], hint: nil)
    }
}
