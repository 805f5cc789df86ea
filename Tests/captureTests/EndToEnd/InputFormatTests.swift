import Foundation
import Testing

/// `--input-format` with the sources that have one fixed format: a name that is no format is a
/// usage error whatever the source; a real format is one they cannot deliver.
@Suite struct InputFormatTests {
    @Test(arguments: [
        (["--video", "test", "--input-format", "bogus"], Int32(64), "unknown input format 'bogus'"),
        (["--video", "lavfi:testsrc2=d=1", "--input-format", "bogus"], Int32(64), "unknown input format 'bogus'"),
        (
            ["--video", "test", "--input-format", "mjpeg"], Int32(69),
            "test: --input-format does not apply: the test source delivers yuv420p only"
        ),
        (
            ["--video", "lavfi:testsrc2=d=1", "--input-format", "YUYV"], Int32(69),
            "--input-format does not apply: a lavfi graph"
        ),
        // A rate or size the test pattern cannot have once exited 1 with FFmpeg's words alone.
        (
            ["--video", "test", "--framerate", "0.001"], Int32(69),
            "test: the test source cannot make what was asked (Invalid argument); ask for another --video-size or "
                + "--framerate"
        ),
    ])
    func fixedFormatSources(arguments: [String], status: Int32, message: String) throws {
        let folder = try MicrophoneTestSupport.scratchFolder("input-format")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.mkv").path
        let result = try BuiltBinary.run(["record"] + arguments + ["--duration", "0.5", output])
        #expect(result.status == status)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message))
        // A usage error adds the usage line; any other error is one line.
        if status != 64 { #expect(result.stderr.split(separator: "\n").count == 1) }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
