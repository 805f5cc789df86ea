import Foundation
import Testing

/// Segmented recordings: each file complete and starting with a keyframe, cut on the boundaries
/// asked, audio cut on the same instant with no sample lost or written twice, the retention
/// options deleting only the series' oldest files, events as JSON lines; ffprobe is the oracle.
@Suite struct RecordSegmentTests {
    /// The JSON lines of a `--json` run: the events, then the summary (pretty-printed, the rest).
    static func events(_ stdout: String) throws -> (events: [[String: Any]], summary: [String: Any]) {
        var events: [[String: Any]] = []
        var rest = Substring(stdout)
        while rest.hasPrefix("{\""), let end = rest.firstIndex(of: "\n") {
            events.append(try #require(JSONSerialization.jsonObject(with: Data(rest[..<end].utf8)) as? [String: Any]))
            rest = rest[rest.index(after: end)...]
        }
        let summary = try #require(JSONSerialization.jsonObject(with: Data(rest.utf8)) as? [String: Any])
        return (events, summary)
    }

    /// ffprobe's packets of one stream kind: (pts seconds, keyframe).
    static func packets(_ path: String, _ kind: String) throws -> [(time: Double, key: Bool)] {
        let result = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", kind == "video" ? "v:0" : "a:0", "-show_entries",
                "packet=pts_time,flags", "-of", "csv=p=0", path,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, let time = Double(fields[0]) else { return nil }
            return (time, fields[1].hasPrefix("K"))
        }
    }

    /// The audio samples (per channel) a file decodes to, as ffprobe counts them.
    static func decodedSamples(_ path: String) throws -> Int {
        let result = try ChildProcess.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "a:0", "-show_entries", "frame=nb_samples", "-of", "csv=p=0", path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { Int($0) }.reduce(0, +)
    }

