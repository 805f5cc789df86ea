import Foundation
import Testing

@testable import capture

/// `--wait [TIMEOUT]`: named devices that are not there are waited for, indices are not.
@Suite struct DeviceWaitTests {
    let spec = CommandSpec(
        name: "demo", abstract: "A demo.", arguments: [ArgumentSpec(name: "output", help: "Where.")],
        options: [.waitOption])

    @Test func theTimeoutIsOptional() throws {
        let bare = try parse(["--wait", "out.mp4"], as: spec)
        #expect(bare.flag("--wait") && bare.value("--wait") == nil && bare.positionals == ["out.mp4"])
        let given = try parse(["--wait", "1h30m", "out.mp4"], as: spec)
        #expect(given.value("--wait") == "1h30m" && given.positionals == ["out.mp4"])
        let inline = try parse(["--wait=5", "3"], as: spec)
        #expect(inline.value("--wait") == "5" && inline.positionals == ["3"])
        #expect(try DeviceWaitOption(given, command: spec)?.timeout == 5400)
        #expect(try DeviceWaitOption(bare, command: spec)?.timeout == nil)
        #expect(try DeviceWaitOption(bare, command: spec) != nil)
        #expect(try DeviceWaitOption(parse(["x"], as: spec), command: spec) == nil)
        #expect(throws: UsageError.self) { try DeviceWaitOption(parse(["--wait=soon", "x"], as: spec), command: spec) }
    }

    /// A camera that never appears: waited for until the timeout, said on stderr, then 66.
    @Test func aDeviceThatNeverAppears() throws {
        let scratch = try RecordScratch()
        let node = scratch.path("video-never")
        let start = Date()
        let result = try BuiltBinary.run(["record", "--video", node, "--wait", "1.5", scratch.path("x.mkv")])
        let elapsed = Date().timeIntervalSince(start)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(
            result.stderr.contains("Waiting for camera \(node), which is not there yet (up to 1.5 s"),
            "\(result.stderr)")
        #expect(result.stderr.contains("still not there after waiting 1.5 s (--wait)"), "\(result.stderr)")
        #expect(elapsed >= 1.5 && elapsed < 6, "\(elapsed)")
        let microphone = try BuiltBinary.run(["snapshot", "--wait=1", "/dev/v4l/by-id/never", scratch.path("x.png")])
        #expect(microphone.status == 66, "\(microphone.stderr)")
        let card = try BuiltBinary.run([
            "record", "--audio", "hw:CARD=NeverThere", "--wait", "1", scratch.path("x.wav"),
        ])
        #expect(card.status == 66, "\(card.stderr)")
        #expect(card.stderr.contains("Waiting for microphone hw:CARD=NeverThere"), "\(card.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    /// Something appears at the path after a second: the wait ends and the device is judged as it
    /// is then (a regular file is no camera: 69), well before the timeout.
    @Test func theWaitEndsWhenThePathAppears() throws {
        let scratch = try RecordScratch()
        let node = scratch.path("video-later")
        let process = try ChildProcess.recording(
            ["record", "--video", node, "--wait", "20", scratch.path("x.mkv")], in: scratch)
        process.sleep(untilElapsed: 1)
        FileManager.default.createFile(atPath: node, contents: Data())
        let exit = process.wait(timeout: 10)
        #expect(exit?.status == 69, "\(exit?.description ?? "still running"): \(process.stderr)")
        #expect(process.elapsed < 5)
        #expect(process.stderr.contains("Waiting for camera \(node)"), "\(process.stderr)")
        #expect(process.stderr.contains("camera \(node) is there (after"), "\(process.stderr)")
        #expect(process.stderr.contains("not a camera"), "\(process.stderr)")
    }

    @Test func indicesAreNotWaitedFor() throws {
        let scratch = try RecordScratch()
        let start = Date()
        let result = try BuiltBinary.run(["record", "--video", "9", "--wait", "5", scratch.path("x.mkv")])
        #expect(result.status == 66)
        #expect(result.stderr.contains("not by an index"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(start) < 3)
        let unnamed = try BuiltBinary.run(["record", "--wait", scratch.path("x.mkv")])
        #expect(unnamed.status == 64)
        #expect(unnamed.stderr.contains("--wait waits for a device named with --video or --audio"), "\(unnamed.stderr)")
    }

    /// A device that is there is not waited for; the test sources never are.
    @Test func presentDevicesGoAhead() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "snapshot", "--wait", "test", "--skip", "0", scratch.path("t.png"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("Waiting"), "\(result.stderr)")
    }

    /// SIGINT while waiting: nothing written, exit 0.
    @Test func aStopWhileWaiting() throws {
        let scratch = try RecordScratch()
        let process = try ChildProcess.recording(
            ["record", "--audio", "hw:CARD=NotYet", "--wait", scratch.path("x.wav")], in: scratch)
        process.sleep(untilElapsed: 1)
        process.signalGroup(SIGINT)
        let exit = process.wait(timeout: 5)
        #expect(exit?.status == 0, "\(exit?.description ?? "still running"): \(process.stderr)")
        #expect(process.stderr.contains("stopped by SIGINT while waiting"), "\(process.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.wav")))
    }
}
