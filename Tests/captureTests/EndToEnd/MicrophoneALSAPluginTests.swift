import Foundation
import Testing

/// The ALSA configuration's plugin definitions (rate converters, mixers, bridges, `null`) are not
/// microphones: `capture list` leaves them to `--all`, where they come unnumbered; the PCMs of the
/// user's own files are microphones, whatever their type. Runs against this machine's system
/// configuration (libasound2-plugins comes with the pulseaudio test dependency).
@Suite struct MicrophoneALSAPluginTests {
    /// System plugin PCMs that libasound's `alsa.conf` and libasound2-plugins' conf.d files define.
    static let systemPlugins = [
        "null", "lavrate", "samplerate", "speexrate", "speex", "upmix", "vdownmix", "oss", "jack",
    ]

    /// A scratch HOME holding `files` (relative path to contents), removed by `remove()`.
    struct Home {
        let url: URL

        init(_ files: [String: String]) throws {
            url = try MicrophoneTestSupport.scratchFolder("alsa-plugins")
            for (path, text) in files {
                let file = url.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: file, atomically: true, encoding: .utf8)
            }
        }

        func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }
        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    static func pcm(_ name: String, _ description: String) -> String {
        "pcm.\(name) {\n    type null\n    hint { show on description \"\(description)\" }\n}\n"
    }

    /// `capture list --json --audio-only` (with `--all` when asked): the ALSA microphones and the
    /// other entries, each by name.
    static func list(all: Bool, _ environment: [String: String]) throws -> (
        microphones: [[String: Any]], other: [[String: Any]]
    ) {
        let result = try BuiltBinary.run(
            ["list", "--json", "--audio-only"] + (all ? ["--all"] : []), environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try MicrophoneTestSupport.object(result.stdout)
        let microphones = try #require(object["microphones"] as? [[String: Any]])
        let other = try #require(object["other"] as? [[String: Any]])
        return (microphones.filter { $0["api"] as? String == "alsa" }, other)
    }

    static func names(_ devices: [[String: Any]]) -> [String] { devices.compactMap { $0["name"] as? String } }

    @Test func systemPluginsAreOtherNotMicrophonesAndTheUsersPCMIsAMicrophone() throws {
        let home = try Home([".asoundrc": Self.pcm("desk_mic", "Desk microphone")])
        defer { home.remove() }
        let environment = ["HOME": home.url.path, "XDG_CONFIG_HOME": ""]
        let arecord = try ChildProcess.run("arecord", ["-L"], environment: environment).stdout
        let (microphones, other) = try Self.list(all: true, environment)
        for plugin in Self.systemPlugins {
            // arecord lists it, so the system configuration defines it for capture.
            #expect(arecord.contains("\n\(plugin)\n") || arecord.hasPrefix("\(plugin)\n"), "\(plugin)")
            #expect(!Self.names(microphones).contains(plugin), "\(plugin)")
            let entry = try #require(other.first { $0["name"] as? String == plugin }, "\(plugin)")
            #expect(entry["role"] as? String == "alsa-plugin")
            #expect(entry["index"] is NSNull)
            #expect(entry["api"] as? String == "alsa")
            #expect(entry["kind"] as? String == "audio")
        }
        #expect(other.allSatisfy { $0["role"] as? String == "alsa-plugin" && $0["index"] is NSNull })
        let mic = try #require(microphones.first { $0["name"] as? String == "desk_mic" })
        #expect(mic["role"] as? String == "microphone")
        #expect(mic["index"] is Int)

        let text = try BuiltBinary.run(["list", "--audio-only", "--all"], environment: environment).stdout
        #expect(text.contains("] desk_mic  Desk microphone  (virtual)\n"))
        #expect(text.contains("\nOther ALSA PCMs:\n"))
        #expect(
            text.contains("\n      lavrate  Rate Converter Plugin Using Libav/FFmpeg Library  (alsa-plugin, virtual)\n")
        )
        let plain = try BuiltBinary.run(["list", "--audio-only"], environment: environment).stdout
        #expect(!plain.contains("lavrate"))
        #expect(!plain.contains("Other ALSA PCMs"))
    }

    @Test func allNeverShiftsAMicrophoneIndex() throws {
        let home = try Home([".asoundrc": Self.pcm("desk_mic", "Desk microphone")])
        defer { home.remove() }
        let environment = ["HOME": home.url.path]
        let plain = try BuiltBinary.run(["list", "--json"], environment: environment)
        let all = try BuiltBinary.run(["list", "--json", "--all"], environment: environment)
        let before = try MicrophoneTestSupport.object(plain.stdout)["microphones"] as? [[String: Any]]
        let after = try MicrophoneTestSupport.object(all.stdout)["microphones"] as? [[String: Any]]
        let pairs = { (list: [[String: Any]]?) in (list ?? []).map { "\($0["index"] ?? "-") \($0["name"] ?? "-")" } }
        #expect(!pairs(before).isEmpty)
        #expect(pairs(before) == pairs(after))
        #expect(try MicrophoneTestSupport.object(plain.stdout)["other"] as? [Any] != nil)
        #expect((try MicrophoneTestSupport.object(plain.stdout)["other"] as? [Any])?.isEmpty == true)
    }

    @Test func theXDGFileIsTheUsersToo() throws {
        let home = try Home([
            "cfg/alsa/asoundrc": Self.pcm("xdg_mic", "XDG microphone"),
            ".config/alsa/asoundrc": Self.pcm("dot_config_mic", "Default XDG place"),
        ])
        defer { home.remove() }
        let moved = try Self.list(all: false, ["HOME": home.url.path, "XDG_CONFIG_HOME": home.path("cfg")])
        #expect(Self.names(moved.microphones).contains("xdg_mic"))
        #expect(!Self.names(moved.microphones).contains("dot_config_mic"))
        let unset = try Self.list(all: false, ["HOME": home.url.path, "XDG_CONFIG_HOME": ""])
        #expect(Self.names(unset.microphones).contains("dot_config_mic"))
        #expect(!Self.names(unset.microphones).contains("xdg_mic"))
    }

    @Test func aUserDefinitionOfASystemNameMakesItAMicrophone() throws {
        let home = try Home([
            ".asoundrc": "pcm.!upmix {\n    type null\n    hint { show on description \"Mine now\" }\n}\n"
        ])
        defer { home.remove() }
        let (microphones, other) = try Self.list(all: true, ["HOME": home.url.path, "XDG_CONFIG_HOME": ""])
        #expect(Self.names(microphones).contains("upmix"))
        #expect(!Self.names(other).contains("upmix"))
        #expect(Self.names(other).contains("vdownmix"))
    }

    @Test func theFilesALSAConfigPathNamesAreTheUsersConfiguration() throws {
        let home = try Home([
            "one.conf": Self.pcm("path_mic", "From ALSA_CONFIG_PATH") + Self.pcm("null", "A null of my own"),
            "two.conf": Self.pcm("second_mic", "Second file"),
        ])
        defer { home.remove() }
        // libasound then reads these files instead of alsa.conf: no system plugin exists at all.
        let environment = [
            "HOME": home.url.path, "ALSA_CONFIG_PATH": home.path("one.conf") + ":" + home.path("two.conf"),
        ]
        let (microphones, other) = try Self.list(all: true, environment)
        #expect(Self.names(microphones) == ["path_mic", "null", "second_mic"])
        #expect(other.isEmpty)
    }

    @Test func aPluginStillOpensByName() throws {
        let home = try Home([:])
        defer { home.remove() }
        let result = try BuiltBinary.run(["probe", "null", "--json"], environment: ["HOME": home.url.path])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try MicrophoneTestSupport.object(result.stdout)
        let device = try #require(probe["device"] as? [String: Any])
        #expect(device["name"] as? String == "null")
        #expect(device["role"] as? String == "alsa-plugin")
        #expect((probe["alsa"] as? [String: Any])?["pcm_type"] as? String == "NULL")
    }
}