    /// A disk that fills: with a retention option the oldest segments make room, said once, and
    /// the recording goes on; without one, exit 74 with the segment finished up to there.
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs to fill up needs root (CI runs as root)"))
    func fullDiskDeletesTheOldestWhenRetentionIsOn() throws {
        let scratch = try RecordScratch()
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        let mount = try ChildProcess.run("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", disk])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? ChildProcess.run("umount", [disk]) }
        // 865 kB of raw pictures a second, paced: 14 s is half again what the disk holds.
        let source = "lavfi:testsrc2=size=160x120:rate=30,realtime"
        let kept = try BuiltBinary.runNiced([
            "record", "--video", source, "--codec", "raw", "--duration", "14", "--segment-time", "1", "--keep", "100",
            "--json", disk + "/raw.nut",
        ])
        #expect(kept.status == 0, "\(kept.stderr)")
        let warnings = kept.stderr.split(separator: "\n")
        #expect(
            warnings == [
                "Warning: the disk holding \(disk)/raw.nut is nearly full; deleting the oldest segments of the series to make room"
            ])
        let (events, summary) = try Self.events(kept.stdout)
        #expect(summary["segments"] as? Int == 14)
        let deleted = events.filter { $0["event"] as? String == "segment_deleted" }.compactMap { $0["path"] as? String }
        #expect(deleted.first == disk + "/raw-0001.nut" && deleted.count >= 5, "\(deleted)")
        let left = try FileManager.default.contentsOfDirectory(atPath: disk).sorted()
        #expect(left.last == "raw-0014.nut" && left.count == 14 - deleted.count, "\(left)")
        #expect(try RecordOracle.probe(disk + "/raw-0014.nut").video?.frames == 30)

        for name in left { try FileManager.default.removeItem(atPath: disk + "/" + name) }
        let full = try BuiltBinary.runNiced([
            "record", "--video", source, "--codec", "raw", "--duration", "14", "--segment-time", "1", "--quiet",
            disk + "/full.nut",
        ])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("disk full (no space left on device); the segment keeps what was written before"))
    }

    @Test(arguments: ["mp4", "mkv", "nut"])
    func segmentsStartWithAKeyframeAndHoldEverySample(ext: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--audio", RecordSources.audio, "--duration", "5",
            "--segment-time", "2", "--json", scratch.path("clip.\(ext)"),
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let (events, summary) = try Self.events(result.stdout)
        #expect(summary["segments"] as? Int == 3)
        let closed = events.filter { $0["event"] as? String == "segment_closed" }
        #expect(closed.map { $0["path"] as? String } == (1...3).map { scratch.path("clip-000\($0).\(ext)") })
        #expect(events.filter { $0["event"] as? String == "segment_opened" }.count == 3)
        let samples = try #require((summary["audio"] as? [String: Any])?["samples"] as? Int)
        let aac = ext == "mp4"
        var audioTicks = 0
        for (index, event) in closed.enumerated() {
            let path = try #require(event["path"] as? String)
            #expect(event["start"] as? Double == Double(index * 2))
            let video = try Self.packets(path, "video")
            let audio = try Self.packets(path, "audio")
            // Cut where asked: 60 frames a segment at 30 fps, the last one the 30 left.
            #expect(video.count == (index < 2 ? 60 : 30), "\(path): \(video.count) frames")
            #expect(event["frames"] as? Int == video.count)
            #expect(video.first?.key == true, "\(path) starts without a keyframe")
            #expect(try RecordOracle.decodesCleanly(path), "\(path) does not decode cleanly")
            // Audio and video start together (a B-frame's delay, or one audio packet, apart).
            let videoStart = try #require(video.map(\.time).min())
            let audioStart = try #require(audio.map(\.time).min())
            #expect(abs(videoStart - audioStart) <= 0.1, "\(path): video at \(videoStart) s, audio at \(audioStart) s")
            let decoded = try Self.decodedSamples(path)
            if !aac {
                // Raw PCM is cut on the boundary's very sample.
                #expect(decoded == (index < 2 ? 96000 : 48000), "\(path): \(decoded) samples")
            }
            audioTicks += decoded
        }
        if aac {
            // AAC: whole 1024-sample frames, the first segment's priming left out by its edit list;
            // only the last frame's padding is more.
            #expect(audioTicks >= samples && audioTicks < samples + 1024, "\(audioTicks) for \(samples) samples")
        } else {
            #expect(audioTicks == samples, "the segments hold \(audioTicks) samples of \(samples)")
        }
        #expect(closed.compactMap { $0["samples"] as? Int }.reduce(0, +) == samples)
    }

    /// Audio alone is cut exactly on the boundary, inside a packet.
    @Test func audioSegmentsAreCutOnTheSample() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--audio", RecordSources.audio, "--duration", "5", "--segment-time", "2", "--quiet",
            scratch.path("voice.wav"),
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let durations = try (1...3).map { try RecordOracle.probe(scratch.path("voice-000\($0).wav")).audio?.duration }
        #expect(durations == [2.0, 2.0, 1.0])
        #expect(!FileManager.default.fileExists(atPath: scratch.path("voice-0004.wav")))
    }

    /// The level (RMS) of a file's sound in windows of 5 ms from its start, and past its first 100 ms.
    /// 5 ms is five periods of a 1 kHz tone at 48 kHz (240 samples), so a steady tone reads the
    /// same in every window.
    static func levels(_ path: String, scratch: RecordScratch) throws -> (windows: [Double], steady: Double) {
        let raw = scratch.path("levels.f32")
        let decode = try ChildProcess.run(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-y", raw])
        try #require(decode.status == 0, "\(path): \(decode.stderr)")
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes {
            Array($0.bindMemory(to: Float.self))
        }
        func rms(_ slice: ArraySlice<Float>) -> Double {
            (slice.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, slice.count))).squareRoot()
        }
        let windows = stride(from: 0, to: min(4800, samples.count - 240), by: 240).map { rms(samples[$0..<$0 + 240]) }
        return (windows, rms(samples[min(4800, samples.count)...]))
    }

    /// Each segment's AAC or Opus sound in an MP4 or MOV series starts at the tone's full level, the
    /// later ones as the first: their decoders start on the packets before the cut, which the edit
    /// list skips. Each later one faded in before (its first 5 ms at 15 to 45 % of the level for
    /// Opus, 20 % for AAC); primed, every 5 ms reads within 8 % of the level (after 80 ms of Opus
    /// pre-roll its first read 90 %).
    @Test(arguments: [("aac", "mp4"), ("opus", "mp4"), ("aac", "mov")])
    func laterSegmentsStartAtFullLevel(codec: String, ext: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--audio", "lavfi:sine=frequency=1000:sample_rate=48000",
            "--audio-codec", codec, "--duration", "4", "--segment-time", "1", "--quiet", scratch.path("tone.\(ext)"),
        ])
        try #require(result.status == 0, "\(result.stderr)")
        for number in 1...4 {
            let path = scratch.path("tone-000\(number).\(ext)")
            let (windows, steady) = try Self.levels(path, scratch: scratch)
            try #require(windows.count == 20 && steady > 0.08, "\(path): \(windows.count) windows, level \(steady)")
            let low = windows.enumerated().filter { abs($0.element / steady - 1) > 0.08 }
            #expect(low.isEmpty, "\(path): 5 ms windows off the level \(steady): \(low)")
        }
        let samples = try (1...4).map { try Self.decodedSamples(scratch.path("tone-000\($0).\(ext)")) }.reduce(0, +)
        #expect(samples >= 4 * 48000 && samples < 4 * 48000 + 1024, "\(samples) samples in 4 s")
    }

    /// --keep deletes the series' oldest files, and never a file the template could not have made.
    @Test func keepDeletesOnlyTheOldestOfTheSeries() throws {
        let scratch = try RecordScratch()
        for name in ["raw-extra.nut", "other.nut"] {
            _ = FileManager.default.createFile(atPath: scratch.path(name), contents: Data("keep me".utf8))
        }
        let result = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--codec", "raw", "--duration", "4", "--segment-time", "1",
            "--keep", "2", "--json", scratch.path("raw.nut"),
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let (events, _) = try Self.events(result.stdout)
        let deleted = events.filter { $0["event"] as? String == "segment_deleted" }.compactMap { $0["path"] as? String }
        #expect(deleted == [scratch.path("raw-0001.nut"), scratch.path("raw-0002.nut")])
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(left == ["other.nut", "raw-0003.nut", "raw-0004.nut", "raw-extra.nut"])
    }

    /// --max-total-size keeps the series within its budget, the file being written included.
    @Test func maxTotalSizeKeepsTheSeriesWithinItsBudget() throws {
        let scratch = try RecordScratch()
        // 160x120 yuv420p, 30 frames: 864000 bytes of pictures a segment, 2 of them fit in 2M.
        let result = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--codec", "raw", "--duration", "5", "--segment-time", "1",
            "--max-total-size", "2M", "--quiet", scratch.path("raw.nut"),
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(left == ["raw-0004.nut", "raw-0005.nut"])
        let total = try left.reduce(0) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: scratch.path($1))[.size] as? Int) ?? 0)
        }
        #expect(total <= 2 << 20)
    }

    /// Two recorders with one template in one folder, the first with --keep 1: it deletes the
    /// other's finished files as files of its series, but never one the other still has open or
    /// is finishing. Each such deletion reports the size the other reported when it closed the
    /// file (a file deleted while being written is smaller), and both recordings end well.
    @Test func retentionLeavesAnotherRecordersOpenFiles() throws {
        let scratch = try RecordScratch()
        let template = scratch.path("c-%H%M%S.wav")
        // Both start just after a whole second, one second apart: the names of each, two whole
        // seconds apart, never meet those of the other.
        let now = Date().timeIntervalSince1970
        Thread.sleep(forTimeInterval: now.rounded(.up) - now)
        let first = try ChildProcess.recording(
            ["record", "--audio", "test", "--duration", "7", "--segment-time", "2", "--keep", "1", "--json", template],
            in: scratch, name: "first")
        first.sleep(untilElapsed: 1)
        let second = try ChildProcess.recording(
            ["record", "--audio", "test", "--duration", "7", "--segment-time", "2", "--json", template],
            in: scratch, name: "second")
        let firstExit = first.wait(timeout: 20)
        let secondExit = second.wait(timeout: 20)
        #expect(firstExit?.status == 0, "\(first.stderr)")
        #expect(secondExit?.status == 0, "\(second.stderr)")
        let firstEvents = try Self.events(first.stdout).events
        let secondEvents = try Self.events(second.stdout).events
        func sizes(_ events: [[String: Any]], _ kind: String) -> [(path: String, size: Int)] {
            events.filter { $0["event"] as? String == kind }.compactMap { event in
                guard let path = event["path"] as? String, let size = event["size"] as? Int else { return nil }
                return (path, size)
            }
        }
        let closedBySecond = Dictionary(
            uniqueKeysWithValues: sizes(secondEvents, "segment_closed").map { ($0.path, $0.size) })
        #expect(closedBySecond.count == 4, "\(second.stdout)")
        let deletedOfSecond = sizes(firstEvents, "segment_deleted").filter { closedBySecond[$0.path] != nil }
        #expect(!deletedOfSecond.isEmpty, "the first deleted none of the second's files: \(first.stdout)")
        for deleted in deletedOfSecond {
            #expect(deleted.size == closedBySecond[deleted.path], "\(deleted.path) was deleted while being written")
        }
        // What is left of the second's files reads back whole: ffprobe finds the samples it wrote.
        for event in secondEvents where event["event"] as? String == "segment_closed" {
            let path = try #require(event["path"] as? String)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            #expect(try Self.decodedSamples(path) == event["samples"] as? Int, "\(path)")
        }
    }

    /// Without --json, one line per closed segment on stderr; --quiet says nothing.
    @Test func closedSegmentsAreReportedOnStandardError() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--duration", "2", "--segment-time", "1",
            scratch.path("cam-%n.mkv"),
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stderr)")
        #expect(
            lines.first?.hasPrefix("segment 1: \(scratch.path("cam-0001.mkv")), 1.00 s from 0.00 s, 30 frames, ")
                == true)
        #expect(result.stdout.contains("  segments: 2 files\n"))
        let quiet = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--duration", "2", "--segment-time", "1", "--quiet",
            scratch.path("q-%n.mkv"),
        ])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet.stderr)")
    }

    /// kill -9 in the third segment: the two before are untouched and whole, the third readable.
    @Test func killedMidSegmentLeavesTheFinishedOnesWhole() async throws {
        let scratch = try RecordScratch()
        let exit = try await RealTimeSlots.run {
            let process = try ChildProcess.realTime(
                ["record", "--video", "test", "--segment-time", "2", "--quiet", scratch.path("cam.mkv")], in: scratch)
            return try await onOwnThread {
                process.sleep(untilElapsed: 5.8)
                process.signalGroup(SIGKILL)
                return process.wait(timeout: 5)
            }
        }
        #expect(exit == .init(status: nil, signal: SIGKILL))
        for number in 1...2 {
            let path = scratch.path("cam-000\(number).mkv")
            #expect(try RecordOracle.probe(path).video?.frames == 60)
            #expect(try RecordOracle.decodesCleanly(path))
        }
        let third = try Self.packets(scratch.path("cam-0003.mkv"), "video")
        #expect(third.first?.key == true && third.count >= 15, "\(third.count) frames in the third segment")
    }

    @Test(
        arguments: [
            (["--keep", "2"], "--keep applies to segments only (--segment-time or --segment-size)"),
            (["--utc"], "--utc applies to segments only (--segment-time or --segment-size)"),
            (["--segment-time", "0"], "--segment-time takes a length such as 90, 10m, 1h or 1h30m, not '0'"),
            (["--segment-time", "10x"], "--segment-time takes a length such as 90, 10m, 1h or 1h30m, not '10x'"),
            (["--segment-size", "1M", "--max-total-size", "500k"], "below one segment"),
            (["--segment-time", "5", "--keep", "0"], "--keep"),
            (["--segment-time", "0.5"], "--segment-time takes 1 s to 1000000000 s, not 0.5"),
            (["--segment-time", "0.01"], "--segment-time takes 1 s to 1000000000 s, not 0.01\n"),
            // A boundary in microseconds overflowed the clock: the recording died of SIGILL.
            (
                ["--segment-time", "99999999999999999999"],
                "--segment-time takes 1 s to 1000000000 s, not 1e+20"
            ),
            (["--segment-time", "2", "--max-total-size", "1k"], "--max-total-size takes 1M or more, not 1024 bytes"),
            (["--segment-size", "100k"], "--segment-size takes 1M or more"),
            (["--audio", RecordSources.audio, "--audio-codec", "flac", "--segment-time", "5"], "FLAC cannot be cut"),
        ] as [([String], String)])
    func usageErrors(options: [String], message: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(
            ["record", "--video", RecordSources.video, "--duration", "1"] + options + [scratch.path("x.mkv")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    @Test func segmentsNeedAFileAndATemplateThatParses() throws {
        let scratch = try RecordScratch()
        let stream = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--segment-time", "5", "rtmp://127.0.0.1:1/live/x",
        ])
        #expect(stream.status == 64 && stream.stderr.contains("give a file name (a template)"), "\(stream.stderr)")
        let template = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--segment-time", "5", scratch.path("x-%q.mkv"),
        ])
        #expect(template.status == 64 && template.stderr.contains("%q is no template field"), "\(template.stderr)")
        let coarse = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--segment-time", "10", scratch.path("x-%H%M.mkv"),
        ])
        #expect(coarse.status == 64 && coarse.stderr.contains("its names change every 60 s"), "\(coarse.stderr)")
        let folder = try BuiltBinary.run([
            "record", "--video", RecordSources.video, "--segment-time", "5", scratch.path("%Y/x.mkv"),
        ])
        #expect(folder.status == 64 && folder.stderr.contains("in the file name only"), "\(folder.stderr)")
    }
}
