import Foundation
import Testing

/// PulseAudio sources end to end, against a real server started here with a null sink (whose
/// monitor is a source) and a sine source; `pactl` is the oracle.
@Suite(.serialized) struct MicrophonePulseTests {
    /// A private PulseAudio server on its own socket, run as `nobody` when we are root (the
    /// daemon is meant for unprivileged users). Stopped by `stop()`.
    final class TestServer {
        let folder: URL
        private var daemon: ChildProcess?
        var socket: String { folder.appendingPathComponent("native").path }
        var environment: [String: String] { ["PULSE_SERVER": "unix:\(socket)"] }

        /// Makes the folder and, unless `started` is false, starts the daemon (`start()` later:
        /// a server that comes after its client).
        init(started: Bool = true) throws {
            folder = try MicrophoneTestSupport.scratchFolder("pulse")
            // The daemon, possibly another user, writes its state and socket here.
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
            // The daemon insists on a runtime directory of its own user.
            let runtime = folder.appendingPathComponent("run")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false)
            var attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o700]
            if getuid() == 0, let nobody = getpwnam("nobody") {
                attributes[.ownerAccountID] = nobody.pointee.pw_uid
                attributes[.groupOwnerAccountID] = nobody.pointee.pw_gid
            }
            try FileManager.default.setAttributes(attributes, ofItemAtPath: runtime.path)
            if started { try launch() }
        }

        /// Starts the daemon of a server made with `started: false`, and waits until it answers.
        func start() throws { try launch() }

        /// Starts the daemon on the folder's socket and waits until it answers.
        private func launch() throws {
            let runtime = folder.appendingPathComponent("run")
            let daemon = [
                "pulseaudio", "--daemonize=no", "-n", "--exit-idle-time=-1", "--use-pid-file=no",
                "--realtime=no", "--high-priority=no", "--log-target=stderr", "--log-level=error",
                "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1",
                "-L", "module-null-sink sink_name=capture_test_sink sink_properties=device.description=CaptureTestSink",
                "-L", "module-sine-source source_name=capture_test_tone frequency=440",
            ]
            let environment = [
                "HOME": folder.path, "XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": folder.path,
                "PULSE_SERVER": "",
            ]
            let server: ChildProcess
            if getuid() == 0 {
                server = try ChildProcess(
                    "setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups"] + daemon,
                    environment: environment)
            } else {
                server = try ChildProcess(daemon[0], Array(daemon.dropFirst()), environment: environment)
            }
            self.daemon = server
            // Ready once pactl gets an answer.
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if (try? pactl(["info"]))?.status == 0 { return }
                if server.wait(timeout: 0) != nil { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            stop()
            throw ServerDidNotStart()
        }

        /// Kills the daemon at once (SIGKILL), as a crash does: its clients' streams fail.
        func crash() {
            daemon?.signal(SIGKILL)
            daemon?.wait()
            daemon = nil
        }

        /// Starts the daemon again on the same socket, after `crash()`.
        func restart() throws { try launch() }

        /// Stops (SIGSTOP) or continues (SIGCONT) the daemon: a hung sound server, its clients'
        /// connections open and silent.
        func freeze(_ frozen: Bool) { daemon?.signal(frozen ? SIGSTOP : SIGCONT) }

        struct ServerDidNotStart: Error {}

        func pactl(_ arguments: [String]) throws -> ChildProcess.Result {
            try ChildProcess.run("pactl", ["--server=unix:\(socket)"] + arguments)
        }

        func stop() {
            freeze(false)
            if let daemon {
                if daemon.wait(timeout: 0) == nil {
                    daemon.signal(SIGTERM)
                    daemon.wait()
                }
                self.daemon = nil
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func sourcesAreListedWithMonitorFlagAndDefaultMark() throws {
        let server = try TestServer()
        defer { server.stop() }
        // Make the monitor the default, so the mark must follow the server, not a guess.
        #expect(try server.pactl(["set-default-source", "capture_test_sink.monitor"]).status == 0)
        let expectedDefault = try server.pactl(["get-default-source"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(expectedDefault == "capture_test_sink.monitor")
        // pactl list sources short: index, name, driver, sample spec, state.
        let oracle = try server.pactl(["list", "sources", "short"]).stdout.split(separator: "\n").map {
            $0.split(separator: "\t").map(String.init)
        }

        let result = try BuiltBinary.run(["list", "--json", "--audio-only"], environment: server.environment)
        #expect(result.status == 0)
        let microphones = try #require(
            try MicrophoneTestSupport.object(result.stdout)["microphones"] as? [[String: Any]])
        let pulse = microphones.filter { $0["api"] as? String == "pulse" }
        #expect(pulse.compactMap { $0["name"] as? String } == oracle.map { "pulse:\($0[1])" })
        for (entry, line) in zip(pulse, oracle) {
            let details = try #require(entry["pulse"] as? [String: Any])
            #expect(details["source"] as? String == line[1])
            #expect(details["sample_spec"] as? String == line[3])
            #expect(details["monitor"] as? Bool == line[1].hasSuffix(".monitor"))
            #expect(entry["role"] as? String == (line[1].hasSuffix(".monitor") ? "monitor" : "microphone"))
            #expect(entry["is_default"] as? Bool == (line[1] == expectedDefault))
            #expect(entry["kind"] as? String == "audio")
        }
        let tone = try #require(pulse.first { $0["name"] as? String == "pulse:capture_test_tone" })
        #expect((tone["pulse"] as? [String: Any])?["channel_map"] as? String == "mono")
        #expect(tone["description"] as? String == "Sine source at 440 Hz")

        let text = try BuiltBinary.run(["list", "--audio-only"], environment: server.environment)
        #expect(
            text.stdout.contains(
                "] pulse:capture_test_sink.monitor  Monitor of CaptureTestSink  (monitor, default, virtual)\n"))
        // The test tone stays last.
        #expect(microphones.last?["name"] as? String == "test")
    }

    @Test func probeShowsSampleSpecChannelMapAndMonitor() throws {
        let server = try TestServer()
        defer { server.stop() }
        let result = try BuiltBinary.run(
            ["probe", "pulse:capture_test_sink.monitor", "--json"], environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let pulse = try #require(try MicrophoneTestSupport.object(result.stdout)["pulse"] as? [String: Any])
        #expect(pulse["monitor"] as? Bool == true)
        #expect(pulse["monitor_of"] as? String == "capture_test_sink")
        #expect(pulse["channel_map"] as? [String] == ["front-left", "front-right"])
        let spec = try server.pactl(["list", "sources", "short"]).stdout.split(separator: "\n")
            .first { $0.contains("capture_test_sink.monitor") }?.split(separator: "\t")[3]
        let expected =
            "\(pulse["sample_format"] as? String ?? "") \(pulse["channels"] as? Int ?? 0)ch \(pulse["sample_rate"] as? Int ?? 0)Hz"
        #expect(spec.map(String.init) == expected)

        let tone = try BuiltBinary.run(["probe", "pulse:capture_test_tone"], environment: server.environment)
        #expect(tone.status == 0)
        #expect(tone.stdout.hasPrefix("pulse:capture_test_tone  Sine source at 440 Hz\n"))
        #expect(tone.stdout.contains("  Channels:      1 (mono)\n"))

        // `pulse:` alone is the server's default source.
        let defaultName = try server.pactl(["get-default-source"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let byDefault = try BuiltBinary.run(["probe", "pulse:", "--json"], environment: server.environment)
        #expect(
            ((try MicrophoneTestSupport.object(byDefault.stdout)["pulse"] as? [String: Any])?["source"] as? String)
                == defaultName)
        #expect(
            ((try MicrophoneTestSupport.object(byDefault.stdout)["pulse"] as? [String: Any])?["is_default"] as? Bool)
                == true)

        let missing = try BuiltBinary.run(["probe", "pulse:nothing_here"], environment: server.environment)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("pulse:capture_test_tone"))
    }

    @Test func noServerMeansNoSourcesQuickly() throws {
        let folder = try MicrophoneTestSupport.scratchFolder("no-pulse")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["PULSE_SERVER": "unix:\(folder.path)/native", "XDG_RUNTIME_DIR": folder.path]
        let start = Date()
        let result = try BuiltBinary.run(["list", "--json", "--audio-only"], environment: environment)
        #expect(Date().timeIntervalSince(start) < 1.5)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let microphones = try #require(
            try MicrophoneTestSupport.object(result.stdout)["microphones"] as? [[String: Any]])
        #expect(!microphones.contains { $0["api"] as? String == "pulse" })

        let probe = try BuiltBinary.run(["probe", "pulse:anything"], environment: environment)
        #expect(probe.status == 69)
        #expect(probe.stderr.hasPrefix("Error: pulse:anything: no PulseAudio server is running; "))

        // `pulse:` alone names the default source, said so rather than as "pulse:".
        let byDefault = try BuiltBinary.run(["probe", "pulse:"], environment: environment)
        #expect(byDefault.status == 69)
        #expect(byDefault.stderr.hasPrefix("Error: pulse: (the default source): no PulseAudio server is running; "))
    }
}
