/// Enumerates ALSA capture PCMs. (Being written: finds nothing yet.)
enum ALSADiscovery {
    static func capturePCMs() -> [Device] { [] }

    static func device(pcm: String) throws(CaptureError) -> Device {
        throw .deviceNotFound(device: pcm, valid: [], hint: nil)
    }
}
