import Foundation
import Testing

/// Microphones as they are (issue 11): PCM keeps the input's sample format, `--sample-format`
/// chooses another, channel counts an encoder cannot hold are refused before recording, named
/// layouts are written as such. ffmpeg decodes the files; the samples are compared with what the
/// source played.
@Suite struct RecordSampleFormatTests {
    /// Four channels of 32-bit samples at 16 kHz: a loud 997 Hz tone with a 3001 Hz component
    /// 100 dB below full scale, which only the low 16 bits carry.
    static let tone32 =
        "aevalsrc=" + Array(repeating: "0.5*sin(2*PI*997*t)+0.00001*sin(2*PI*3001*t)", count: 4).joined(separator: "|")
        + ":s=16000:d=1,aformat=sample_fmts=s32"

    /// The samples of `path` (or of a lavfi graph) as signed 32-bit integers, decoded by ffmpeg.
    static func samples(_ input: [String]) throws -> [Int32] {
        let scratch = try RecordScratch()
        let raw = scratch.path("samples.raw")
        let result = try ChildProcess.run(
            "ffmpeg", ["-nostdin", "-v", "error"] + input + ["-f", "s32le", "-c:a", "pcm_s32le", "-y", raw])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
    }

    static func record(_ arguments: [String], environment: [String: String] = [:]) throws -> (
        ChildProcess.Result, [String: Any]?
    ) {
        let result = try BuiltBinary.run(["record", "--json", "--quiet"] + arguments, environment: environment)
        let summary = result.status == 0 ? try MicrophoneTestSupport.object(result.stdout) : nil
        return (result, summary)
    }

    /// 32-bit samples go into .wav, .mkv and .nut as pcm_s32le bit for bit.
    @Test(arguments: ["wav", "mkv", "nut"])
    func thirtyTwoBitSamplesKeepEveryBit(ext: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("a.\(ext)")
        let (result, summary) = try Self.record(["--audio", "lavfi:" + Self.tone32, file])
        #expect(result.status == 0, "\(result.stderr)")
        let audio = try #require(summary?["audio"] as? [String: Any])
        #expect(audio["sample_format"] as? String == "s32")
        #expect(audio["channel_layout"] as? String == "4.0")
        let stream = try #require(try RecordOracle.probe(file).audio)
        #expect(stream.codec == "pcm_s32le")
        #expect(stream.channels == 4)
        let played = try Self.samples(["-f", "lavfi", "-i", Self.tone32])
        let written = try Self.samples(["-i", file])
        #expect(played.count == 64000)
        #expect(written == played)
    }

