import Foundation
import Testing

@testable import CaptureCore
@testable import capture

/// `--serve` and the options that shape the preview, as `record` reads them (and `serve`, which
/// shares them): what becomes of each, and what is refused.
@Suite struct PreviewOptionsTests {
    static func record(_ arguments: [String]) throws -> RecordCommand {
        try RecordCommand(try parse(arguments + ["x.mkv"], as: RecordCommand.spec))
    }

    @Test func theOptionsBecomeTheSettings() throws {
        let plain = try Self.record(["--serve", ":8081"]).request.preview
        #expect(plain == PreviewSettings(host: "127.0.0.1", port: 8081))
        let shaped = try Self.record([
            "--serve", "0.0.0.0:9000", "--serve-rate", "12.5", "--serve-size", "320x200", "--serve-token", "abc",
        ]).request.preview
        #expect(
            shaped
                == PreviewSettings(host: "0.0.0.0", port: 9000, rate: 12.5, maxWidth: 320, maxHeight: 200, token: "abc")
        )
        #expect(try Self.record(["--serve-size", "800", "--serve", "8080"]).request.preview?.maxWidth == 800)
        #expect(try Self.record([]).request.preview == nil)
    }

    @Test func aTokenFileGivesItsFirstLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "s3cret\nignored\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try Self.record(["--serve", ":8080", "--serve-token-file", path]).request.preview?.token == "s3cret")
        #expect(throws: CaptureError.self) { try Self.record(["--serve", ":8080", "--serve-token-file", path + "x"]) }
    }

    @Test(arguments: [
        ["--serve", "example.com:80"], ["--serve", "127.0.0.1:0"], ["--serve", "127.0.0.1:http"],
        ["--serve", ":8080", "--serve-rate", "0"], ["--serve", ":8080", "--serve-rate", "61"],
        ["--serve", ":8080", "--serve-size", "8x8"], ["--serve", ":8080", "--serve-size", "640x"],
        ["--serve-rate", "5"], ["--serve-token", "t"],
        ["--serve", ":8080", "--serve-token", "a", "--serve-token-file", "/dev/null"],
    ])
    func refused(arguments: [String]) {
        #expect(throws: UsageError.self) { try Self.record(arguments) }
    }
}
