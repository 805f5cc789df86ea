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
        // Past about 9e12 s the wait's message and deadline overflowed: the command died of SIGILL.
        let huge = try parse(["--wait", "99999999999999999999", "x"], as: spec)
        #expect(throws: UsageError.self) { try DeviceWaitOption(huge, command: spec) }
        #expect(try DeviceWaitOption(parse(["--wait=1000000000", "x"], as: spec), command: spec)?.timeout == 1e9)
    }

    /// The whole command: a TIMEOUT too long for the clock is a usage error (64), not a crash.
    @Test func aTimeoutTooLongIsAUsageError() throws {
        let result = try BuiltBinary.run(["record", "--video", "test", "--wait=99999999999999999999", "x.mkv"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: --wait takes at most 1000000000 s, not '99999999999999999999'\n"))
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
        _ = FileManager.default.createFile(atPath: node, contents: Data())
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

    /// A `pulse:` source whose server starts 2 s after the recording (a service started at boot
    /// before the user's sound server): the server is awaited, said on stderr, and the recording
    /// goes ahead; ffprobe reads the file back.
    @Test func aSoundServerThatStartsLater() throws {
        let server = try MicrophonePulseTests.TestServer(started: false)
        defer { server.stop() }
        let scratch = try RecordScratch()
        let file = scratch.path("late.wav")
        let process = try ChildProcess(
            BuiltBinary.path,
            ["record", "--audio", "pulse:capture_test_tone", "--wait", "10", "--duration", "1", file],
            environment: server.environment, stdout: .file(scratch.path("capture.stdout")),
            stderr: .file(scratch.path("capture.stderr")), newProcessGroup: true)
        process.sleep(untilElapsed: 2)
        #expect(process.wait(timeout: 0) == nil, "ended before the server started: \(process.stderr)")
        try server.start()
        let exit = process.wait(timeout: 15)
        #expect(exit?.status == 0, "\(exit?.description ?? "still running"): \(process.stderr)")
        #expect(
            process.stderr.hasPrefix(
                "Waiting for the PulseAudio server of microphone pulse:capture_test_tone, which is not reachable yet "
                    + "(up to 10 s; Ctrl-C to stop)\n"), "\(process.stderr)")
        #expect(process.stderr.contains("the PulseAudio server is there (after "), "\(process.stderr)")
        let audio = try #require(try RecordOracle.probe(file).audio)
        #expect(abs((audio.duration ?? 0) - 1) < 0.15, "\(audio)")
    }

    /// No server within the wait: 66 after about the timeout, the error one line naming the
    /// source, the cause and the fix; without --wait the missing server stays 69 at once.
    @Test func aSoundServerThatNeverStarts() throws {
        let server = try MicrophonePulseTests.TestServer(started: false)
        defer { server.stop() }
        let scratch = try RecordScratch()
        let start = Date()
        let result = try BuiltBinary.run(
            ["record", "--audio", "pulse:capture_test_tone", "--wait", "1", scratch.path("x.wav")],
            environment: server.environment)
        let elapsed = Date().timeIntervalSince(start)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(elapsed >= 1 && elapsed < 2.5, "\(elapsed)")
        let errors = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("Waiting for the PulseAudio server") }
        #expect(
            errors == [
                "Error: pulse:capture_test_tone: no such device; no PulseAudio server answered after waiting 1 s "
                    + "(--wait); start pulseaudio or pipewire-pulse, or set PULSE_SERVER"
            ], "\(result.stderr)")
        let unwaited = try BuiltBinary.run(
            ["record", "--audio", "pulse:capture_test_tone", scratch.path("x.wav")], environment: server.environment)
        #expect(unwaited.status == 69, "\(unwaited.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
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