    /// `--sample-format s24` writes pcm_s24le (the top 24 bits), FLAC keeps 24 of 32 bits by
    /// itself, and `flt` writes 32-bit float within float's precision.
    @Test(arguments: [
        ("wav", ["--sample-format", "s24"], "pcm_s24le", "s24"), ("flac", [], "flac", "s24"),
        ("mkv", ["--sample-format", "flt"], "pcm_f32le", "flt"),
        ("wav", ["--sample-format", "s16"], "pcm_s16le", "s16"),
    ])
    func sampleFormatWrittenIsTheOneAskedFor(ext: String, options: [String], codec: String, format: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("a.\(ext)")
        let (result, summary) = try Self.record(["--audio", "lavfi:" + Self.tone32] + options + [file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((summary?["audio"] as? [String: Any])?["sample_format"] as? String == format)
        #expect(try RecordOracle.probe(file).audio?.codec == codec)
        let played = try Self.samples(["-f", "lavfi", "-i", Self.tone32])
        let written = try Self.samples(["-i", file])
        try #require(written.count == played.count)
        let worst = zip(played, written).map { abs(Int64($0) - Int64($1)) }.max() ?? 0
        switch format {
        case "s24":
            // Exactly the top 24 bits: the low 8 are cut, the -100 dB component stays.
            #expect(written == played.map { $0 & ~0xff })
        case "flt":
            #expect(worst <= 256)
        default:
            #expect(written == played.map { $0 & ~0xffff })
        }
    }

    /// An ALSA PCM (libasound's `file` plugin reading 32-bit samples) opened in S32_LE keeps its
    /// low 16 bits: a 16-bit path would leave them all zero.
    @Test func alsaMicrophoneKeepsItsLowBits() throws {
        let scratch = try RecordScratch()
        let raw = scratch.path("tone.raw")
        let made = try ChildProcess.run(
            "ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", Self.tone32, "-f", "s32le", "-y", raw])
        #expect(made.status == 0, "\(made.stderr)")
        let asoundrc = """
            pcm.array4 {
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "\(raw)"
                format "raw"
            }

            """
        try asoundrc.write(toFile: scratch.path(".asoundrc"), atomically: true, encoding: .utf8)
        let environment = ["HOME": scratch.url.path, "XDG_CONFIG_HOME": ""]
        let file = scratch.path("a.wav")
        let (result, summary) = try Self.record(
            [
                "--audio", "array4", "--sample-format", "s32", "--sample-rate", "16000", "--channels", "4",
                "--duration", "0.5", file,
            ], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let audio = try #require(summary?["audio"] as? [String: Any])
        #expect(audio["sample_format"] as? String == "s32")
        #expect((audio["input"] as? String)?.hasPrefix("pcm_s32le") == true)
        #expect(try RecordOracle.probe(file).audio?.codec == "pcm_s32le")
        let written = try Self.samples(["-i", file])
        try #require(written.count > 16000)
        // Silence (a gap the recorder fills) has no low bits either; the tone must have them.
        let sounding = written.filter { $0 != 0 }
        try #require(sounding.count > 16000)
        let lowBitsZero = sounding.filter { $0 & 0xffff == 0 }.count
        #expect(lowBitsZero * 100 < sounding.count, "\(lowBitsZero) of \(sounding.count) samples have no low bits")
    }

    /// Ten channels into AAC: exit 69 before recording, naming the count, what AAC takes and how
    /// to keep them; PCM keeps all ten, in unspecified order.
    @Test func tenChannelsAreRefusedByAACAndKeptByPCM() throws {
        let ten =
            "lavfi:aevalsrc=" + Array(repeating: "0.1*sin(2*PI*440*t)", count: 10).joined(separator: "|")
            + ":s=48000:d=0.5"
        let scratch = try RecordScratch()
        let refused = try BuiltBinary.run(["record", "--video", "test", "--audio", ten, scratch.path("x.mp4")])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        for part in ["10 channels", "aac", "1 to 8", "--channels 8", "PCM", ".wav", ".mkv"] {
            #expect(refused.stderr.contains(part), "\(part): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.mp4")))

        for ext in ["wav", "mkv"] {
            let file = scratch.path("x.\(ext)")
            let (result, summary) = try Self.record(["--audio", ten, file])
            #expect(result.status == 0, "\(result.stderr)")
            #expect((summary?["audio"] as? [String: Any])?["channel_layout"] as? String == "10 channels")
            #expect(try RecordOracle.probe(file).audio?.channels == 10)
        }
    }

    /// Named counts are written with their names; ffprobe reads them back.
    @Test(arguments: [(1, "mono"), (2, "stereo"), (4, "4.0"), (6, "5.1"), (8, "7.1")])
    func namedLayoutsAreWrittenAsSuch(channels: Int, name: String) throws {
        let graph =
            "lavfi:aevalsrc=" + Array(repeating: "0.1*sin(2*PI*440*t)", count: channels).joined(separator: "|")
            + ":s=48000:d=0.3"
        let scratch = try RecordScratch()
        // Matroska and NUT store a channel count only; WAVE (its channel mask) and MP4 the layout.
        for ext in ["wav", "m4a"] {
            let file = scratch.path("x.\(ext)")
            let (result, _) = try Self.record(["--audio", graph, file])
            #expect(result.status == 0, "\(result.stderr)")
            let probe = try ChildProcess.run(
                "ffprobe", ["-v", "error", "-show_entries", "stream=channel_layout", "-of", "csv=p=0", file])
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == name, "\(ext)")
        }
    }

    /// Opus at 44.1 kHz: resampled to 48 kHz, said once.
    @Test func opusResamplesFortyFourPointOneAndSaysSoOnce() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("x.opus")
        let result = try BuiltBinary.run(
            ["record", "--audio", "lavfi:sine=frequency=440:sample_rate=44100:duration=1", file])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Warning:") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(warnings.first?.contains("44100 Hz") == true && warnings.first?.contains("48000 Hz") == true)
        let oracle = try RecordOracle.probe(file)
        #expect(oracle.audio?.sampleRate == 48000)
        #expect(abs((oracle.duration ?? 0) - 1) < 0.05)
    }
}
