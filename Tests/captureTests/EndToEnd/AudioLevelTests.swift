import Foundation
import Testing

/// Audio levels (issue 25): `capture meter` and `capture record`'s levels, from sources of known
/// amplitude. A sine at half of full scale peaks at -6.02 dBFS with an RMS of -9.03; silence has
/// neither; a square wave driven past full scale is clipped in every sample but its first. The
/// recorded file, decoded by ffmpeg, is the oracle for what a recording measured.
@Suite struct AudioLevelTests {
    /// A 1 kHz sine at half of full scale in `format` (FFmpeg's name), mono, 48 kHz.
    static func halfScale(_ format: String, channels: String = "0.5*sin(2*PI*1000*t)") -> String {
        "lavfi:aevalsrc=\(channels):s=48000,aformat=sample_fmts=\(format)"
    }

    /// `capture meter ARGS --json`: the readings, the summary and the result.
    static func meter(_ arguments: [String], environment: [String: String] = [:]) throws -> (
        readings: [[String: Any]], summary: [String: Any], result: ChildProcess.Result
    ) {
        let result = try BuiltBinary.run(["meter", "--json"] + arguments, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: true)
        // One JSON object per reading line; the summary is the pretty-printed rest.
        let readings = try lines.prefix { $0.hasPrefix("{\"") }.map { try MicrophoneTestSupport.object(String($0)) }
        let rest = lines.drop { $0.hasPrefix("{\"") }.joined(separator: "\n")
        return (readings, try MicrophoneTestSupport.object(rest), result)
    }

    /// A reading's or summary's channels: (peak, rms, clipped), nil for silence.
    static func channels(_ reading: [String: Any]) throws -> [(peak: Double?, rms: Double?, clipped: Int)] {
        let channels = try #require(reading["channels"] as? [[String: Any]])
        return channels.map { ($0["peak"] as? Double, $0["rms"] as? Double, $0["clipped"] as? Int ?? -1) }
    }

    static func near(_ value: Double?, _ expected: Double, _ tolerance: Double = 0.05) -> Bool {
        value.map { abs($0 - expected) <= tolerance } ?? false
    }

    @Test(arguments: ["dbl", "fltp", "s16", "s32", "u8"])
    func halfScaleSinePeaksAtMinus6WithRMSMinus9(format: String) throws {
        let (readings, summary, _) = try Self.meter([Self.halfScale(format), "--duration", "1", "--interval", "0.5"])
        // Readings cut at exact sample counts: two of half a second.
        #expect(readings.map { $0["start"] as? Double } == [0, 0.5])
        #expect(readings.map { $0["duration"] as? Double } == [0.5, 0.5])
        #expect(readings.allSatisfy { $0["event"] as? String == "audio_level" })
        for reading in readings {
            let channel = try #require(try Self.channels(reading).first)
            #expect(Self.near(channel.peak, -6.02), "\(format): \(reading)")
            #expect(Self.near(channel.rms, -9.03), "\(format): \(reading)")
            #expect(channel.clipped == 0)
        }
        #expect(summary["duration"] as? Double == 1)
        let levels = try #require(summary["levels"] as? [String: Any])
        #expect(Self.near(levels["peak"] as? Double, -6.02))
        #expect(Self.near(levels["rms"] as? Double, -9.03))
        #expect(levels["seconds_silent"] as? Double == 0)
    }

    /// Digital silence reads as such (null in JSON, -inf in text), counts as silent seconds, and
    /// is warned about once it has lasted 5 s, with sound coming back told as well.
    @Test func silenceReadsAsSilenceAndIsWarnedAbout() throws {
        let graph = "lavfi:aevalsrc=0.5*sin(2*PI*1000*t)*gte(t\\,7):s=48000"
        let (readings, summary, result) = try Self.meter([graph, "--duration", "8", "--interval", "1"])
        #expect(readings.count == 8)
        for reading in readings.prefix(7) {
            #expect(try Self.channels(reading).first.map { $0.peak == nil && $0.rms == nil } == true, "\(reading)")
        }
        #expect(Self.near(try Self.channels(readings[7]).first?.peak, -6.02))
        let levels = try #require(summary["levels"] as? [String: Any])
        #expect(levels["seconds_silent"] as? Double == 7)
        let warnings = result.stderr.split(separator: "\n")
        #expect(warnings.count == 2, "\(result.stderr)")
        #expect(
            warnings.first?.hasPrefix("Warning: \(graph): digital silence for 5 s (every sample below -90 dBFS)")
                == true)
        #expect(warnings.last == "Warning: \(graph): sound again after 7.0 s of digital silence")

