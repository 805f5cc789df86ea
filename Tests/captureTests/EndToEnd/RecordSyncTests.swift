import Foundation
import Testing

/// Audio and video stay in step in every container: a white flash and a 1 kHz beep, both at
/// 1.000 s in their lavfi graphs, are found at 1.000 s in the file by ffmpeg's signalstats and
/// silencedetect. A finished MP4 once showed the flash at 1.066 s and the beep at 1.024 s (its
/// fragmented tracks each started at their first packet, the B-frame delay and the AAC priming
/// then played as time).
@Suite struct RecordSyncTests {
    static let video =
        "lavfi:color=black:size=320x240:rate=30[a];color=white:size=320x240:rate=30[b];"
        + "[a][b]overlay=enable=between(t\\,1\\,1.2)"
    static let audio = "lavfi:sine=f=1000:r=48000,volume=enable=lt(t\\,1)+gt(t\\,1.2):volume=0"

    /// When the picture first turns white, in seconds of the file's timeline.
    static func flash(_ file: String) throws -> Double? {
        let result = try ChildProcess.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", file, "-an", "-vf",
                "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-",
            ])
        var time: Double?
        for line in result.stdout.split(separator: "\n") {
            if let range = line.range(of: "pts_time:") {
                time = Double(line[range.upperBound...].prefix { !$0.isWhitespace })
            } else if line.hasPrefix("lavfi.signalstats.YAVG="), let level = Double(line.dropFirst(23)), level > 200 {
                return time
            }
        }
        return nil
    }

    /// When the first sound starts, in seconds of the file's timeline.
    static func beep(_ file: String) throws -> Double? {
        let result = try ChildProcess.run(
            "ffmpeg", ["-nostdin", "-i", file, "-vn", "-af", "silencedetect=n=-30dB:d=0.1", "-f", "null", "-"])
        guard let line = result.stderr.split(separator: "\n").first(where: { $0.contains("silence_end: ") }),
            let range = line.range(of: "silence_end: ")
        else { return nil }
        return Double(line[range.upperBound...].prefix { !$0.isWhitespace })
    }

    @Test(arguments: ["mp4", "mov", "mkv", "nut"])
    func flashAndBeepStayTogether(container: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("sync.\(container)")
        let result = try BuiltBinary.run([
            "record", "--video", Self.video, "--audio", Self.audio, "--duration", "3", "--codec", "h264", "--quiet",
            file,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let flash = try #require(try Self.flash(file))
        let beep = try #require(try Self.beep(file))
        // Within one frame (33 ms) and one audio frame (21 ms) of the truth, and of each other.
        #expect(abs(flash - 1) < 0.034, "flash at \(flash) s")
        #expect(abs(beep - 1) < 0.022, "beep at \(beep) s")
        #expect(abs(flash - beep) < 0.034, "flash at \(flash) s, beep at \(beep) s")
    }

    /// Killed (kill -9), a fragmented MP4 or MOV keeps its picture and sound in step: its moov is
    /// written with the first fragment, so its edit lists show the video from its first frame and
    /// skip the AAC priming, as a finished file's do (the video was two frames behind, before).
    @Test(arguments: ["mp4", "mov"])
    func killedFileStaysTogether(container: String) async throws {
        let scratch = try RecordScratch()
        let file = scratch.path("killed.\(container)")
        let process = try ChildProcess.recording(
            ["record", "--video", Self.video, "--audio", Self.audio, "--codec", "h264", "--quiet", file], in: scratch)
        let exit = try await onOwnThread {
            // The sources are unpaced: 2 s of wall time hold far more than the flash at 1 s, and
            // at least one fragment flush after it.
            process.sleep(untilElapsed: 2)
            process.signalGroup(SIGKILL)
            return process.wait(timeout: 5)
        }
        #expect(exit == .init(status: nil, signal: SIGKILL))
        let flash = try #require(try Self.flash(file))
        let beep = try #require(try Self.beep(file))
        #expect(abs(flash - 1) < 0.034, "flash at \(flash) s")
        // FFmpeg's reader applies no edit list to a fragmented file's samples: it plays the AAC
        // priming (1024 samples, 21 ms) that the edit list skips for players that honour it.
        #expect(abs(beep - 1) < 0.022 + 1024.0 / 48000, "beep at \(beep) s")
    }

    /// Each MP4 segment starts at 0 with its picture and sound together: flashes and beeps at 1 s
    /// and 3 s, cut every 2 s, come 1 s into each file. A recording that ends on a boundary leaves
    /// no empty file after its last segment.
    @Test func segmentsStayTogether() throws {
        let scratch = try RecordScratch()
        let video =
            "lavfi:color=black:size=320x240:rate=30[a];color=white:size=320x240:rate=30[b];"
            + "[a][b]overlay=enable=between(t\\,1\\,1.2)+between(t\\,3\\,3.2)"
        let audio =
            "lavfi:sine=f=1000:r=48000,volume=enable=lt(t\\,1)+between(t\\,1.2\\,3)+gt(t\\,3.2):volume=0"
        let result = try BuiltBinary.run([
            "record", "--video", video, "--audio", audio, "--duration", "4", "--codec", "h264", "--segment-time", "2",
            "--quiet", scratch.path("seg-%n.mp4"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
            $0.hasPrefix("seg-")
        }
        #expect(files.sorted() == ["seg-0001.mp4", "seg-0002.mp4"])
        for name in files {
            let flash = try #require(try Self.flash(scratch.path(name)))
            let beep = try #require(try Self.beep(scratch.path(name)))
            #expect(abs(flash - 1) < 0.034 && abs(beep - 1) < 0.022, "\(name): flash at \(flash) s, beep at \(beep) s")
        }
    }

    /// Raw PCM runs up to one frame past the video's end; a recording whose duration ends on a
    /// boundary keeps that tail in its last file rather than start a file of 512 samples.
    @Test(arguments: ["mkv", "mov"])
    func pcmSegmentsEndingOnABoundaryLeaveNoTail(container: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--video", Self.video, "--audio", Self.audio, "--audio-codec", "pcm", "--duration", "4",
            "--segment-time", "2", "--quiet", scratch.path("p-%n.\(container)"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.hasPrefix("p-") }
        #expect(files.sorted() == ["p-0001.\(container)", "p-0002.\(container)"])
    }

    /// A camera's first frame captured just before the microphone's first sample (1 ms here; the
    /// test sources come within a millisecond of each other) is the recording's first frame: it
    /// was dropped as "before the start", and the file's video began one frame late, 29 of 30.
    @Test(arguments: ["mkv", "mp4"])
    func aFrameJustBeforeTheFirstSampleStartsTheVideo(container: String) throws {
        let scratch = try RecordScratch()
        let file = scratch.path("late.\(container)")
        let result = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--audio",
            "lavfi:sine=frequency=1000:sample_rate=48000,atrim=start=0.001", "--duration", "1", "--json", file,
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let summary = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["start_offset"] as? Double == 0.001)
        #expect((summary["video"] as? [String: Any])?["frames_written"] as? Int == 30)
        #expect((summary["video"] as? [String: Any])?["start"] as? Double == 0)
        let start = try ChildProcess.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=start_time", "-of", "csv=p=0", file])
        #expect(
            Double(start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == 0, "video starts at \(start.stdout)"
        )
    }
}
