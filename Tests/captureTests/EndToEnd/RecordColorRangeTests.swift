import Foundation
import Testing

/// Full-range pictures (a JPEG's, here lavfi's `yuvj422p`) encoded to H.264 keep their range,
/// tagged `pc` (FFmpeg's H.264 decoder gives such a stream as `yuvj420p`): the luma of the file
/// spans what the source's does, as FFmpeg reads the same graph, where a conversion to limited
/// range would have squeezed it towards 16-235 (the 10th and 90th percentiles: the extremes are
/// the encoder's ringing). Limited-range sources stay limited.
@Suite struct RecordColorRangeTests {
    /// The 10th and 90th percentile of the luma of the first frame of `input` (ffmpeg's input options), as
    /// FFmpeg's signalstats reads it.
    static func lumaRange(_ input: [String]) throws -> (Double, Double) {
        let run = try ChildProcess.run(
            "ffmpeg",
            ["-v", "error"] + input + ["-frames:v", "1", "-vf", "signalstats,metadata=print:file=-", "-f", "null", "-"])
        func value(_ key: String) -> Double? {
            run.stdout.split(separator: "\n").first { $0.hasPrefix("lavfi.signalstats.\(key)=") }
                .flatMap { Double($0.split(separator: "=")[1]) }
        }
        return (try #require(value("YLOW"), "\(run.stdout) \(run.stderr)"), try #require(value("YHIGH")))
    }

    /// The source's pixel format, options, and what ffprobe must read of the file: its pixel
    /// format and range (limited range may go untagged, as x264 writes no range without a
    /// matrix). A pixel format asked for is limited range, as ffmpeg's `-pix_fmt yuv420p` gives.
    /// The summary names the pixel format as ffprobe does.
    @Test(arguments: [
        ("yuvj422p", [], ["yuvj420p,pc"]), ("yuv422p", [], ["yuv420p,tv", "yuv420p,unknown"]),
        ("yuvj422p", ["--pixel-format", "yuv420p"], ["yuv420p,tv", "yuv420p,unknown"]),
    ])
    func theRangeIsKeptAndTagged(source format: String, options: [String], tags expected: [String]) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("range.mp4")
        let graph = "testsrc2=size=320x240:rate=30,format=\(format)"
        let result = try BuiltBinary.run(
            ["record", "--json", "--video", "lavfi:" + graph, "--frames", "5"] + options + [file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("deprecated pixel format"), "\(result.stderr)")
        let tags = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=pix_fmt,color_range", "-of",
                "csv=p=0", file,
            ])
        let read = tags.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(expected.contains(read), "\(tags.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let video = (summary?["video"] as? [String: Any]) ?? ((summary?["videos"] as? [[String: Any]])?.first)
        let probed = read.split(separator: ",").first.map(String.init)
        #expect(video?["pixel_format"] as? String == probed, "\(result.stdout)")
        let (low, high) = try Self.lumaRange(["-i", file])
        let source = try Self.lumaRange(["-f", "lavfi", "-i", graph])
        if options.isEmpty {
            #expect(abs(low - source.0) <= 2 && abs(high - source.1) <= 2, "luma \(low)-\(high), source \(source)")
        } else {
            // Converted to limited range: the luma squeezed towards 16-235.
            #expect(low > source.0 + 5 && high < source.1 - 5, "luma \(low)-\(high), source \(source)")
        }
    }
}
