import Foundation
import Testing

/// Event clips with pre-roll (issue 25): nothing on disk until a trigger, then a complete file
/// that starts at a keyframe at most one keyframe interval (1 s) before the trigger less the
/// pre-roll, and runs to the post-roll after the last trigger. The triggers' times are the
/// recording's own (its `trigger` events), so no verdict depends on when a signal landed;
/// ffprobe and ffmpeg read the clips.
@Suite struct RecordClipTests {
    /// A paced test pattern, small so that any machine keeps up, and the paced test tone.
    static let sources = [
        "--video", "lavfi:testsrc2=size=320x240:rate=30,realtime", "--audio", "test",
    ]

    /// One recording: its JSON events by kind, its summary, its stderr and exit status.
    struct Run {
        var status: Int32
        var events: [[String: Any]]
        var summary: [String: Any]?
        var stderr: String

        func events(_ kind: String) -> [[String: Any]] { events.filter { $0["event"] as? String == kind } }
    }

    /// Runs `capture record ARGS --json` in the background, calls `during` with it (to signal it),
    /// and waits for it to end.
    static func record(_ arguments: [String], in scratch: RecordScratch, during: (ChildProcess) -> Void = { _ in })
        throws -> Run
    {
        let out = scratch.path("out.json")
        let err = scratch.path("err.txt")
        let child = try ChildProcess(
            BuiltBinary.path, ["record", "--json"] + arguments, stdout: .file(out), stderr: .file(err))
        during(child)
        let status = child.wait().shellStatus
        return try parse(
            status: status, stdout: String(contentsOfFile: out, encoding: .utf8),
            stderr: String(contentsOfFile: err, encoding: .utf8))
    }

    static func parse(status: Int32, stdout: String, stderr: String) throws -> Run {
        let lines = stdout.split(separator: "\n")
        let events = try lines.prefix { $0.hasPrefix("{\"") }.map { try MicrophoneTestSupport.object(String($0)) }
        let rest = lines.drop { $0.hasPrefix("{\"") }.joined(separator: "\n")
        return Run(
            status: status, events: events, summary: rest.isEmpty ? nil : try MicrophoneTestSupport.object(rest),
            stderr: stderr)
    }

    /// SIGUSR1 at each of `times` (seconds after the start).
    static func signals(at times: [Double]) -> (ChildProcess) -> Void {
        { child in
            for time in times {
                child.sleep(untilElapsed: time)
                child.signal(SIGUSR1)
            }
        }
    }

    static func number(_ event: [String: Any], _ key: String) -> Double { event[key] as? Double ?? .nan }

