/// Enumerates PulseAudio sources. (Being written: returns nothing yet.)
enum PulseDiscovery {
    static func sources() -> [Device] { [] }
}
