import Foundation
import Testing

/// A package outside this one depends on CaptureCore by path and records a clip with a few
/// lines (Tests/LibraryClient, the program README's Library section shows): the library's public
/// API is enough to plan, record and stop, without the command line.
@Suite struct LibraryClientTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test(.timeLimit(.minutes(10))) func aClientPackageRecordsOneSecondFromTheTestSources() throws {
        let client = Self.repository.appendingPathComponent("Tests/LibraryClient")
        // Its own scratch folder under the repository's .build, so a second run builds incrementally.
        let scratch = Self.repository.appendingPathComponent(".build/library-client")
        let build = try ChildProcess.run(
            "/usr/bin/env", ["swift", "build", "--package-path", client.path, "--scratch-path", scratch.path])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("library-client-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("clip.mkv").path
        let run = try ChildProcess.run(scratch.appendingPathComponent("debug/record-clip"), [output])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasPrefix("\(output): "), "\(run.stdout)")
        // The library keeps FFmpeg's log to itself unless asked.
        #expect(!run.stderr.contains("libx264"), "\(run.stderr)")
        let probe = try ChildProcess.run(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_type:format=duration", "-of", "csv=p=0", output])
        let lines = probe.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "video" }.count == 1 && lines.filter { $0 == "audio" }.count == 1, "\(lines)")
        let duration = lines.compactMap(Double.init).first ?? 0
        #expect(abs(duration - 1) <= 0.1, "duration \(duration)")
    }

    @Test func readmeShowsTheClientAsItIs() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let client = try String(
            contentsOf: Self.repository.appendingPathComponent("Tests/LibraryClient/Sources/record-clip/main.swift"),
            encoding: .utf8)
        let section = try #require(readme.range(of: "## Library\n"))
        let rest = readme[section.upperBound...]
        let start = try #require(rest.range(of: "```swift\n"))
        let end = try #require(rest[start.upperBound...].range(of: "\n```\n"))
        let shown = String(rest[start.upperBound..<end.lowerBound])
        #expect(client.hasSuffix(shown + "\n"), "README's Library example differs from Tests/LibraryClient")
    }
}
