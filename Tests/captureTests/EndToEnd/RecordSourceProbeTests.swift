import Foundation
import Testing

/// `capture probe` on the sources `record` takes without hardware: the test pattern, the test
/// tone, and lavfi graphs; what it reports must match what ffprobe sees in the same graph.
@Suite struct RecordSourceProbeTests {
    @Test func testPatternAndToneAreDescribed() throws {
        let video = try BuiltBinary.run(["probe", "test"])
        #expect(video.status == 0, "\(video.stderr)")
        #expect(video.stdout.contains("video: rawvideo yuv420p 640x480 30 fps"))
        let audio = try BuiltBinary.run(["probe", "--audio", "test"])
        #expect(audio.status == 0, "\(audio.stderr)")
        #expect(audio.stdout.contains("audio: pcm_s16le s16 48000 Hz 1 channel"))
    }

    @Test func lavfiGraphMatchesFFprobe() throws {
        let graph = "testsrc=size=320x240:rate=25"
        let result = try BuiltBinary.run(["probe", "lavfi:\(graph)", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let streams = try #require(object["streams"] as? [[String: Any]])
        #expect(streams.count == 1)
        let stream = try #require(streams.first)
        let oracle = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-f", "lavfi", "-i", graph, "-show_entries",
                "stream=codec_name,pix_fmt,width,height,r_frame_rate",
                "-of", "default=noprint_wrappers=1",
            ])
        let fields = Dictionary(
            uniqueKeysWithValues: oracle.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            })
        #expect(stream["codec"] as? String == fields["codec_name"])
        #expect(stream["pixel_format"] as? String == fields["pix_fmt"])
        #expect((stream["width"] as? Int).map(String.init) == fields["width"])
        #expect((stream["height"] as? Int).map(String.init) == fields["height"])
        let rate = try #require(stream["frame_rate"] as? [String: Any])
        #expect("\(rate["numerator"] ?? "")/\(rate["denominator"] ?? "")" == fields["r_frame_rate"])
    }

    @Test func aGraphThatDoesNotOpenIsAUsageError() throws {
        let result = try BuiltBinary.run(["probe", "lavfi:nosuchfilter"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("No such filter: 'nosuchfilter'"))
    }
}
