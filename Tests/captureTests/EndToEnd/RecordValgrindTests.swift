import Foundation
import Testing

/// Every FFmpeg object a recording allocates is freed: a 300-frame H.264 + AAC recording under
/// valgrind's leak checker loses no byte for certain. Skipped only without valgrind, which
/// `make deps` installs.
@Suite struct RecordValgrindTests {
    @Test(
        .enabled(
            if: ChildProcess.which("valgrind") != nil, "valgrind is not installed (make deps installs it)"))
    func threeHundredFramesLoseNoMemory() async throws {
        let scratch = try RecordScratch()
        let file = scratch.path("valgrind.mp4")
        let log = scratch.path("valgrind.log")
        // --error-exitcode also fires on invalid reads and writes; only definite leaks count as
        // errors, since the Swift runtime and Dispatch keep caches reachable until exit.
        // At the lowest priority: it takes a core for half a minute, which the real-time cases
        // running beside it must not feel.
        let valgrind = try #require(ChildProcess.which("valgrind"))
        let process = try ChildProcess.recording(
            [
                "-n", "19", valgrind, "--leak-check=full", "--errors-for-leak-kinds=definite", "--error-exitcode=99",
                "--log-file=\(log)",
                BuiltBinary.path, "record", "--video", "lavfi:testsrc2=size=320x240:rate=30", "--audio",
                RecordSources.audio,
                "--frames", "300", "--preset", "ultrafast", "--quiet", file,
            ],
            program: try #require(ChildProcess.which("nice")), in: scratch)
        let exit = try await onOwnThread { process.wait(timeout: 600) }
        let report = String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self)
        #expect(
            exit == .init(status: 0, signal: nil),
            "capture under valgrind: \(exit?.description ?? "still running")\n\(process.stderr)\n\(report)")
        let definitelyLost = report.split(separator: "\n").first { $0.contains("definitely lost:") }
        let allFreed = report.contains("All heap blocks were freed")
        #expect(allFreed || definitelyLost?.contains("definitely lost: 0 bytes in 0 blocks") == true, "\(report)")
        #expect(report.contains("ERROR SUMMARY: 0 errors"), "\(report)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.frames == 300)
        #expect(probe.audio?.codec == "aac")
    }
}
