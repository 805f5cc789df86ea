import Foundation
import Testing

/// ALSA microphones end to end, on a host without sound cards: capture PCMs defined in a test
/// `.asoundrc` (real ALSA plugins over `type null`) must appear in `capture list` and probe
/// exactly as `arecord -L` and `arecord --dump-hw-params` report them.
@Suite struct MicrophoneALSATests {
    /// Plugins that narrow what a PCM accepts the way awkward microphones do: speex takes only
    /// S16_LE mono, vdownmix only S16_LE with 4 to 6 channels. `hidden` asks not to be listed,
    /// but it can still be opened by name.
    static let asoundrc = """
        pcm.capture_null {
            type null
            hint { show on description "Null microphone «Küche»" }
        }
        pcm.capture_speex {
            type speex
            slave.pcm "capture_null"
            denoise off
            agc off
            hint { show on description "Mono S16 microphone" }
        }
        pcm.capture_downmix {
            type vdownmix
            slave.pcm "capture_null"
            hint { show on description "Four to six channels" }
        }
        pcm.capture_hidden {
            type null
            hint.show off
        }

        """

    /// A HOME whose `.asoundrc` defines the test PCMs; libasound reads it at start.
    struct TestHome {
        let url: URL
        var environment: [String: String] { ["HOME": url.path] }

        init() throws {
            url = try MicrophoneTestSupport.scratchFolder("alsa-home")
            try asoundrc.write(to: url.appendingPathComponent(".asoundrc"), atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(at: url) }
    }

    /// The names `arecord -L` prints (one unindented line each).
    static func arecordNames(_ home: TestHome) throws -> [String] {
        let result = try ChildProcess.run("arecord", ["-L"], environment: home.environment)
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.isEmpty }.map(String.init)
    }

