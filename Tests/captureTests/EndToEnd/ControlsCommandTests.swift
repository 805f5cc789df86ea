import Foundation
import Testing

/// `capture controls` and `record --control` where no camera is needed: the command line's own
/// checks and the sources that have no controls. The cameras are in the guest suite
/// (Tests/VM/tests/controls-v4l2.sh).
@Suite struct ControlsCommandTests {
    @Test func theTestSourceHasNoControls() throws {
        let result = try BuiltBinary.run(["controls", "test"])
        #expect(result.status == 69)
        #expect(result.stderr == "Error: test: has no controls: only V4L2 cameras (/dev/videoN) have controls\n")
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        (
            ["controls", "test", "--set", "brightness"],
            "Error: --set takes NAME=VALUE, e.g. brightness=20, not 'brightness'"
        ),
        (["controls", "test", "--reset", "--load", "p.json"], "Error: --reset and --load cannot be combined"),
        (["record", "--video", "test", "--control", "=1", "x.mkv"], "Error: --control takes NAME=VALUE"),
        (["record", "--video", "test", "--restore-controls", "x.mkv"], "Error: --restore-controls needs --control"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try BuiltBinary.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }

    @Test func recordControlNeedsACameraAndLeavesNoFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("controls-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("x.mkv").path
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--frames", "2", "--control", "brightness=1", output,
        ])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: --control and --controls-from need a V4L2 camera as --video"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