    /// A clip's file as ffprobe reads it, with its first frame's being a keyframe and its audio
    /// samples as ffmpeg decodes them.
    static func check(clip path: String, lasts expected: Double, _ comment: Comment) throws {
        let oracle = try RecordOracle.probe(path)
        let video = try #require(oracle.video, comment)
        let audio = try #require(oracle.audio, comment)
        #expect(video.start == 0 && audio.start == 0, comment)
        // Video ends by decoding order: its last frames may reach a few frames past the end.
        let videoLength = try video.duration ?? streamEnd(path, "v:0")
        #expect(videoLength >= expected - 0.05 && videoLength <= expected + 0.25, "\(comment): video \(videoLength)")
        // Audio runs from the first frame to where the video ends, within an AAC frame (21 ms).
        let audioLength = try audio.duration ?? streamEnd(path, "a:0")
        #expect(abs(audioLength - videoLength) <= 0.045, "\(comment): audio \(audioLength), video \(videoLength)")
        let first = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_entries", "frame=key_frame",
                "-of", "csv=p=0", path,
            ])
        #expect(first.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(comment): first frame")
        #expect(try RecordOracle.decodesCleanly(path), comment)
    }

    /// The end of `stream`'s last packet in seconds, as ffprobe reads them: Matroska keeps no
    /// per-stream duration.
    static func streamEnd(_ path: String, _ stream: String) throws -> Double {
        let result = try ChildProcess.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,duration_time", "-of",
                "csv=p=0",
                path,
            ])
        return result.stdout.split(separator: "\n").compactMap { line -> Double? in
            let parts = line.split(separator: ",").map { Double($0) ?? 0 }
            return parts.isEmpty ? nil : parts[0] + (parts.count > 1 ? parts[1] : 0)
        }.max() ?? 0
    }

    /// Two triggers far apart: two clips, each from the keyframe before its pre-roll to its
    /// post-roll, with sound throughout, and nothing else on disk.
    @Test func eachTriggerMakesAClipFromItsPreRollToItsPostRoll() throws {
        let scratch = try RecordScratch()
        let run = try Self.record(
            Self.sources + ["--pre-roll", "2", "--post-roll", "2", "--duration", "13", scratch.path("clip-%n.mp4")],
            in: scratch, during: Self.signals(at: [5, 10]))
        #expect(run.status == 0, "\(run.stderr)")
        let triggers = run.events("trigger")
        let opened = run.events("clip_opened")
        let closed = run.events("clip_closed")
        try #require(triggers.count == 2 && opened.count == 2 && closed.count == 2, "\(run.events)")
        for index in 0..<2 {
            let trigger = Self.number(triggers[index], "start")
            let start = Self.number(opened[index], "start")
            // Keyframes every second from 0: the latest at or before the trigger less the pre-roll.
            #expect(start == (trigger - 2).rounded(.down), "clip \(index + 1): \(start) for \(trigger)")
            #expect(triggers[index]["reason"] as? String == "SIGUSR1")
            #expect(closed[index]["reason"] as? String == "post-roll")
            let path = try #require(closed[index]["path"] as? String)
            try Self.check(clip: path, lasts: trigger + 2 - start, "clip \(index + 1)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
            $0.hasSuffix(".mp4")
        }
        #expect(files.sorted() == ["clip-0001.mp4", "clip-0002.mp4"])
        #expect(run.summary?["clips"] as? Int == 2)
    }

    /// A trigger during a clip extends it; without --post-roll a trigger toggles.
    @Test(arguments: [true, false]) func aSecondTriggerExtendsOrEndsTheClip(postRoll: Bool) throws {
        let scratch = try RecordScratch()
        let run = try Self.record(
            Self.sources + ["--pre-roll", "1"] + (postRoll ? ["--post-roll", "4"] : [])
                + ["--duration", "12", scratch.path("c-%n.mkv")],
            in: scratch, during: Self.signals(at: [3, 6]))
        #expect(run.status == 0, "\(run.stderr)")
        let triggers = run.events("trigger").map { Self.number($0, "start") }
        let closed = run.events("clip_closed")
        try #require(triggers.count == 2 && closed.count == 1, "\(run.events)")
        let start = Self.number(closed[0], "start")
        let end = triggers[1] + (postRoll ? 4 : 0)
        #expect(closed[0]["reason"] as? String == (postRoll ? "post-roll" : "trigger"))
        try Self.check(clip: try #require(closed[0]["path"] as? String), lasts: end - start, "one clip")
    }

    /// The level trigger: a tone that starts at a known time in the microphone's own audio opens
    /// a clip once it has held for --trigger-hold; the clip's audio shows where it started.
    @Test func aLoudMicrophoneTriggersAClip() throws {
        let scratch = try RecordScratch()
        let tone = "lavfi:aevalsrc=0.5*sin(2*PI*1000*t)*gte(t\\,5):s=48000,arealtime"
        let run = try Self.record(
            [
                "--video", "lavfi:testsrc2=size=320x240:rate=30,realtime", "--audio", tone, "--pre-roll", "3",
                "--post-roll", "2", "--trigger", "level:-20dB", "--trigger-hold", "300", "--duration", "10",
                scratch.path("loud-%n.mkv"),
            ], in: scratch)
        #expect(run.status == 0, "\(run.stderr)")
        let trigger = try #require(run.events("trigger").first)
        #expect(trigger["reason"] as? String == "level")
        let opened = try #require(run.events("clip_opened").first)
        let path = try #require(run.events("clip_closed").first?["path"] as? String)
        // Where the tone starts in the clip, from its decoded samples.
        let samples = try RecordSampleFormatTests.samples(["-i", path])
        let toneAt = Double(try #require(samples.firstIndex { abs($0) > 1 << 28 })) / 48000
        let triggerInClip = Self.number(trigger, "start") - Self.number(opened, "start")
        // The trigger judges every hundredth of a second: the hold is met within one of 0.3 s.
        #expect(
            triggerInClip - toneAt >= 0.29 - 0.001 && triggerInClip - toneAt <= 0.31 + 0.001,
            "tone at \(toneAt) s in the clip, trigger at \(triggerInClip) s")
        #expect(toneAt >= 1.9, "the pre-roll holds the quiet before the tone: \(toneAt)")
    }

    /// A line `clip` on standard input triggers; another line is warned about; an open standard
    /// input never holds the end of the recording back.
    @Test func standardInputTriggers() throws {
        let scratch = try RecordScratch()
        // The recorder's own run time, told after it ends; the writer holds standard input open.
        let command =
            "(sleep 2; echo clip; echo hello; sleep 16) | { start=$(date +%s); '\(BuiltBinary.path)' record --json "
            + Self.sources.map { "'\($0)'" }.joined(separator: " ")
            + " --pre-roll 1 --post-roll 1 --trigger stdin --duration 6 '\(scratch.path("in-%n.mp4"))'; "
            + "echo \"ran $(( $(date +%s) - start ))\" >&2; }"
        let result = try ChildProcess.run("sh", ["-c", command])
        let run = try Self.parse(status: 0, stdout: result.stdout, stderr: result.stderr)
        let ran = result.stderr.split(separator: "\n").last.flatMap { Int($0.dropFirst(4)) } ?? 99
        #expect(ran <= 12, "the recording of 6 s took \(ran) s: \(result.stderr)")
        #expect(run.events("trigger").map { $0["reason"] as? String } == ["stdin"])
        #expect(run.events("clip_closed").count == 1)
        #expect(run.stderr.contains("Warning: standard input: 'hello' is no command; a line 'clip' triggers a clip"))
    }

    /// SIGUSR1 is taken from the start, before the devices are there: a signal while the recorder
    /// waits for its device does not end the process (it ends as the wait does, 66).
    @Test func aSignalBeforeTheRecordingRunsDoesNotEndIt() throws {
        let scratch = try RecordScratch()
        let run = try Self.record(
            ["--audio", "hw:CARD=NoSuchCard,DEV=0", "--wait", "3", "--pre-roll", "1", scratch.path("w-%n.wav")],
            in: scratch, during: Self.signals(at: [1.5]))
        #expect(run.status == 66, "\(run.stderr)")
    }

    /// A template whose names repeat (`%H`: two clips in one hour) loses no clip: the second takes
    /// `-2` before its extension. strftime's %d is the day, as in a segment template.
    @Test func aNameGivenTwiceTakesASuffix() throws {
        let scratch = try RecordScratch()
        let run = try Self.record(
            Self.sources + [
                "--pre-roll", "0.5", "--post-roll", "0.5", "--duration", "7", scratch.path("rep-%Y%m%d-%H.mkv"),
            ], in: scratch, during: Self.signals(at: [2, 4.5]))
        #expect(run.status == 0, "\(run.stderr)")
        let paths = run.events("clip_closed").compactMap {
            ($0["path"] as? String).map { ($0 as NSString).lastPathComponent }
        }
        try #require(paths.count == 2, "\(run.events)")
        // The same hour gives the same name; across an hour's change the names differ anyway.
        let first = (paths[0] as NSString).deletingPathExtension
        #expect(paths[1] == first + "-2.mkv" || !paths[1].hasPrefix(first), "\(paths)")
        for path in paths { #expect(try RecordOracle.decodesCleanly(scratch.path(path)), "\(path)") }
    }

    /// A recording without clips takes SIGUSR1 too: warned about, ignored, the file whole.
    @Test func aStraySignalDoesNotEndARecording() throws {
        let scratch = try RecordScratch()
        let run = try Self.record(
            Self.sources + ["--duration", "4", scratch.path("plain.mp4")], in: scratch,
            during: Self.signals(at: [2]))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains("Warning: SIGUSR1 triggers event clips, which this recording does not make; ignored"))
        #expect(abs((try RecordOracle.probe(scratch.path("plain.mp4")).duration ?? 0) - 4) < 0.1)
    }

    /// --keep 2 over five clips: the oldest three deleted as the newer close.
    @Test func keepTwoOverFiveClips() throws {
        let scratch = try RecordScratch()
        let run = try Self.record(
            Self.sources + [
                "--pre-roll", "0.5", "--post-roll", "0.5", "--keep", "2", "--duration", "13", scratch.path("k-%n.mkv"),
            ], in: scratch, during: Self.signals(at: [2, 4, 6, 8, 10]))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.events("clip_closed").count == 5)
        #expect(
            run.events("segment_deleted").compactMap { $0["path"] as? String }.map {
                ($0 as NSString).lastPathComponent
            } == ["k-0001.mkv", "k-0002.mkv", "k-0003.mkv"])
        #expect(run.events("segment_deleted").compactMap { $0["number"] as? Int } == [1, 2, 3])
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
            $0.hasSuffix(".mkv")
        }
        #expect(files.sorted() == ["k-0004.mkv", "k-0005.mkv"])
    }

    /// kill -9 during a clip: the clip is playable up to about half a second before.
    @Test func aKilledRecordingLeavesItsClipPlayable() throws {
        let scratch = try RecordScratch()
        let run = try Self.record(
            Self.sources + ["--pre-roll", "1", "--post-roll", "30", scratch.path("kill-%n.mp4")], in: scratch
        ) { child in
            child.sleep(untilElapsed: 3)
            child.signal(SIGUSR1)
            child.sleep(untilElapsed: 8)
            child.signal(SIGKILL)
        }
        #expect(run.status == 137)
        let opened = try #require(run.events("clip_opened").first)
        let trigger = Self.number(try #require(run.events("trigger").first), "start")
        let path = try #require(opened["path"] as? String)
        let oracle = try RecordOracle.probe(path)
        // Killed about 5 s after the trigger: what came up to half a second before is there.
        let lasted = try #require(oracle.duration)
        #expect(lasted >= trigger - Self.number(opened, "start") + 4.0, "\(lasted) s")
        #expect(try RecordOracle.decodingMessages(path).split(separator: "\n").count <= 2)
    }

    /// A disk that fills ends the clip, said once; the recording and the ring go on.
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs to fill up needs root (CI runs as root)"))
    func aFullDiskEndsTheClipAndTheRecordingGoesOn() throws {
        let scratch = try RecordScratch()
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        let mount = try ChildProcess.run("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", disk])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? ChildProcess.run("umount", [disk]) }
        // 865 kB of raw pictures a second: the disk is full some 4 s into the clip.
        let run = try Self.record(
            [
                "--video", "lavfi:testsrc2=size=160x120:rate=30,realtime", "--codec", "raw", "--pre-roll", "1",
                "--duration", "10", disk + "/raw-%n.nut",
            ],
            in: scratch, during: Self.signals(at: [2]))
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("Warning:") }
        #expect(warnings.count == 1 && warnings.first?.contains("the clip ends there") == true, "\(run.stderr)")
        #expect(run.events("clip_closed").first?["reason"] as? String == "write failed")
        #expect(abs(Self.number(run.summary ?? [:], "duration") - 10) < 0.5, "the recording ran its duration")
    }

    /// Clip options that do not fit are refused before anything is recorded: 64, one line.
    @Test(arguments: [
        (["--post-roll", "2"], "--post-roll applies to event clips; add --pre-roll"),
        (["--pre-roll", "2", "--segment-time", "10"], "event clips and segments"),
        (["--pre-roll", "2", "--audio", "test", "--trigger", "level:-30dB"], "add --post-roll"),
        (["--pre-roll", "2", "--post-roll", "1", "--trigger", "level:-30dB"], "add --audio"),
        (["--pre-roll", "2", "--trigger", "loud"], "--trigger takes stdin or level:DBFS"),
        (["--pre-roll", "2", "--trigger-hold", "100"], "--trigger-hold is the level trigger's"),
        (["--pre-roll", "700"], "--pre-roll"),
        (["--pre-roll", "4", "--post-roll", "5", "--max-clip", "3"], "give at least 10 s"),
    ])
    func clipOptionsThatDoNotFitAreRefused(options: [String], says: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(["record", "--video", "test"] + options + [scratch.path("x-%n.mp4")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(says), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }
}
