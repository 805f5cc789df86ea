import Foundation
import Testing

/// The `pulse` ALSA PCM (libasound2-plugins) when no PulseAudio server answers: listed as not
/// accessible, and naming it fails in one line with the fix.
@Suite struct SoundServerBridgeTests {
    /// An environment where libpulse finds no server: a socket path nobody listens on.
    static func noServer(_ folder: URL) -> [String: String] {
        ["PULSE_SERVER": "unix:\(folder.path)/native", "XDG_RUNTIME_DIR": folder.path]
    }

    // Not conditional on the PCM being listed: a broken `list` must fail this test, not skip it.
    // The `pulse` PCM comes with libasound2-plugins, which `make deps` installs.
    @Test func pulsePCMWithoutServerIsNotAccessible() throws {
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

        // By name and by its index, as `record --audio 0` met it.
        let index = try #require(pulse["index"] as? Int)
        for arguments in [
            ["probe", "pulse"], ["record", "--video", "test", "--audio", "pulse", "\(folder.path)/a.mkv"],
            ["record", "--video", "test", "--audio", "\(index)", "\(folder.path)/a.mkv"],
        ] {
            let result = try BuiltBinary.run(arguments, environment: environment)
            #expect(result.status == 69, "\(arguments)")
            #expect(
                result.stderr
                    == "Error: pulse: no PulseAudio server is running; start PulseAudio or pick a hw: device from 'capture list'\n",
                "\(arguments)")
        }
    }
}

/// Any ALSA name that leads to a sound server (issue 11): `default` overridden to pulse as many
/// desktops ship it, a `sysdefault` override, a user's alias with a plug over it, an asym PCM over
/// PipeWire. Without the server each gets the same 69 and sentence as `pulse` itself, in record,
/// probe and list; libasound's "Connection refused" (exit 1) never reaches the user.
@Suite struct SoundServerBehindALSANamesTests {
    static let asoundrc = """
        pcm.!default { type pulse }
        pcm.!sysdefault { type pulse }
        pcm.deskmic { type plug slave.pcm "default" }
        pcm.pwmic {
            type asym
            capture.pcm { type plug slave { pcm { type pipewire } } }
        }

        """

    // Not conditional, like the test above: `type pulse` needs only the definition to be read.
    @Test func everyNameOverAServerSaysSo() throws {
        let folder = try MicrophoneTestSupport.scratchFolder("bridge-names")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.asoundrc.write(to: folder.appendingPathComponent(".asoundrc"), atomically: true, encoding: .utf8)
        // No PulseAudio server at that socket, no PipeWire socket in that runtime folder.
        var environment = SoundServerBridgeTests.noServer(folder)
        environment["HOME"] = folder.path
        environment["XDG_CONFIG_HOME"] = ""
        let expected: [(String, String)] = [
            ("default", "PulseAudio"), ("sysdefault", "PulseAudio"), ("deskmic", "PulseAudio"), ("pwmic", "PipeWire"),
        ]
        let list = try BuiltBinary.run(["list", "--json", "--audio-only"], environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        let microphones = try #require(
            try MicrophoneTestSupport.object(list.stdout)["microphones"] as? [[String: Any]])
        for (name, server) in expected {
            let reason = "no \(server) server is running"
            if let entry = microphones.first(where: { $0["name"] as? String == name }) {
                #expect(entry["accessible"] as? Bool == false, "\(name)")
                #expect(entry["reason"] as? String == reason, "\(name)")
            } else if name != "sysdefault" {
                Issue.record("\(name) is not listed")
            }
            let line = "Error: \(name): \(reason); start \(server) or pick a hw: device from 'capture list'\n"
            for arguments in [
                ["probe", name], ["record", "--audio", name, "--duration", "2", "\(folder.path)/a.wav"],
                ["record", "--video", "test", "--audio", name, "\(folder.path)/a.mkv"],
            ] {
                let result = try BuiltBinary.run(arguments, environment: environment)
                #expect(result.status == 69, "\(arguments): \(result.stderr)")
                #expect(result.stderr == line, "\(arguments)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: "\(folder.path)/a.wav"))
    }
}

/// libpulse's own complaints (an unusable `$HOME`) stay off the terminal unless `--verbose`.
@Suite struct PulseLogTests {
    /// Runs the binary with exactly `environment` (libpulse looks at `$HOME` only when
    /// `XDG_RUNTIME_DIR` is unset, which an environment added to ours cannot say), and returns its
    /// status and stderr.
    static func standardError(_ arguments: [String], environment: [String: String]) throws -> (Int32, String) {
        let result = try ChildProcess.run(
            BuiltBinary.path, arguments, environment: environment, inheritEnvironment: false)
        return (result.status, result.stderr)
    }

    @Test func libpulseLinesShowOnlyWithVerbose() throws {
        let folder = try MicrophoneTestSupport.scratchFolder("pulse-log")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A HOME that is a file: libpulse cannot create its directories there and says so.
        let home = folder.appendingPathComponent("home")
        try Data().write(to: home)
        var environment = ProcessInfo.processInfo.environment
        for key in ["XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "PULSE_SERVER", "PULSE_RUNTIME_PATH", "PULSE_STATE_PATH"] {
            environment[key] = nil
        }
        environment["HOME"] = home.path
        let (quietStatus, quiet) = try Self.standardError(["list", "--audio-only"], environment: environment)
        #expect(quietStatus == 0)
        #expect(quiet == "")
        let (verboseStatus, verbose) = try Self.standardError(
            ["list", "--audio-only", "--verbose"], environment: environment)
        #expect(verboseStatus == 0)
        #expect(verbose.contains("Failed to create secure directory"))
        // A camera name nobody has is looked up in the ALSA configuration too, whose PulseAudio
        // hook loads libpulse: still the one line of the error.
        let (status, refused) = try Self.standardError(
            ["record", "--video", "nosuch", folder.appendingPathComponent("x.mkv").path], environment: environment)
        #expect(status == 66)
        #expect(refused.split(separator: "\n").count == 1 && refused.hasPrefix("Error: nosuch: "), "\(refused)")
    }
}