        let text = try BuiltBinary.run(["meter", "lavfi:anullsrc=r=48000:cl=mono", "--duration", "1"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("00:00:01.0  [..........] -inf dBFS\n"), "\(text.stdout)")
        #expect(text.stdout.contains("peak -inf dBFS, RMS -inf dBFS, 0 clipped, 1.0 s of digital silence"))
    }

    /// A square wave at 1.5 times full scale, converted to 16 bits: every sample but the first
    /// (sgn(0) is 0) sits at the format's extremes.
    @Test func squarePastFullScaleCountsClippedSamples() throws {
        let graph = "lavfi:aevalsrc=1.5*sgn(sin(2*PI*440*t)):s=48000,aformat=sample_fmts=s16"
        let (readings, summary, _) = try Self.meter([graph, "--duration", "1", "--interval", "1"])
        let first = try #require(readings.first)
        let channel = try #require(try Self.channels(first).first)
        #expect(channel.clipped == 47_999)
        #expect(channel.peak == 0)
        #expect((summary["levels"] as? [String: Any])?["clipped"] as? Int == 47_999)
    }

    /// A stereo source with its right channel silent: each channel's own level.
    @Test func eachChannelHasItsOwnLevel() throws {
        let graph = Self.halfScale("s16", channels: "0.5*sin(2*PI*1000*t)|0")
        let (readings, _, _) = try Self.meter([graph, "--duration", "0.5", "--interval", "0.5"])
        let first = try #require(readings.first)
        let channels = try Self.channels(first)
        try #require(channels.count == 2)
        #expect(Self.near(channels[0].peak, -6.02))
        #expect(Self.near(channels[0].rms, -9.03))
        #expect(channels[1].peak == nil && channels[1].rms == nil)
        let text = try BuiltBinary.run(["meter", graph, "--duration", "1"])
        #expect(text.stdout.contains("L [#########.] -6.0  R [..........] -inf dBFS\n"), "\(text.stdout)")
    }

    /// A recording's levels: `audio_level` events every `--level-interval` of the recording's
    /// clock, and the summary's, which match the file's own samples as ffmpeg decodes them.
    @Test func recordingReportsLevelsThatMatchItsFile() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("a.wav")
        let result = try BuiltBinary.run(
            [
                "record", "--audio", Self.halfScale("s16", channels: "0.5*sin(2*PI*1000*t)|0.25*sin(2*PI*500*t)"),
                "--duration", "3", "--json", "--level-interval", "1", file,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let events = try lines.prefix { $0.hasPrefix("{\"") }.map { try MicrophoneTestSupport.object(String($0)) }
        #expect(events.map { $0["start"] as? Double } == [0, 1, 2])
        // The end is where the file's audio ends, placed from microsecond times: within a sample.
        #expect(
            events.map { abs(($0["duration"] as? Double ?? 0) - 1) <= 1.0 / 48000 } == [true, true, true], "\(events)")
        for event in events {
            let channels = try Self.channels(event)
            #expect(Self.near(channels.first?.peak, -6.02) && Self.near(channels.last?.peak, -12.04), "\(event)")
        }
        let summary = try MicrophoneTestSupport.object(lines.drop { $0.hasPrefix("{\"") }.joined(separator: "\n"))
        let levels = try #require((summary["audio"] as? [String: Any])?["levels"] as? [String: Any])
        // The oracle: the loudest channel's peak and RMS over the file's samples.
        let samples = try RecordSampleFormatTests.samples(["-i", file])
        let left = stride(from: 0, to: samples.count, by: 2).map { Double(samples[$0]) / 2_147_483_648 }
        let peak = 20 * log10(left.map(abs).max() ?? 0)
        let rms = 20 * log10((left.reduce(0) { $0 + $1 * $1 } / Double(left.count)).squareRoot())
        #expect(Self.near(levels["peak"] as? Double, peak, 0.01), "\(levels) against \(peak)")
        #expect(Self.near(levels["rms"] as? Double, rms, 0.01), "\(levels) against \(rms)")
        #expect(levels["clipped"] as? Int == 0)
    }

