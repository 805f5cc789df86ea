import Foundation
import Testing

/// The `pulse` ALSA PCM (libasound2-plugins) when no PulseAudio server answers: listed as not
/// accessible, and naming it fails in one line with the fix.
@Suite struct SoundServerBridgeTests {
    /// An environment where libpulse finds no server: a socket path nobody listens on.
    static func noServer(_ folder: URL) -> [String: String] {
        ["PULSE_SERVER": "unix:\(folder.path)/native", "XDG_RUNTIME_DIR": folder.path]
    }

    static var pulsePCMDefined: Bool {
        (try? BuiltBinary.run(["list", "--all", "--json", "--audio-only"]).stdout)?.contains("\"name\" : \"pulse\"") == true
    }

    @Test(.enabled(if: pulsePCMDefined)) func pulsePCMWithoutServerIsNotAccessible() throws {
        let folder = try MicrophoneTestSupport.scratchFolder("bridge")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = Self.noServer(folder)
        let list = try BuiltBinary.run(["list", "--json", "--audio-only"], environment: environment)
        #expect(list.status == 0)
        let microphones = try #require(
            try MicrophoneTestSupport.object(list.stdout)["microphones"] as? [[String: Any]])
        let pulse = try #require(microphones.first { $0["name"] as? String == "pulse" })
        #expect(pulse["accessible"] as? Bool == false)
        #expect(pulse["reason"] as? String == "no PulseAudio server is running")

        for arguments in [["probe", "pulse"], ["record", "--video", "test", "--audio", "pulse", "\(folder.path)/a.mkv"]] {
            let result = try BuiltBinary.run(arguments, environment: environment)
            #expect(result.status == 69, "\(arguments)")
            #expect(
                result.stderr
                    == "Error: pulse: no PulseAudio server is running; start PulseAudio or pick a hw: device from 'capture list'\n",
                "\(arguments)")
        }
    }
}
