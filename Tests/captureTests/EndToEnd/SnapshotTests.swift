import Foundation
import Testing

/// `capture snapshot` from the test sources, each picture read back by ffprobe and ffmpeg.
@Suite struct SnapshotTests {
    struct Summary: Decodable {
        struct Still: Decodable {
            var path: String
            var format: String
            var width: Int
            var height: Int
            var bytes: Int
            var frame: Int
            var time: Double
            var copied: Bool
        }
        var device: String
        var stills: [Still]
    }

    static func summary(_ result: ChildProcess.Result) throws -> Summary {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Summary.self, from: Data(result.stdout.utf8))
    }

    static func timed(_ arguments: [String]) throws -> (ChildProcess.Result, TimeInterval) {
        let start = Date()
        let result = try BuiltBinary.run(arguments)
        return (result, Date().timeIntervalSince(start))
    }

    @Test(arguments: [
        ("x.png", "png", "rgb24"), ("x.jpg", "mjpeg", "yuvj420p"), ("x.JPEG", "mjpeg", "yuvj420p"),
        ("x.ppm", "ppm", "rgb24"), ("x.pgm", "pgm", "gray"),
    ])
    func formatFollowsTheExtension(name: String, codec: String, pixelFormat: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path(name)
        let result = try BuiltBinary.run(["snapshot", "test", "--video-size", "320x240", "--skip", "0", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Saved \(file): 320x240"), "\(result.stdout)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.codec == codec)
        #expect(probe.video?.pixelFormat == pixelFormat)
        #expect(probe.video?.width == 320 && probe.video?.height == 240)
        #expect(try RecordOracle.decodesCleanly(file))
        #expect(try RecordOutputReplaceTests.hidden(in: scratch.url.path).isEmpty)
    }

    /// The picture is the source's frame itself: an RGB test source's frame 3 as PPM is byte for
    /// byte what ffmpeg writes for that frame.
    @Test func pictureIsTheFrameAsked() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("f.ppm")
        let reference = scratch.path("ref.ppm")
        let result = try BuiltBinary.run(["snapshot", "lavfi:testsrc=size=160x120:rate=10", "--skip", "3", file])
        #expect(result.status == 0, "\(result.stderr)")
        let made = try ChildProcess.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-vf",
                "select=eq(n\\,3)", "-frames:v", "1", "-c:v", "ppm", "-f", "image2", reference,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let ours = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(ours == (try Data(contentsOf: URL(fileURLWithPath: reference))))
        let other = scratch.path("g.ppm")
        #expect(
            try BuiltBinary.run(["snapshot", "lavfi:testsrc=size=160x120:rate=10", "--skip", "4", other]).status == 0)
        #expect(ours != (try Data(contentsOf: URL(fileURLWithPath: other))))
    }

    /// By default frames are dropped for a second of the source's time (auto exposure), on the
    /// real-time test source a second of the clock too; `--skip 0` takes the first frame.
    @Test func settleAndSkip() throws {
        let scratch = try RecordScratch()
        let (settled, settledTime) = try Self.timed(["snapshot", "test", "--json", scratch.path("a.png")])
        #expect(settled.status == 0, "\(settled.stderr)")
        let still = try #require(try Self.summary(settled).stills.first)
        #expect(still.time >= 1.0 && still.time < 1.1, "\(still)")
        #expect(still.frame == 30, "\(still)")
        #expect(settledTime >= 1.0)
        let (first, _) = try Self.timed(["snapshot", "test", "--json", "--skip", "0", scratch.path("b.png")])
        #expect(try Self.summary(first).stills.first?.frame == 0)
        #expect(try Self.summary(first).stills.first?.time == 0)
        let (half, _) = try Self.timed(["snapshot", "test", "--json", "--settle", "0.5", scratch.path("c.png")])
        let halfStill = try #require(try Self.summary(half).stills.first)
        #expect(halfStill.frame == 15 && halfStill.time >= 0.5, "\(halfStill)")
        #expect(try Self.summary(half).stills.first?.frame == 15)
    }

    /// `--count 3 --interval 0.5` into a template without fields: three numbered files half a
    /// second apart on the source's clock and on the wall clock.
    @Test func countIntervalAndTemplate() throws {
        let scratch = try RecordScratch()
        let (result, elapsed) = try Self.timed([
            "snapshot", "test", "--video-size", "160x120", "--skip", "0", "--count", "3", "--interval", "0.5",
            "--json", scratch.path("p.jpg"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let stills = try Self.summary(result).stills
        #expect(stills.map { ($0.path as NSString).lastPathComponent } == ["p-0001.jpg", "p-0002.jpg", "p-0003.jpg"])
        for (index, still) in stills.enumerated() {
            #expect(abs(still.time - 0.5 * Double(index)) < 0.04, "\(still)")
            #expect(try RecordOracle.probe(still.path).video?.codec == "mjpeg")
        }
        #expect(elapsed >= 1.0)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("p.jpg")))
    }

    /// Time fields in UTC: every name is one the template makes from a time within the run.
    @Test func timeFieldsInTheName() throws {
        let scratch = try RecordScratch()
        let before = Date()
        let result = try BuiltBinary.run([
            "snapshot", "test", "--skip", "0", "--count", "2", "--interval", "0.1", "--utc", "--quiet",
            scratch.path("t-%Y%m%d%H%M%S-%n.png"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(names.count == 2, "\(names)")
        for (index, name) in names.enumerated() {
            let parts = name.split(separator: "-")
            let stamp = try #require(formatter.date(from: String(parts[1])))
            #expect(stamp >= before.addingTimeInterval(-1) && stamp <= Date().addingTimeInterval(1), "\(name)")
            #expect(parts[2] == "000\(index + 1).png")
        }
    }

    /// A single picture's name is read as a template is: %% gives one '%', a field is filled in.
    @Test func singleNameWithPercent() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(
            ["snapshot", "test", "--skip", "0", "--quiet", scratch.path("p-100%%.png"), "--utc"])
        #expect(result.status == 0, "\(result.stderr)")
        let dated = try BuiltBinary.run([
            "snapshot", "test", "--skip", "0", "--quiet", "--utc", scratch.path("d-%Y.png"),
        ])
        #expect(dated.status == 0, "\(dated.stderr)")
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year!
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(names == ["d-\(year).png", "p-100%.png"], "\(names)")
        // (ffprobe would read a '%' in a .png name as an image sequence's pattern.)
        #expect(try RecordOracle.probe(scratch.path("d-\(year).png")).video?.codec == "png")
        // A '%' in the folder only is part of the folder's name.
        try FileManager.default.createDirectory(atPath: scratch.path("f%d"), withIntermediateDirectories: false)
        let folder = try BuiltBinary.run(["snapshot", "test", "--skip", "0", "--quiet", scratch.path("f%d/x.png")])
        #expect(folder.status == 0, "\(folder.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("f%d/x.png")))
    }

    /// An existing file is refused (73) and keeps its bytes; `--force` replaces it. A numbered
    /// series with a taken name is refused before any picture.
    @Test func overwriteRules() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("o.png")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try BuiltBinary.run(["snapshot", "test", "--skip", "0", file])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("\(file): file exists; use --force"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("old\n".utf8))
        let forced = try BuiltBinary.run(["snapshot", "test", "--skip", "0", "--force", file])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try RecordOracle.probe(file).video?.codec == "png")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: scratch.path("s-0002.png")))
        let series = try BuiltBinary.run(["snapshot", "test", "--skip", "0", "--count", "2", scratch.path("s.png")])
        #expect(series.status == 73, "\(series.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("s-0001.png")))
        #expect(try RecordOutputReplaceTests.hidden(in: scratch.url.path).isEmpty)
    }

    /// A template whose names repeat faster than its finest field (an unpaced source gives its
    /// frames at once) never replaces a picture of its own series, even with --force: the series
    /// ends with 73 naming the file, and --json still lists the pictures written, each on disk.
    @Test(arguments: [["--force"], []])
    func aSeriesNeverReplacesItsOwnPicture(options: [String]) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(
            ["snapshot", "lavfi:testsrc=size=160x120", "--skip", "0", "--count", "5", "--interval", "1", "--json"]
                + options + [scratch.path("s-%H%M%S.png")])
        #expect(result.status == 73, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(
            lines.first?.hasPrefix("Error: \(scratch.path("s-"))") == true
                && result.stderr.contains("the template gave this name to an earlier picture of this series"),
            "\(result.stderr)")
        let stills = try Self.summary(result).stills
        #expect((1..<5).contains(stills.count), "\(result.stdout)")
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(files == stills.map { ($0.path as NSString).lastPathComponent }.sorted())
        for still in stills { #expect(try RecordOracle.probe(still.path).video?.codec == "png") }
        let json = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((json["error"] as? String)?.contains("earlier picture") == true, "\(result.stdout)")
    }

    @Test(arguments: [
        (["test", "x.gif"], 64, "no picture format"),
        (["test", "x"], 64, "no picture format"),
        (["test", "x.png", "--skip", "1", "--settle", "1"], 64, "give one of them"),
        (["test", "x.png", "--settle", "0.2"], 64, "--settle takes a number from 0.5"),
        (["test", "x.png", "--interval", "2"], 64, "--interval applies with --count"),
        (["test", "x%q.png", "--count", "2"], 64, "%q is no template field"),
        (["test", "x%q.png"], 64, "x%q.png: %q is no template field"),
        (["test", "x%.png"], 64, "%. is no template field"),
        (
            ["test", "s-%H%M%S.png", "--count", "4", "--interval", "0.4", "--force"], 64,
            "s-%H%M%S.png: its names change every 1 s, less often than pictures are taken (every 0.4 s); add %n"
        ),
        (["test", "m-%H%M.png", "--count", "2", "--interval", "30"], 64, "its names change every 60 s"),
        (["test", "x.png", "--count", "0"], 64, "--count takes"),
        (["/dev/video-none", "x.png"], 66, "no such device"),
        (["test", "missing/x.png"], 73, "does not exist"),
        (["lavfi:testsrc=d=0.2:r=10", "x.png", "--skip", "5"], 74, "the source ended after 2 frames"),
        (["lavfi:anullsrc", "x.png"], 64, "gives no video"),
    ])
    func badInput(arguments: [String], status: Int32, message: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(
            ["snapshot"]
                + arguments.map { $0.hasSuffix("png") || $0.hasSuffix("gif") || $0 == "x" ? scratch.path($0) : $0 })
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    /// SIGINT while the source settles: nothing written, exit 0, said on stderr.
    @Test func stopBeforeThePicture() throws {
        let scratch = try RecordScratch()
        let process = try ChildProcess.recording(
            ["snapshot", "test", "--settle", "10", scratch.path("i.png")], in: scratch)
        process.sleep(untilElapsed: 1)
        process.signalGroup(SIGINT)
        let exit = process.wait(timeout: 10)
        #expect(exit?.status == 0, "\(exit?.description ?? "still running"): \(process.stderr)")
        #expect(process.stderr.contains("stopped by SIGINT before the first picture"), "\(process.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("i.png")))
    }

    /// SIGINT in the middle of a series: the pictures taken stay, whole, and the exit is 0.
    @Test func stopInTheMiddleOfASeries() throws {
        let scratch = try RecordScratch()
        let process = try ChildProcess.recording(
            ["snapshot", "test", "--skip", "0", "--count", "10", "--interval", "1", scratch.path("m.png")], in: scratch)
        process.sleep(untilElapsed: 2.5)
        process.signalGroup(SIGINT)
        let exit = process.wait(timeout: 10)
        #expect(exit?.status == 0, "\(exit?.description ?? "still running"): \(process.stderr)")
        #expect(process.stdout.contains("Stopped by SIGINT after"), "\(process.stdout)")
        let written = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
            .filter { $0.hasSuffix(".png") }.sorted()
        #expect((1..<10).contains(written.count), "\(written)")
        for name in written { #expect(try RecordOracle.decodesCleanly(scratch.path(name)), "\(name)") }
        #expect(try RecordOutputReplaceTests.hidden(in: scratch.url.path).isEmpty)
    }
}
