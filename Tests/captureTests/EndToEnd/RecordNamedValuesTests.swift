import Foundation
import Testing

/// Frame sizes and rates by ffmpeg's names (`hd720`, `ntsc`), end to end: the built binary records
/// and snapshots the test source, ffprobe reads the size and rate back.
@Suite struct RecordNamedValuesTests {
    @Test func namedSizeAndRateReachTheFile() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("named.mkv")
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--video-size", "qvga", "--framerate", "pal", "--frames", "5", "--quiet",
            file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.width == 320 && probe.video?.height == 240)
        #expect(probe.video?.frameRate == "25/1")
        #expect(probe.video?.frames == 5)
    }

    /// ntsc is 30000/1001 exactly, in the request, the summary and the file.
    @Test func ntscStaysAnExactFraction() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("ntsc.nut")
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--video-size", "qqvga", "--framerate", "ntsc", "--codec", "raw", "--frames",
            "3", "--json", file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let video = try #require(try MicrophoneTestSupport.object(result.stdout)["video"] as? [String: Any])
        for key in ["frame_rate", "frame_rate_requested"] {
            let rate = try #require(video[key] as? [String: Any], "\(key)")
            #expect(rate["numerator"] as? Int == 30000 && rate["denominator"] as? Int == 1001, "\(key)")
        }
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.width == 160 && probe.video?.height == 120)
        #expect(probe.video?.frameRate == "30000/1001")
    }

    @Test func snapshotTakesANamedSize() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("named.png")
        let result = try BuiltBinary.run(["snapshot", "test", "--video-size", "qvga", "--skip", "0", "--quiet", file])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.width == 320 && probe.video?.height == 240)
    }
}
