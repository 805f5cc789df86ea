import Foundation
import Testing

/// The output file and the disk (issue 6): an existing file is never touched without --force, a
/// recording that fails before its first frame leaves no file, a full disk ends the recording with
/// exit 74 and a readable file.
@Suite struct RecordOutputSafetyTests {
    /// A HOME whose asoundrc defines `broken`: an ALSA capture PCM that resolves as a microphone
    /// but fails when opened (its input file does not exist).
    final class BrokenMicrophoneHome {
        let scratch: RecordScratch
        var environment: [String: String] { ["HOME": scratch.url.path, "XDG_CONFIG_HOME": ""] }

        init() throws {
            scratch = try RecordScratch()
            let asoundrc = """
                pcm.broken {
                    type file
                    slave.pcm "null"
                    file "/dev/null"
                    infile "/nonexistent/capture-test/input.raw"
                    format "raw"
                }

                """
            try asoundrc.write(toFile: scratch.path(".asoundrc"), atomically: true, encoding: .utf8)
        }
    }

    static func contentsAndTime(_ path: String) throws -> (Data, Date?) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        return (data, modified)
    }

    /// Exit 73 comes before any device is opened: the microphone here fails when opened (exit 66
    /// once the file is out of the way), so a 73 proves the order. The file keeps its bytes and
    /// its modification time.
    @Test func existingOutputIsRefusedBeforeAnyDeviceIsOpened() throws {
        let home = try BrokenMicrophoneHome()
        let scratch = try RecordScratch()
        let file = scratch.path("mine.mkv")
        try Data("someone's notes, not a recording\n".utf8).write(to: URL(fileURLWithPath: file))
        let before = try Self.contentsAndTime(file)

        let refused = try BuiltBinary.run(
            ["record", "--video", "test", "--audio", "broken", "--duration", "1", file], environment: home.environment)
        #expect(refused.status == 73, "\(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        #expect(lines.first?.hasPrefix("Error: \(file)") == true)
        #expect(refused.stderr.contains("--force"))
        #expect(!refused.stderr.contains("broken"))
        let after = try Self.contentsAndTime(file)
        #expect(after.0 == before.0)
        #expect(after.1 == before.1)

        // With --force the device is opened, fails, and the file is still untouched: it is only
        // replaced once the first frame is ready.
        let failed = try BuiltBinary.run(
            ["record", "--video", "test", "--audio", "broken", "--duration", "1", "--force", file],
            environment: home.environment)
        #expect(failed.status == 66, "\(failed.stderr)")
        #expect(failed.stderr.hasPrefix("Error: broken: "))
        #expect(try Self.contentsAndTime(file).0 == before.0)

        // With --force and devices that work, the file is replaced by the recording.
        let forced = try BuiltBinary.runNiced(
            [
                "record", "--video", RecordSources.video, "--audio", RecordSources.audio, "--frames", "10", "--force",
                "--quiet", file,
            ])
        #expect(forced.status == 0, "\(forced.stderr)")
        let probe = try RecordOracle.probe(file)
        #expect(probe.video?.frames == 10)
        #expect(probe.audio != nil)
    }

    /// Failures before the first frame: nothing is left behind, whatever failed.
    @Test(
        arguments: [
            // The lavfi graph fails to configure (crop larger than the picture).
            (["--video", "lavfi:testsrc2=size=320x240,crop=w=2000:h=2000", "--duration", "1"], "x.mkv", 64),
            // The camera (test pattern) is opened and running when the microphone fails to open.
            (["--video", "test", "--audio", "broken", "--duration", "1"], "x.mp4", 66),
            (["--audio", "broken", "--duration", "1"], "x.wav", 66),
        ] as [([String], String, Int32)])
    func failureBeforeTheFirstFrameLeavesNoFile(arguments: [String], name: String, status: Int32) throws {
        let home = try BrokenMicrophoneHome()
        let scratch = try RecordScratch()
        let file = scratch.path(name)
        let result = try BuiltBinary.run(["record"] + arguments + [file], environment: home.environment)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    /// An output folder the user may not write to: exit 73 naming it, no file. As root, capture
    /// runs as nobody (setpriv); as a user, the folder is made read-only, which binds a user too.
    @Test func unwritableFolderExits73AndLeavesNoFile() throws {
        let scratch = try RecordScratch()
        let folder = scratch.path("closed")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let file = folder + "/x.mkv"
        let record = ["record", "--video", RecordSources.video, "--frames", "5", file]
        let result: ChildProcess.Result
        if getuid() == 0 {
            // nobody needs a binary it may run: the build folder may sit below a closed home.
            // A child process copies it: a write descriptor open in this process would leak into
            // whatever another test spawns meanwhile, and exec would then fail "Text file busy".
            let bin = scratch.path("capture")
            let copy = try ChildProcess.run("install", ["-m", "755", BuiltBinary.path, bin])
            try #require(copy.status == 0, "\(copy.stderr)")
            chmod(scratch.url.path, 0o755)
            chmod(folder, 0o755)
            result = try ChildProcess.run(
                "setpriv",
                ["--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=/nonexistent", bin] + record)
        } else {
            chmod(folder, 0o555)
            defer { chmod(folder, 0o755) }
            result = try BuiltBinary.run(record)
        }
        #expect(result.status == 73, "\(result.stderr)")
        #expect(
            result.stderr == "Error: \(file): cannot create the output file: the directory \(folder) is not writable\n")
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    /// A disk that fills up: exit 74, one line naming the file, and what was written reads back.
    /// Lossless H.264 (crf 0) fills a 1 MiB tmpfs within a second or two.
    @Test(
        .enabled(if: getuid() == 0, "mounting a small tmpfs to fill up needs root (CI runs as root)"),
        arguments: ["mp4", "mkv", "nut"])
    func diskFullExits74AndKeepsAReadableFile(ext: String) throws {
        let scratch = try RecordScratch()
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        let mount = try ChildProcess.run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? ChildProcess.run("umount", [disk]) }
        let file = disk + "/full.\(ext)"
        // Raw 640x480 frames would fill the disk in two: a smaller picture gives a few dozen.
        let options = ext == "nut" ? ["--video-size", "160x120"] : ["--preset", "ultrafast", "--crf", "0"]
        let started = Date()
        let result = try BuiltBinary.runNiced(
            ["record", "--video", "test", "--audio", "test", "--quiet"] + options + [file])
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr
                == "Error: \(file): disk full (no space left on device); the file keeps what was written before\n")

        // The end is cut off, so ffprobe may complain about it; what is there must decode.
        let frames = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                "-of", "default=noprint_wrappers=1:nokey=1", file,
            ])
        #expect(frames.status == 0, "\(frames.stderr)")
        let count = Int(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(count >= 2, "\(count) frames read back")
    }
}