    /// The meter's readings stop at once when its reader goes away, and --quiet leaves them out.
    @Test func meterStopsWithItsReaderAndQuietMeansQuiet() throws {
        let piped = try ChildProcess.run(
            "bash",
            ["-c", "timeout 20 '\(BuiltBinary.path)' meter test --json | head -1; echo \"${PIPESTATUS[0]:-?}\""])
        let lines = piped.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("{\"channels\"") == true, "\(piped.stdout)")
        // Ended by the broken pipe (1, said on stderr), not by the timeout (124).
        #expect(lines.last == "1", "\(piped.stdout) \(piped.stderr)")
        let quiet = try BuiltBinary.run(["meter", Self.halfScale("s16"), "--duration", "2", "--json", "--quiet"])
        #expect(quiet.status == 0)
        #expect(!quiet.stdout.contains("audio_level"), "\(quiet.stdout)")
        #expect((try MicrophoneTestSupport.object(quiet.stdout))["duration"] as? Double == 2)
    }

    /// Levels as JSON lines need --json and a microphone: refused with 64, one line and usage.
    @Test(arguments: [
        (["--audio", "test", "--duration", "1", "--level-interval", "1"], "add --json"),
        (["--video", "test", "--duration", "1", "--json", "--level-interval", "1"], "add --audio"),
        (["--audio", "test", "--duration", "1", "--json", "--level-interval", "0.01"], "--level-interval"),
    ])
    func levelIntervalIsRefusedWhereItCannotApply(arguments: [String], says: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(["record"] + arguments + [scratch.path("x.mkv")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(says), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.mkv")))
    }

    /// An ALSA PCM (libasound's `file` plugin reading a quarter-scale tone): -12.04 dBFS, and a
    /// device that is not there exits 66 as for a recording.
    @Test func alsaMicrophoneIsMeasured() throws {
        let scratch = try RecordScratch()
        let raw = scratch.path("tone.raw")
        let made = try ChildProcess.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "aevalsrc=0.25*sin(2*PI*997*t):s=48000:d=3", "-f",
                "s16le", "-ac", "1", "-y", raw,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let asoundrc =
            "pcm.bench_mic {\n type file\n slave.pcm \"null\"\n file \"/dev/null\"\n infile \"\(raw)\"\n format \"raw\"\n}\n"
        try asoundrc.write(toFile: scratch.path(".asoundrc"), atomically: true, encoding: .utf8)
        let environment = ["HOME": scratch.url.path, "XDG_CONFIG_HOME": ""]
        let (readings, summary, _) = try Self.meter(
            ["bench_mic", "--sample-rate", "48000", "--channels", "1", "--duration", "1"], environment: environment)
        #expect(readings.count == 1)
        let first = try #require(readings.first)
        #expect(Self.near(try Self.channels(first).first?.peak, -12.04))
        #expect((summary["input"] as? String)?.hasPrefix("pcm_s16le") == true, "\(summary)")

        let missing = try BuiltBinary.run(["meter", "hw:CARD=NoSuchCard,DEV=0"], environment: environment)
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.hasPrefix("Error: hw:CARD=NoSuchCard,DEV=0: "), "\(missing.stderr)")
    }

    /// A PulseAudio source (the test server's sine source): the levels `parec` records from it,
    /// measured here, are the oracle.
    @Test func pulseSourceIsMeasured() throws {
        let server = try MicrophonePulseTests.TestServer()
        defer { server.stop() }
        let scratch = try RecordScratch()
        let raw = scratch.path("tone.f32")
        let recorded = try ChildProcess.run(
            "sh",
            [
                "-c",
                "timeout 1 parec --raw --format=float32le --rate=48000 --channels=1 -d capture_test_tone > '\(raw)'; "
                    + "test -s '\(raw)'",
            ], environment: server.environment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }.map { Double($0) }
        try #require(samples.count > 4800)
        let peak = 20 * log10(samples.map(abs).max() ?? 0)
        let rms = 20 * log10((samples.reduce(0) { $0 + $1 * $1 } / Double(samples.count)).squareRoot())

        let (readings, summary, _) = try Self.meter(
            ["pulse:capture_test_tone", "--sample-rate", "48000", "--channels", "1", "--duration", "1"],
            environment: server.environment)
        #expect(readings.count == 1)
        let levels = try #require(summary["levels"] as? [String: Any])
        #expect(Self.near(levels["peak"] as? Double, peak, 0.1), "\(levels) against parec's \(peak)")
        #expect(Self.near(levels["rms"] as? Double, rms, 0.1), "\(levels) against parec's \(rms)")
    }
}
