import Foundation
import Testing

/// A file per device: a device field in the file name (`cam%d.mp4`, `%{name}`) writes each
/// device's stream into a file of its own, all on the recording's one clock.
@Suite struct RecordDeviceFilesTests {
    static let cameras = RecordSeveralDevicesTests.cameras
    static let microphone = RecordSeveralDevicesTests.microphones[0]

    @Test func eachDeviceHasItsFileStartingAtTheSameZero() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.runNiced([
            "record", "--video", Self.cameras[0], "--video", Self.cameras[1], "--audio", Self.microphone, "--duration",
            "2", "--json", scratch.path("cam%d.mp4"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try MicrophoneTestSupport.object(result.stdout)
        let files = try #require(summary["files"] as? [[String: Any]], "\(summary)")
        let paths = (0..<3).map { scratch.path("cam\($0).mp4") }
        #expect(files.compactMap { $0["path"] as? String } == paths)
        #expect(summary["output"] as? String == scratch.path("cam%d.mp4"))
        let sizes = try paths.map { try #require(try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) }
        #expect(files.compactMap { $0["file_size"] as? Int } == sizes)
        #expect(summary["file_size"] as? Int == sizes.reduce(0, +))

        // Each file holds its device's stream only: the two cameras in the order given, then the
        // microphone; each lasts the recording and starts at the recording's zero.
        let probes = try paths.map { try RecordOracle.probe($0) }
        #expect(probes.map { $0.streams.map(\.type) } == [["video"], ["video"], ["audio"]])
        #expect(probes.compactMap(\.video?.width) == [160, 320])
        for (path, probe) in zip(paths, probes) {
            let stream = try #require(probe.streams.first)
            #expect(abs(try #require(stream.start)) <= 0.05, "\(path) starts at \(stream.start ?? -1)")
            #expect(abs(try #require(stream.duration ?? probe.duration) - 2) <= 0.1, "\(path)")
            #expect(try RecordOracle.decodesCleanly(path), "\(path)")
        }
        // Each camera's stream is titled with its device, as in one file.
        #expect(probes.prefix(2).map { $0.video?.title } == Self.cameras)
    }

    /// `%{name}` names each file after its device; two of one name need the number as well.
    @Test func nameFieldsAndTheirClash() throws {
        let scratch = try RecordScratch()
        let named = try BuiltBinary.run([
            "record", "--video", "test", "--audio", "test", "--frames", "5", scratch.path("%{name}-%{index}.mkv"),
        ])
        #expect(named.status == 0, "\(named.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(made.count == 2 && made[0].hasSuffix("-0.mkv") && made[1].hasSuffix("-1.mkv"), "\(made)")

        // The test pattern and the test tone are both named 'test'.
        let clash = try BuiltBinary.run([
            "record", "--video", "test", "--audio", "test", "--frames", "5", scratch.path("x-%{name}.mkv"),
        ])
        #expect(clash.status == 64, "\(clash.stderr)")
        #expect(clash.stderr.contains("x-test.mkv") && clash.stderr.contains("%{index}"), "\(clash.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x-test.mkv")))
    }

    /// A second device's file that exists is refused before anything is written, unless --force.
    @Test func anExistingFileOfAnyDeviceIsRefused() throws {
        let scratch = try RecordScratch()
        try Data("keep".utf8).write(to: URL(fileURLWithPath: scratch.path("cam1.mkv")))
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--audio", "test", "--frames", "5", scratch.path("cam%d.mkv"),
        ])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains(scratch.path("cam1.mkv")), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("cam0.mkv")))
        #expect(try String(contentsOfFile: scratch.path("cam1.mkv"), encoding: .utf8) == "keep")
    }

    /// With segments, each device's series is cut at the same instants of the recording's clock.
    @Test func segmentsCutEveryDevicesSeriesAtOnce() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.runNiced([
            "record", "--video", Self.cameras[0], "--video", Self.cameras[1], "--audio", Self.microphone, "--duration",
            "3", "--segment-time", "1", "--json", scratch.path("cam%{index}-%n.mkv"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let (events, summary) = try RecordSegmentTests.events(result.stdout)
        let closed = events.filter { $0["event"] as? String == "segment_closed" }
        for device in 0..<3 {
            let series = closed.filter { ($0["path"] as? String)?.hasPrefix(scratch.path("cam\(device)-")) == true }
            #expect(series.compactMap { $0["start"] as? Double } == [0, 1, 2], "device \(device): \(series)")
            for segment in series {
                let path = try #require(segment["path"] as? String)
                let probe = try RecordOracle.probe(path)
                #expect(abs(try #require(probe.duration) - 1) <= 0.05, "\(path): \(probe.duration ?? 0) s")
                #expect(probe.streams.count == 1, "\(path)")
            }
        }
        let files = try #require(summary["files"] as? [[String: Any]])
        #expect(files.compactMap { $0["segments"] as? Int } == [3, 3, 3])
        for file in files { #expect(abs((file["duration"] as? Double ?? 0) - 3) <= 0.05, "\(file)") }
    }

    @Test(arguments: [
        // A microphone's file cannot be .y4m; a camera's cannot be .wav.
        (["--video", "test", "--audio", "test"], "cam%d.y4m"),
        (["--video", "test", "--audio", "test"], "cam%d.wav"),
        // A playlist's name takes no field.
        (["--video", "test"], "cam%d.m3u8"),
    ])
    func aFileADeviceCannotGoIntoIsRefused(arguments: [String], output: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(["record", "--frames", "5"] + arguments + [scratch.path(output)])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }
}
