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

    /// A FIFO or a device given as the output with `--force` is written as it is and not read
    /// back: the read-back once opened the FIFO to read, which waits for a writer that never
    /// comes, and the recording hung after its file was complete, deaf to Ctrl-C.
    @Test func aFIFOOrADeviceIsWrittenAsItIsAndNotReadBack() async throws {
        let scratch = try RecordScratch()
        let fifo = scratch.path("pipe.mkv")
        #expect(mkfifo(fifo, 0o600) == 0)
        let copy = scratch.path("copy.mkv")
        // A player at the other end of the pipe.
        let reader = try ChildProcess.recording(
            ["-c", "cat \"$0\" > \"$1\"", fifo, copy], program: "/bin/sh", in: scratch, name: "reader")
        let capture = try ChildProcess.recording(
            ["record", "--video", "test", "--duration", "1", "--force", "--json", fifo], in: scratch)
        let exits = try await onOwnThread { [capture.wait(timeout: 30), reader.wait(timeout: 10)] }
        if exits[0] == nil { capture.signalGroup(SIGKILL) }
        if exits[1] == nil { reader.signalGroup(SIGKILL) }
        #expect(exits[0]?.status == 0, "\(capture.stderr)")
        #expect(exits[1]?.status == 0)
        // A Matroska file written to a pipe has no duration in its header: its frames say it.
        let summary = try JSONSerialization.jsonObject(with: Data(capture.stdout.utf8)) as? [String: Any]
        let written = (summary?["video"] as? [String: Any])?["frames_written"] as? Int
        #expect(written == 30, "one second of the 30 fps test pattern")
        #expect(try RecordOracle.probe(copy).video?.frames == written, "the reader got every frame")
        let device = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "0.5", "--force", "--format", "matroska", "--quiet", "/dev/null",
        ])
        #expect(device.status == 0, "\(device.stderr)")
    }
}
