import Foundation
import Testing

/// `--encoder` where the machine has no hardware encoder: a hardware encoder asked for exits 69
/// naming what it lacks and leaves no file; `auto` records with x264 without a word, and the
/// summary names it. (The fallback from a render node VA-API cannot open is the guest's
/// record-encoders; the hardware encoders themselves need their hardware.)
@Suite struct RecordEncoderChoiceTests {
    static let missing = [
        "vaapi": "h264_vaapi: no DRM render node (/dev/dri/renderD*)",
        "qsv": "h264_qsv: no DRM render node (/dev/dri/renderD*)",
        "nvenc": "h264_nvenc: no NVIDIA device (/dev/nvidia0)",
        "v4l2m2m": "h264_v4l2m2m: no V4L2 memory-to-memory node that encodes H.264",
    ]

    /// True when this machine has the device `choice` runs on, where its refusal cannot be seen.
    static func has(_ choice: String) -> Bool {
        switch choice {
        case "vaapi", "qsv":
            return ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []).contains {
                $0.hasPrefix("renderD")
            }
        case "nvenc": return FileManager.default.fileExists(atPath: "/dev/nvidia0")
        default: return false
        }
    }

    /// Where a device is there, its refusal cannot be seen: the case is skipped.
    @Test(.enabled(if: !has("vaapi") && !has("nvenc")), arguments: ["vaapi", "qsv", "nvenc", "v4l2m2m"])
    func aHardwareEncoderWithoutItsDeviceExits69(choice: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("hw.mp4")
        let result = try BuiltBinary.run(["record", "--video", "test", "--encoder", choice, "--duration", "1", file])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("Error: \(Self.missing[choice]!)")
                && result.stderr.hasSuffix("; --encoder x264 encodes in software\n"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test(.enabled(if: !has("vaapi") && !has("nvenc")))
    func autoWithoutHardwareRecordsWithX264Quietly() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--video-size", "320x240", "--duration", "1", "--json", scratch.path("a.mp4"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let video = try #require(try MicrophoneTestSupport.object(result.stdout)["video"] as? [String: Any])
        #expect(video["codec"] as? String == "libx264")
        #expect(!result.stderr.contains("recording with libx264"), "\(result.stderr)")
    }

    @Test(arguments: [
        (["--preset", "fast"], "Error: --preset is x264's; --encoder vaapi takes only --bitrate"),
        (["--pixel-format", "nv12"], "Error: --pixel-format is x264's; --encoder vaapi takes only --bitrate"),
    ])
    func x264sOptionsBesideAHardwareEncoderExit64(options: [String], message: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(
            ["record", "--video", "test", "--encoder", "vaapi"] + options + ["--duration", "1", scratch.path("o.mp4")])
        #expect(result.status == 64 && result.stderr.hasPrefix(message + "\n"), "\(result.stderr)")
    }

    @Test func anEncoderForRawVideoExits64() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--codec", "raw", "--encoder", "x264", "--duration", "1",
            scratch.path("r.mkv"),
        ])
        #expect(result.status == 64 && result.stderr.hasPrefix("Error: --encoder applies to --codec h264 only\n"))
    }
}