    @Test func configuredPCMsAreListedAsArecordListsThem() throws {
        let home = try TestHome()
        defer { home.remove() }
        let result = try BuiltBinary.run(["list", "--json", "--audio-only", "--all"], environment: home.environment)
        #expect(result.status == 0)
        let object = try MicrophoneTestSupport.object(result.stdout)
        let microphones = try #require(object["microphones"] as? [[String: Any]])
        let alsa = microphones.filter { $0["api"] as? String == "alsa" }
        let names = alsa.compactMap { $0["name"] as? String }
        let other = try #require(object["other"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        // No sound card here, so every PCM arecord lists is a configuration PCM and none is
        // a per-card duplicate; software PCMs carry no direction, so all of them count. Those of
        // the test's .asoundrc and the sound-server bridges are microphones, the system's plugin
        // definitions the other entries; between them, exactly arecord's list in its order.
        let arecord = try Self.arecordNames(home)
        let ours = arecord.filter { $0.hasPrefix("capture_") || ["default", "pulse", "pipewire"].contains($0) }
        #expect(names == ours)
        #expect(other == arecord.filter { !ours.contains($0) })
        for name in ["capture_null", "capture_speex", "capture_downmix"] { #expect(names.contains(name)) }
        #expect(!names.contains("capture_hidden"))
        let null = try #require(alsa.first { $0["name"] as? String == "capture_null" })
        #expect(null["description"] as? String == "Null microphone «Küche»")
        #expect(null["is_virtual"] as? Bool == true)
        #expect(null["kind"] as? String == "audio")
        #expect(null["role"] as? String == "microphone")

        let text = try BuiltBinary.run(["list", "--audio-only"], environment: home.environment)
        #expect(text.stdout.contains("] capture_speex  Mono S16 microphone  (virtual)\n"))
    }

    /// `arecord --dump-hw-params` prints the parameter space before it records (here one second
    /// of silence from the null PCM into /dev/null).
    static func arecordHardwareParameters(_ pcm: String, _ home: TestHome) throws -> [String: String] {
        let result = try ChildProcess.run(
            "arecord", ["--dump-hw-params", "-D", pcm, "-d", "1", "/dev/null"], environment: home.environment)
        var fields: [String: String] = [:]
        for line in result.stderr.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// ALSA's interval notation, as our JSON ranges would be printed by arecord.
    static func interval(_ range: [String: Any]) -> String {
        let min = range["min"] as? Int ?? -1
        let max = range["max"] as? Int ?? -1
        if min == max { return "\(min)" }
        let open = (range["min_open"] as? Bool ?? false) ? "(" : "["
        let close = (range["max_open"] as? Bool ?? false) ? ")" : "]"
        return "\(open)\(min) \(max)\(close)"
    }

    @Test(arguments: ["capture_null", "capture_speex", "capture_downmix"])
    func probeMatchesArecord(pcm: String) throws {
        let home = try TestHome()
        defer { home.remove() }
        let result = try BuiltBinary.run(["probe", pcm, "--json"], environment: home.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try MicrophoneTestSupport.object(result.stdout)
        let alsa = try #require(probe["alsa"] as? [String: Any])
        let oracle = try Self.arecordHardwareParameters(pcm, home)
        let formats = try #require(alsa["formats"] as? [String])
        #expect(formats.joined(separator: " ") == oracle["FORMAT"])
        #expect((alsa["access"] as? [String])?.joined(separator: " ") == oracle["ACCESS"])
        #expect(Self.interval(try #require(alsa["channels"] as? [String: Any])) == oracle["CHANNELS"])
        #expect(Self.interval(try #require(alsa["rates"] as? [String: Any])) == oracle["RATE"])
        #expect(Self.interval(try #require(alsa["buffer_frames"] as? [String: Any])) == oracle["BUFFER_SIZE"])
        #expect(Self.interval(try #require(alsa["period_microseconds"] as? [String: Any])) == oracle["PERIOD_TIME"])
        #expect((probe["device"] as? [String: Any])?["name"] as? String == pcm)
    }

    @Test func narrowPCMsProbeToExactlyWhatTheyTake() throws {
        let home = try TestHome()
        defer { home.remove() }
        let speex = try MicrophoneTestSupport.object(
            try BuiltBinary.run(["probe", "capture_speex", "--json"], environment: home.environment).stdout)
        let speexCaps = try #require(speex["alsa"] as? [String: Any])
        #expect(speexCaps["formats"] as? [String] == ["S16_LE"])
        #expect(speexCaps["channel_counts"] as? [Int] == [1])
        #expect(
            speexCaps["standard_rates"] as? [Int] == [
                8000, 11025, 16000, 22050, 32000, 44100, 48000, 64000, 88200, 96000, 176400, 192000,
            ])
        let downmix = try MicrophoneTestSupport.object(
            try BuiltBinary.run(["probe", "capture_downmix", "--json"], environment: home.environment).stdout)
        #expect((downmix["alsa"] as? [String: Any])?["channel_counts"] as? [Int] == [4, 5, 6])

        let text = try BuiltBinary.run(["probe", "capture_speex"], environment: home.environment)
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("capture_speex  Mono S16 microphone\n"))
        #expect(text.stdout.contains("  Sample formats: S16_LE\n"))
        #expect(text.stdout.contains("  Channels:       1\n"))
    }

    @Test func aPCMWithoutHintStillResolves() throws {
        let home = try TestHome()
        defer { home.remove() }
        let result = try BuiltBinary.run(["probe", "alsa:capture_hidden", "--json"], environment: home.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            (try MicrophoneTestSupport.object(result.stdout)["alsa"] as? [String: Any])?["pcm_type"] as? String
                == "NULL")
    }

    @Test(arguments: ["hw:9,0", "hw:CARD=Nothing,DEV=0", "plughw:3", "no_such_pcm"])
    func unknownNamesExit66ListingTheValidOnes(name: String) throws {
        let home = try TestHome()
        defer { home.remove() }
        let result = try BuiltBinary.run(["probe", name], environment: home.environment)
        #expect(result.status == 66)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: \(name): no such device"))
        #expect(result.stderr.contains("capture_speex"))
        #expect(!result.stderr.contains("pulse:"))
    }

    @Test(arguments: ["alsa_input.pci-0000_00_1f.3.analog-stereo", "alsa_output.usb-Mic.analog-stereo.monitor"])
    func pulseStyleNamesGetTheHint(name: String) throws {
        let home = try TestHome()
        defer { home.remove() }
        let result = try BuiltBinary.run(["probe", name], environment: home.environment)
        #expect(result.status == 66)
        #expect(result.stderr.contains("use pulse:\(name)"))
    }
}
