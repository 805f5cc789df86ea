import FoundationEssentials
import Glibc

/// The ALSA PCMs that bridge to a sound server (`pulse` from libasound2-plugins, `pipewire` from
/// pipewire-alsa): their definitions exist whether or not the server runs, so they are
/// microphones only while it answers.
enum SoundServerBridge {
    /// Whether each server answers; nil for one not asked about.
    struct Servers: Sendable {
        var pulse: Bool?
        var pipewire: Bool?

        /// Asks only the server that `pcmFamily` (`pulse`, `pipewire`, from
        /// `ALSAConfigurationPCMs.soundServer`) needs (a fresh libpulse connection for `pulse`,
        /// a connect to the socket for `pipewire`); nothing for any other family.
        static func asking(for pcmFamily: String) -> Servers {
            switch pcmFamily {
            case "pulse": Servers(pulse: PulseConnection() != nil)
            case "pipewire": Servers(pipewire: SoundServerBridge.pipewireAnswers())
            default: Servers()
            }
        }
    }

    /// Why the PCM `name` cannot capture now because it leads to a sound server that does not
    /// answer (`pulse`, `pipewire`, or any PCM whose definition resolves to one); nil when its
    /// server answers or it leads to none.
    static func unavailableReason(pcm name: String, servers: Servers) -> String? {
        switch ALSAConfigurationPCMs.soundServer(name) {
        case "pulse": servers.pulse == false ? "no PulseAudio server is running" : nil
        case "pipewire": servers.pipewire == false ? "no PipeWire server is running" : nil
        default: nil
        }
    }

    /// The fix to print after ``unavailableReason(pcm:servers:)``.
    static func fix(pcm name: String) -> String {
        let server = ALSAConfigurationPCMs.soundServer(name) == "pipewire" ? "PipeWire" : "PulseAudio"
        return "start \(server) or pick a hw: device from 'capture list'"
    }

    /// True when PipeWire's socket accepts a connection: `$PIPEWIRE_REMOTE` (default
    /// `pipewire-0`) in `$PIPEWIRE_RUNTIME_DIR` or `$XDG_RUNTIME_DIR`, where libpipewire looks.
    /// A socket file left by a server that has exited refuses the connect.
    static func pipewireAnswers(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        let remote = environment["PIPEWIRE_REMOTE"].flatMap { $0.isEmpty ? nil : $0 } ?? "pipewire-0"
        let path: String
        if remote.hasPrefix("/") {
            path = remote
        } else {
            guard
                let folder = [environment["PIPEWIRE_RUNTIME_DIR"], environment["XDG_RUNTIME_DIR"]]
                    .compactMap({ $0 }).first(where: { !$0.isEmpty })
            else { return false }
            path = folder + "/" + remote
        }
        return unixSocketAnswers(path)
    }

    /// Connects to a Unix stream socket and closes it again (`socket`, `connect`).
    static func unixSocketAnswers(_ path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
