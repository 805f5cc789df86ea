import Foundation
import Testing

/// What the record pipeline writes, picture for picture: raw frames written through unchanged,
/// copied raw streams labelled with their pixel format.
@Suite struct RecordPipelineTests {
    /// One MD5 per decoded frame (`-f framemd5`), the pictures as any player would see them.
    static func frameHashes(_ input: [String]) throws -> [String] {
        let result = try ChildProcess.run("ffmpeg", ["-nostdin", "-v", "error"] + input + ["-f", "framemd5", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces)
        }
    }

    // `--codec copy` of a raw source once wrote NUT without a codec tag, which NUT reads as 15-bit
    // RGB: the file opened, but as other pictures.
    @Test(arguments: ["nut", "mkv", "avi"])
    func copyOfRawGivesTheSamePicturesAsRaw(ext: String) throws {
        let scratch = try RecordScratch()
        let graph = "testsrc2=size=320x240:rate=30"
        var hashes: [String: [String]] = [:]
        for codec in ["copy", "raw"] {
            let file = scratch.path("\(codec).\(ext)")
            let result = try BuiltBinary.run(
                ["record", "--video", "lavfi:" + graph, "--codec", codec, "--frames", "10", "--quiet", file])
            #expect(result.status == 0, "\(result.stderr)")
            let probe = try RecordOracle.probe(file)
            #expect(probe.video?.codec == "rawvideo")
            #expect(probe.video?.pixelFormat == "yuv420p", "--codec \(codec) to .\(ext)")
            hashes[codec] = try Self.frameHashes(["-i", file])
        }
        let source = try Self.frameHashes(["-f", "lavfi", "-i", graph, "-frames:v", "10"])
        #expect(source.count == 10)
        #expect(hashes["copy"] == source)
        #expect(hashes["raw"] == source)
    }

    // Raw frames in the recorded size and format are written as they came: every layout must
    // still give the source's pictures (packed 4:2:2, semi-planar, odd sizes with rounded-up
    // chroma, and one converted on the way for contrast).
    @Test(
        arguments: [
            ("testsrc2=size=320x240:rate=30,format=yuyv422", [], "yuyv422"),
            ("testsrc2=size=320x240:rate=30,format=nv12", [], "nv12"),
            ("testsrc=size=161x121:rate=30,format=yuv420p", [], "yuv420p"),
            ("testsrc2=size=320x240:rate=30", ["--pixel-format", "yuyv422"], "yuyv422"),
        ] as [(String, [String], String)])
    func rawFramesKeepTheirPictures(graph: String, options: [String], pixelFormat: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("raw.nut")
        let result = try BuiltBinary.run(
            ["record", "--video", "lavfi:" + graph, "--frames", "6", "--quiet"] + options + [file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try RecordOracle.probe(file).video?.pixelFormat == pixelFormat)
        let source = try Self.frameHashes(
            ["-f", "lavfi", "-i", graph, "-frames:v", "6", "-pix_fmt", pixelFormat])
        #expect(try Self.frameHashes(["-i", file]) == source)
    }
}

/// H.264 from a source already in 4:2:0 once came out all keyframes: the decoder marks raw
/// pictures as I frames and libx264 obeys a frame's type.
@Suite struct RecordH264FrameTypeTests {
    @Test func keyframesComeEveryTwoSecondsNotEveryFrame() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("clip.mkv")
        let result = try BuiltBinary.run(
            ["record", "--video", "lavfi:testsrc2=size=320x240:rate=30", "--frames", "90", "--quiet", file])
        #expect(result.status == 0, "\(result.stderr)")
        let packets = try ChildProcess.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-of", "csv=p=0", file])
        let flags = packets.stdout.split(separator: "\n")
        #expect(flags.count == 90)
        // At most one keyframe every 2 s (60 frames) at 30 fps: frames 0 and 60.
        #expect(flags.filter { $0.hasPrefix("K") }.count == 2)
    }
}

/// A camera that hands over one capture twice (vivid's first frame, when its thread wakes early on
/// a slow machine) once had the repeat take the next slot: every later frame then sat a slot
/// early until the next gap, which it hid. The repeat is a duplicate, counted late; the frames
/// after it keep their own times, and the gap stays a gap.
@Suite struct RecordRepeatedFrameTests {
    @Test func aFrameStampedTwiceIsADuplicateAndTheNextGapStays() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("repeat.nut")
        // Source frame 1 carries frame 0's time, every later one its own time less a frame:
        // times 0, 0, 1, 2, ... in frames; frame 11 (time 10) is left out.
        let graph = "testsrc2=size=160x120:rate=30,setpts='max(N-1\\,0)',select='not(eq(n\\,11))'"
        let result = try BuiltBinary.run(
            ["record", "--video", "lavfi:" + graph, "--codec", "raw", "--duration", "1", "--json", "--quiet", file])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let video = summary?["video"] as? [String: Any]
        let dropped = video?["frames_dropped"] as? [String: Int]
        #expect(video?["frames_written"] as? Int == 29)
        #expect(dropped == ["late": 1, "corrupt": 0, "gaps": 1])
        // ffprobe's packet times: every slot of the second but the one left empty.
        let times = try ChildProcess.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", file])
        let slots = times.stdout.split(separator: "\n").compactMap { Double($0) }.map { Int(($0 * 30).rounded()) }
        #expect(slots == Array(0..<10) + Array(11..<30))
        // Each slot holds the source's picture for that time: frame 0, then frame k + 1 in slot k.
        let source = try RecordPipelineTests.frameHashes([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-frames:v", "31",
        ])
        let expected = [source[0]] + (1..<30).filter { $0 != 10 }.map { source[$0 + 1] }
        #expect(try RecordPipelineTests.frameHashes(["-i", file]) == expected)
    }
}
