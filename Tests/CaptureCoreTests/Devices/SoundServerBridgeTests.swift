import Foundation
import Glibc
import Testing

@testable import CaptureCore

/// The PipeWire bridge's server check: a socket that accepts, not merely a file that exists.
@Suite struct SoundServerBridgeTests {
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "capture-pw-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A Unix socket bound at `path`, listening when `listen` is true; returns its descriptor.
    static func bind(_ path: String, listen shouldListen: Bool) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if shouldListen { _ = listen(fd, 1) }
        return fd
    }

    @Test func pipewireAnswersOnlyWhenItsSocketAccepts() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let environment = ["XDG_RUNTIME_DIR": folder]
        #expect(!SoundServerBridge.pipewireAnswers(environment: environment))
        #expect(!SoundServerBridge.pipewireAnswers(environment: [:]))

        // A socket file nobody accepts on, as a server that exited leaves behind.
        let stale = Self.bind(folder + "/pipewire-0", listen: false)
        #expect(!SoundServerBridge.pipewireAnswers(environment: environment))
        close(stale)
        unlink(folder + "/pipewire-0")

        let live = Self.bind(folder + "/pipewire-0", listen: true)
        defer { close(live) }
        #expect(SoundServerBridge.pipewireAnswers(environment: environment))
        // PIPEWIRE_RUNTIME_DIR wins over XDG_RUNTIME_DIR, and PIPEWIRE_REMOTE names the socket.
        #expect(
            !SoundServerBridge.pipewireAnswers(environment: [
                "PIPEWIRE_RUNTIME_DIR": folder + "/none", "XDG_RUNTIME_DIR": folder,
            ]))
        #expect(SoundServerBridge.pipewireAnswers(environment: ["PIPEWIRE_REMOTE": folder + "/pipewire-0"]))
    }

    @Test func bridgesAreUnavailableOnlyWhenTheirServerIsAskedAndSilent() {
        let none = SoundServerBridge.Servers(pulse: false, pipewire: false)
        #expect(SoundServerBridge.unavailableReason(pcm: "pulse", servers: none) == "no PulseAudio server is running")
        #expect(SoundServerBridge.unavailableReason(pcm: "pipewire", servers: none) == "no PipeWire server is running")
        #expect(SoundServerBridge.unavailableReason(pcm: "hw:CARD=Loopback,DEV=1", servers: none) == nil)
        #expect(SoundServerBridge.unavailableReason(pcm: "pulse", servers: .init()) == nil)
        #expect(SoundServerBridge.unavailableReason(pcm: "pulse", servers: .init(pulse: true)) == nil)
    }
}
