/// Enumerates ALSA capture PCMs. (Being written: returns nothing yet.)
enum ALSADiscovery {
    static func capturePCMs() -> [Device] { [] }
}
