import Foundation
import Testing

/// The output appears only once its header is written, moved there from a hidden file beside it:
/// a failure before that never touches an existing file, and two recordings to one name cannot
/// both succeed.
@Suite struct RecordOutputReplaceTests {
    /// The files in `folder` whose name starts with a dot: a temporary file left behind.
    static func hidden(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }
    }

    /// `--force` and a muxer that refuses the streams when writing the header (Matroska and raw
    /// 10-bit planar RGB as it is): the command fails, and the existing file keeps its bytes.
    @Test func forcedRecordingThatFailsLeavesTheExistingFile() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("k.mkv")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: file))
        let result = try BuiltBinary.run([
            "record", "--video", "lavfi:testsrc=size=64x48:rate=10,format=gbrp10le", "--force", "--codec", "copy",
            "--duration", "0.3", file,
        ])
        #expect(result.status != 0, "\(result.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("old\n".utf8), "\(result.stderr)")
        #expect(try Self.hidden(in: scratch.url.path).isEmpty)
    }

    /// Two recordings started together to one new name: one writes it (exit 0), the other finds
    /// it taken when its header is ready (exit 73), and no temporary file stays.
    @Test func concurrentRecordingsToOneNameDoNotBothSucceed() async throws {
        let scratch = try RecordScratch()
        let file = scratch.path("race.mkv")
        let arguments = ["record", "--video", "test", "--duration", "1", "--quiet", file]
        let first = try ChildProcess.recording(arguments, in: scratch, name: "first")
        let second = try ChildProcess.recording(arguments, in: scratch, name: "second")
        let exits = try await onOwnThread { [first.wait(timeout: 20), second.wait(timeout: 20)] }
        let statuses = exits.map { $0?.status }.sorted { ($0 ?? -1) < ($1 ?? -1) }
        #expect(statuses == [0, 73], "\(exits): \(first.stderr) \(second.stderr)")
        let loser = exits[0]?.status == 73 ? first : second
        #expect(loser.stderr.contains("\(file): file exists"), "\(loser.stderr)")
        #expect(try Self.hidden(in: scratch.url.path).isEmpty)
        let probe = try RecordOracle.probe(file)
        #expect(probe.streams.count == 1)
    }
}
