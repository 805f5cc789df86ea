import Foundation
import Testing

/// A refusal that names a fix must name one that works: each container or codec a message
/// suggests is followed here, and ffprobe reads what it wrote back.
@Suite struct RecordSuggestionTests {
    /// Exit 64 or 66, one line, saying `cause`.
    static func expectRefused(
        _ result: ChildProcess.Result, status: Int32, saying cause: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            result.stderr.split(separator: "\n").count == 1 || status == 64, "\(result.stderr)",
            sourceLocation: sourceLocation)
        #expect(result.stderr.contains(cause), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    /// The first line of stderr: usage errors add the usage lines after it.
    static func firstLine(_ result: ChildProcess.Result) -> String {
        String(result.stderr.split(separator: "\n").first ?? "")
    }

    /// The words of a list such as `a or b or c` or `.x, .y` after `prefix` in `line`, up to
    /// `end` (a comma, or the line's end).
    static func list(after prefix: String, in line: String, until end: String? = nil) -> [String] {
        guard let start = line.range(of: prefix) else { return [] }
        var rest = line[start.upperBound...]
        if let end, let stop = rest.range(of: end) { rest = rest[..<stop.lowerBound] }
        return rest.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init).filter { $0 != "or" }
    }

    /// The ways out a refusal offers, each as the value to ask for and the file to write: every
    /// value after `values` in a file of `ext`, then `kept` in each container after `containers`.
    /// Expects the refusal to offer both kinds.
    static func attempts(
        offeredBy refusal: ChildProcess.Result, values: String, containers: String, keeping kept: String,
        ext: String, in scratch: RecordScratch, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [(value: String, path: String)] {
        let line = firstLine(refusal)
        let offered = list(after: values, in: line, until: ",")
        let elsewhere = list(after: containers, in: line)
        #expect(!offered.isEmpty && !elsewhere.isEmpty, "\(line)", sourceLocation: sourceLocation)
        return offered.map { ($0, scratch.path("as-\($0).\(ext)")) }
            + elsewhere.map { (kept, scratch.path("moved\($0)")) }
    }

    /// Records `arguments` into a file of each extension in `containers`; each must succeed, and
    /// ffprobe's reading of it passes `check`.
    static func follow(
        _ containers: [String], with arguments: [String], in scratch: RecordScratch,
        sourceLocation: SourceLocation = #_sourceLocation, check: (RecordOracle) -> Bool
    ) throws {
        for ext in containers {
            let path = scratch.path("moved\(ext)")
            let result = try BuiltBinary.run(arguments + [path])
            #expect(result.status == 0, "\(ext): \(result.stderr)", sourceLocation: sourceLocation)
            let probe = try RecordOracle.probe(path)
            #expect(check(probe), "\(ext): \(probe)", sourceLocation: sourceLocation)
        }
    }

    @Test func anUnknownCameraNameIsNoALSANameAndPointsToList() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(["record", "--video", "nosuch", scratch.path("out.mkv")])
        Self.expectRefused(result, status: 66, saying: "nosuch: no such device; not a camera name or a V4L2 node")
        #expect(result.stderr.contains("capture list"), "\(result.stderr)")
        #expect(!result.stderr.contains("ALSA"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.mkv")))
    }

    @Test func anUnknownMicrophoneNameSaysWhatALSALacksAndPointsToList() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(["record", "--audio", "nosuch", scratch.path("out.wav")])
        Self.expectRefused(
            result, status: 66,
            saying:
                "nosuch: no such device; not an ALSA card or a PCM the ALSA configuration defines (see capture list)"
        )
    }

    /// Raw video refused for .mp4 suggests only containers whose files ffprobe reads back as
    /// yuv420p, every frame.
    @Test func rawVideoRefusedForMP4SuggestsContainersThatReadBack() throws {
        let scratch = try RecordScratch()
        let args = ["record", "--video", RecordSources.video, "--codec", "raw", "--pixel-format", "yuv420p"]
        let refused = try BuiltBinary.run(args + ["--frames", "5", scratch.path("out.mp4")])
        Self.expectRefused(refused, status: 64, saying: ".mp4 files cannot hold raw video")
        let suggested = Self.list(after: "record raw to ", in: Self.firstLine(refused))
        #expect(!suggested.isEmpty, "\(refused.stderr)")
        try Self.follow(suggested, with: args + ["--frames", "5"], in: scratch) {
            $0.video?.pixelFormat == "yuv420p" && $0.video?.frames == 5
        }
        for ext in suggested { #expect(try RecordOracle.decodesCleanly(scratch.path("moved\(ext)")), "\(ext)") }
    }

    /// Raw yuv420p in .mov would read back as RGB: it is refused, asked for or the source's own,
    /// and each pixel format and container the refusal names then reads back as written.
    @Test func rawYUV420InMOVIsRefusedWithFixesThatWork() throws {
        let scratch = try RecordScratch()
        let source = ["record", "--video", RecordSources.video, "--codec", "raw", "--frames", "5"]
        let asked = try BuiltBinary.run(source + ["--pixel-format", "yuv420p", scratch.path("asked.mov")])
        Self.expectRefused(asked, status: 64, saying: ".mov files cannot hold raw yuv420p pictures; use ")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("asked.mov")))
        let own = try BuiltBinary.run(source + [scratch.path("own.mov")])
        Self.expectRefused(own, status: 64, saying: ".mov files cannot hold raw yuv420p pictures; use ")
        let attempts = Self.attempts(
            offeredBy: asked, values: "use --pixel-format ", containers: "record yuv420p to ", keeping: "yuv420p",
            ext: "mov", in: scratch)
        for (format, path) in attempts {
            let result = try BuiltBinary.run(source + ["--pixel-format", format, path])
            #expect(result.status == 0, "\(path): \(result.stderr)")
            let video = try RecordOracle.probe(path).video
            #expect(video?.pixelFormat == format && video?.frames == 5, "\(path): \(String(describing: video))")
            #expect(try RecordOracle.decodesCleanly(path), "\(path)")
        }
    }

    /// An audio codec a container refuses: every codec and container the refusal then names
    /// records, and ffprobe finds that codec in the file.
    @Test(arguments: [("mp4", "pcm"), ("mov", "opus"), ("avi", "opus"), ("mov", "flac")])
    func audioCodecRefusalsSuggestWhatMuxes(ext: String, codec: String) throws {
        let scratch = try RecordScratch()
        let args = ["record", "--video", RecordSources.video, "--audio", RecordSources.audio, "--frames", "5"]
        let refused = try BuiltBinary.run(args + ["--audio-codec", codec, scratch.path("out.\(ext)")])
        Self.expectRefused(refused, status: 64, saying: ".\(ext) files cannot hold \(codec) audio; use ")
        let attempts = Self.attempts(
            offeredBy: refused, values: "use --audio-codec ", containers: "record \(codec) to ", keeping: codec,
            ext: ext, in: scratch)
        for (chosen, path) in attempts {
            let result = try BuiltBinary.run(args + ["--audio-codec", chosen, path])
            #expect(result.status == 0, "\(path): \(result.stderr)")
            let audio = try RecordOracle.probe(path).audio
            let expected = ["pcm": "pcm_", "aac": "aac", "opus": "opus", "flac": "flac"][chosen] ?? chosen
            #expect(audio?.codec.hasPrefix(expected) == true, "\(path): \(String(describing: audio))")
        }
    }

    /// A deep pixel format .mkv cannot carry: each container the refusal names then records it
    /// (YUV4MPEG writes such formats only at unofficial strictness, so it is not among them).
    @Test func rawDeepPixelFormatRefusalNamesContainersThatWork() throws {
        let scratch = try RecordScratch()
        let args = [
            "record", "--video", RecordSources.video, "--codec", "raw", "--pixel-format", "yuv420p10le", "--frames",
            "3",
        ]
        let refused = try BuiltBinary.run(args + [scratch.path("deep.mkv")])
        Self.expectRefused(refused, status: 64, saying: ".mkv files cannot hold raw yuv420p10le pictures")
        let containers = Self.list(after: "record yuv420p10le to ", in: Self.firstLine(refused))
        #expect(!containers.isEmpty && !containers.contains(".y4m"), "\(refused.stderr)")
        try Self.follow(containers, with: args, in: scratch) { $0.video?.pixelFormat == "yuv420p10le" }
    }

    /// Video and audio into an audio-only container: every container the refusal names takes both.
    @Test func videoIntoAnAudioOnlyContainerSuggestsOnesThatTakeBoth() throws {
        let scratch = try RecordScratch()
        let args = ["record", "--video", RecordSources.video, "--audio", RecordSources.audio, "--frames", "3"]
        let refused = try BuiltBinary.run(args + [scratch.path("both.wav")])
        Self.expectRefused(refused, status: 64, saying: ".wav files hold audio only; record video to ")
        let containers = Self.list(after: "record video to ", in: Self.firstLine(refused))
        #expect(!containers.isEmpty, "\(refused.stderr)")
        try Self.follow(containers, with: args, in: scratch) { $0.video != nil && $0.audio != nil }
    }

    /// FFmpeg writes AAC into WAV, and then cannot decode it: refused, with codecs that play.
    @Test func aacInWAVIsRefused() throws {
        let scratch = try RecordScratch()
        let refused = try BuiltBinary.run([
            "record", "--audio", RecordSources.audio, "--audio-codec", "aac", "--duration", "0.5",
            scratch.path("a.wav"),
        ])
        Self.expectRefused(refused, status: 64, saying: ".wav files cannot hold aac audio; use ")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("a.wav")))
    }

    /// 32-bit samples with FLAC: the refusal's way out, PCM, names the containers that hold it when
    /// this one does not (a .flac file holds FLAC only), and each of them then records s32.
    @Test func flacAt32BitsPointsToPCMWhereItFits() throws {
        let scratch = try RecordScratch()
        let args = ["record", "--audio", RecordSources.audio, "--duration", "0.5", "--sample-format", "s32"]
        let refused = try BuiltBinary.run(args + ["--audio-codec", "flac", scratch.path("deep.flac")])
        Self.expectRefused(refused, status: 64, saying: "or --audio-codec pcm for s32 in .")
        let containers = Self.list(after: "for s32 in ", in: Self.firstLine(refused))
        #expect(!containers.isEmpty && !containers.contains(".flac"), "\(refused.stderr)")
        try Self.follow(containers, with: args + ["--audio-codec", "pcm"], in: scratch) {
            $0.audio?.codec.hasPrefix("pcm_s32") == true
        }
        let inMKV = try BuiltBinary.run(args + ["--audio-codec", "flac", scratch.path("deep.mkv")])
        Self.expectRefused(inMKV, status: 64, saying: "or --audio-codec pcm for s32\n")
    }
}
