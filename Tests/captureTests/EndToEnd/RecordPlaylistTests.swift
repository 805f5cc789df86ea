import Foundation
import Testing

/// HLS: a `.m3u8` output is a playlist and MPEG-TS segments, served by a plain web server
/// (Python's http.server on 127.0.0.1) and read back through it by ffprobe; the segments as long
/// as asked, the window kept, the playlist ended by Ctrl-C and whole after kill -9.
@Suite(.serialized) struct RecordPlaylistTests {
    /// The playlist's segments: each listed file with its `#EXTINF` duration in seconds.
    struct Playlist {
        var text: String
        var segments: [(name: String, seconds: Double)]
        var ended: Bool { text.contains("#EXT-X-ENDLIST") }

        init(_ path: String) throws {
            text = try String(contentsOfFile: path, encoding: .utf8)
            var seconds: Double?
            segments = []
            for line in text.split(separator: "\n") {
                if line.hasPrefix("#EXTINF:") {
                    seconds = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
                } else if !line.hasPrefix("#"), let length = seconds {
                    segments.append((String(line), length))
                    seconds = nil
                }
            }
        }
    }

    static func record(
        _ arguments: [String], in scratch: RecordScratch, signal: Int32? = nil, after: Double = 0
    ) async throws -> (exit: ChildProcess.Exit?, stdout: String, stderr: String) {
        try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(["record"] + arguments, in: scratch)
                if let signal {
                    process.sleep(untilElapsed: after)
                    process.signal(signal)
                }
                return (process.wait(timeout: 40), process.stdout, process.stderr)
            }
        }
    }

    /// `python3 -m http.server` serving `folder` on a free port of 127.0.0.1, once it accepts.
    static func webServer(serving folder: String, in scratch: RecordScratch) throws -> (ChildProcess, Int) {
        let port = try FreePort.tcp()
        let server = try ChildProcess.recording(
            ["-m", "http.server", "--bind", "127.0.0.1", "--directory", folder, "\(port)"], program: "/usr/bin/python3",
            in: scratch, name: "http")
        let deadline = Date().addingTimeInterval(10)
        while !FreePort.accepts(port) {
            if Date() > deadline || server.wait(timeout: 0) != nil {
                throw MediaServer.ServerFailed(what: "http.server did not listen: \(server.stderr)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return (server, port)
    }

    @Test func segmentsAsAskedReadBackOverHTTP() async throws {
        let scratch = try RecordScratch()
        let folder = scratch.path("www")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try await Self.record(
            [
                "--video", "test", "--audio", "test", "--duration", "7", "--segment-time", "2", "--json",
                folder + "/cam.m3u8",
            ], in: scratch)
        #expect(result.exit?.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["segments"] as? Int == 4, "\(json)")

        let playlist = try Playlist(folder + "/cam.m3u8")
        #expect(playlist.ended && playlist.text.contains("#EXT-X-PLAYLIST-TYPE:EVENT"), "\(playlist.text)")
        #expect(playlist.segments.map(\.name) == (0..<4).map { String(format: "cam-%05d.ts", $0) })
        // Cut at the keyframe asked for at each 2 s: 2 s to the frame, the last one what is left.
        for segment in playlist.segments.dropLast() {
            #expect(abs(segment.seconds - 2) <= 1.0 / 30 + 0.001, "\(segment)")
        }
        let total = playlist.segments.reduce(0) { $0 + $1.seconds }
        #expect(abs(total - 7) <= 0.1, "\(total) s listed")
        for segment in playlist.segments {
            let messages = try RecordOracle.decodingMessages(folder + "/" + segment.name)
            #expect(messages.isEmpty, "\(segment.name): \(messages)")
        }

        let (server, port) = try Self.webServer(serving: folder, in: scratch)
        defer {
            server.signal(SIGTERM)
            server.wait()
        }
        let served = try RecordOracle.probe("http://127.0.0.1:\(port)/cam.m3u8")
        #expect(served.video?.codec == "h264" && served.audio?.codec == "aac")
        #expect(abs((served.duration ?? 0) - 7) <= 0.2, "\(served.duration ?? 0) s served")
    }

    @Test func keepIsASlidingWindow() async throws {
        let scratch = try RecordScratch()
        let result = try await Self.record(
            [
                "--video", "test", "--audio", "test", "--duration", "9", "--segment-time", "2", "--keep", "2",
                scratch.path("live.m3u8"),
            ], in: scratch)
        #expect(result.exit?.status == 0, "\(result.stderr)")
        let playlist = try Playlist(scratch.path("live.m3u8"))
        // Five segments made (2, 2, 2, 2, 1 s); the last two listed, the older ones gone but for
        // the one FFmpeg keeps a while for players still fetching it.
        #expect(playlist.segments.map(\.name) == ["live-00003.ts", "live-00004.ts"], "\(playlist.text)")
        #expect(playlist.text.contains("#EXT-X-MEDIA-SEQUENCE:3"), "\(playlist.text)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.hasSuffix(".ts") }
        #expect(!left.contains("live-00000.ts") && !left.contains("live-00001.ts"), "\(left.sorted())")
    }

    /// `--max-total-size`: the playlist lists the newest segments the budget holds, and the
    /// folder keeps no more than it on disk; every listed segment is there and plays.
    @Test func maxTotalSizeIsASizeBudget() async throws {
        let scratch = try RecordScratch()
        let budget = 1 << 20
        let result = try await Self.record(
            [
                "--video", "test", "--audio", "test", "--duration", "12", "--segment-time", "1", "--max-total-size",
                "1M", scratch.path("cam.m3u8"),
            ], in: scratch)
        #expect(result.exit?.status == 0, "\(result.stderr)")
        let playlist = try Playlist(scratch.path("cam.m3u8"))
        #expect(playlist.ended && !playlist.text.contains("PLAYLIST-TYPE"), "\(playlist.text)")
        // The newest ones, in order, up to the twelfth (each 1 s of the 640x480 pattern takes
        // about 135 KB, so twelve never fit in 1 MiB).
        let numbers = playlist.segments.compactMap { Int($0.name.dropFirst("cam-".count).prefix(5)) }
        #expect(!numbers.isEmpty && numbers.count < 12 && numbers.last == 11, "\(playlist.text)")
        #expect(numbers == Array((numbers.first ?? 0)...11), "\(numbers)")
        #expect(playlist.text.contains("#EXT-X-MEDIA-SEQUENCE:\(numbers.first ?? -1)\n"), "\(playlist.text)")
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
        let sizes = try files.filter { $0.hasPrefix("cam-") }.map { name in
            try #require(try FileManager.default.attributesOfItem(atPath: scratch.path(name))[.size] as? Int)
        }
        #expect(sizes.reduce(0, +) <= budget, "\(files.sorted()): \(sizes)")
        #expect(!files.contains { $0.hasPrefix(".") || $0.hasSuffix(".tmp") }, "\(files.sorted())")
        for segment in playlist.segments {
            #expect(try RecordOracle.decodesCleanly(scratch.path(segment.name)), "\(segment.name)")
        }
    }

    /// Audio is cut with its video: an encoder whose lookahead holds video back longer than a
    /// second (x264 medium: 40 frames) leaves each segment's audio starting with its video all
    /// the same, as the muxer holds the audio until the video catches up.
    @Test func eachSegmentsAudioStartsWithItsVideo() async throws {
        let scratch = try RecordScratch()
        let result = try await Self.record(
            [
                "--video", "test", "--audio", "test", "--preset", "medium", "--duration", "7", "--segment-time", "2",
                scratch.path("av.m3u8"),
            ], in: scratch)
        #expect(result.exit?.status == 0, "\(result.stderr)")
        let playlist = try Playlist(scratch.path("av.m3u8"))
        #expect(playlist.segments.count == 4, "\(playlist.text)")
        for segment in playlist.segments {
            let probe = try RecordOracle.probe(scratch.path(segment.name))
            let video = try #require(probe.video?.start)
            let audio = try #require(probe.audio?.start)
            #expect(abs(audio - video) <= 0.1, "\(segment.name): video from \(video) s, audio from \(audio) s")
        }
    }

    /// A working playlist a killed recording left beside the playlist is no part of the next.
    @Test func aLeftWorkingPlaylistIsNotReadAsTheNewOnes() async throws {
        let scratch = try RecordScratch()
        let stale = [
            "#EXTM3U", "#EXT-X-MEDIA-SEQUENCE:3", "#EXTINF:1.000000,", "w-00003.ts", "#EXTINF:1.000000,", "w-00004.ts",
            "garbage",
        ].joined(separator: "\n")
        try Data(stale.utf8).write(to: URL(fileURLWithPath: scratch.path(".w.m3u8")))
        let result = try await Self.record(
            ["--video", "test", "--audio", "test", "--duration", "3", "--segment-time", "1", scratch.path("w.m3u8")],
            in: scratch)
        #expect(result.exit?.status == 0, "\(result.stderr)")
        let playlist = try Playlist(scratch.path("w.m3u8"))
        #expect(playlist.segments.map(\.name) == ["w-00000.ts", "w-00001.ts", "w-00002.ts"], "\(playlist.text)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path(".w.m3u8")))
    }

    @Test func ctrlCEndsThePlaylist() async throws {
        let scratch = try RecordScratch()
        let path = scratch.path("int.m3u8")
        let result = try await Self.record(
            ["--video", "test", "--audio", "test", path], in: scratch, signal: SIGINT, after: 5)
        #expect(result.exit?.status == 0, "\(result.stderr)")
        let playlist = try Playlist(path)
        #expect(playlist.ended, "\(playlist.text)")
        let total = playlist.segments.reduce(0) { $0 + $1.seconds }
        #expect((4.5...5.5).contains(total), "\(total) s listed")
        for segment in playlist.segments {
            #expect(try RecordOracle.decodesCleanly(scratch.path(segment.name)), "\(segment.name)")
        }
    }

    @Test func killedLeavesOnlyWholeSegmentsListed() async throws {
        let scratch = try RecordScratch()
        let path = scratch.path("crash.m3u8")
        let result = try await Self.record(
            ["--video", "test", "--audio", "test", path], in: scratch, signal: SIGKILL, after: 5.5)
        #expect(result.exit?.signal == SIGKILL)
        let playlist = try Playlist(path)
        #expect(!playlist.ended)
        // Two segments of 2 s at least were complete by then; none that was not is listed.
        #expect(playlist.segments.count >= 2, "\(playlist.text)")
        for segment in playlist.segments {
            let messages = try RecordOracle.decodingMessages(scratch.path(segment.name))
            #expect(messages.isEmpty, "\(segment.name): \(messages)")
            let oracle = try RecordOracle.probe(scratch.path(segment.name))
            #expect(abs((oracle.duration ?? 0) - segment.seconds) <= 0.1, "\(segment.name): \(oracle.duration ?? 0) s")
        }
    }

    @Test func segmentsOfAnEarlierRecordingAreNotWrittenOver() throws {
        let scratch = try RecordScratch()
        let old = scratch.path("cam-00003.ts")
        try Data("old".utf8).write(to: URL(fileURLWithPath: old))
        let result = try BuiltBinary.run(["record", "--video", "test", "--duration", "1", scratch.path("cam.m3u8")])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains(old) && result.stderr.contains("--force"), "\(result.stderr)")
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "old")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("cam.m3u8")))
    }

    /// A second recording into the same playlist, started while the first has no whole segment
    /// yet, is refused: the first took the name with its first packet.
    @Test func aSecondRecordingIntoThePlaylistIsRefused() async throws {
        let scratch = try RecordScratch()
        let path = scratch.path("cam.m3u8")
        let first = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    ["record", "--video", "test", "--duration", "4", path], in: scratch)
                let deadline = Date().addingTimeInterval(20)
                while !FileManager.default.fileExists(atPath: path) && Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.02)
                }
                let second = try BuiltBinary.run(["record", "--video", "test", "--duration", "1", path])
                return (process.wait(timeout: 40), second)
            }
        }
        #expect(first.0?.status == 0)
        #expect(first.1.status == 73, "\(first.1.stderr)")
        let playlist = try Playlist(path)
        #expect(playlist.segments.count == 2 && playlist.ended, "\(playlist.text)")
    }

    /// `--force` replaces the earlier recording: its playlist and all its segments, none left
    /// behind unlisted.
    @Test func forceReplacesTheEarlierSegmentsToo() throws {
        let scratch = try RecordScratch()
        for number in 0..<6 {
            try Data("old".utf8).write(to: URL(fileURLWithPath: scratch.path(String(format: "cam-%05d.ts", number))))
        }
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "--force", scratch.path("cam.m3u8"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.hasSuffix(".ts") }
        #expect(left == ["cam-00000.ts"], "\(left)")
        #expect(try RecordOracle.decodesCleanly(scratch.path("cam-00000.ts")))
    }

    @Test(arguments: [
        ["--segment-size", "5M"], ["--utc"], ["--segment-time", "0.5"], ["--segment-time", "2.5"], ["--keep", "0"],
        ["--max-total-size", "500K"],
    ])
    func optionsAPlaylistDoesNotTakeExit64(options: [String]) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(
            ["record", "--video", "test", "--duration", "1"] + options + [scratch.path("cam.m3u8")])
        #expect(result.status == 64, "\(result.stderr)")
        let said = result.stderr.split(separator: "\n").first ?? ""
        #expect(said.hasPrefix("Error: ") && said.contains(options[0]), "\(result.stderr)")
    }

    @Test(arguments: ["a:b.m3u8", "x?y.m3u8", "a%d.m3u8", "a b.m3u8"])
    func aPlaylistNameAURLWouldMisreadExits64(name: String) throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run(["record", "--video", "test", "--duration", "1", scratch.path(name)])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    @Test func hlsIntoAnotherExtensionExits64() throws {
        let scratch = try RecordScratch()
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "--format", "hls", scratch.path("b.mkv"),
        ])
        #expect(result.status == 64, "\(result.stderr)")
    }

    /// A full disk: exit 74, and the playlist ends (`#EXT-X-ENDLIST`, its header kept) listing only
    /// whole segments; no segment the disk cut short stays beside it, listed or not.
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs to fill up needs root (CI runs as root)"))
    func aFullDiskEndsThePlaylistWithWholeSegmentsOnly() throws {
        let scratch = try RecordScratch()
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        let mount = try ChildProcess.run("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", disk])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? ChildProcess.run("umount", [disk]) }
        let path = disk + "/full.m3u8"
        let result = try BuiltBinary.runNiced([
            "record", "--video", "test", "--video-size", "320x240", "--audio", "test", "--preset", "ultrafast",
            "--crf", "0", "--segment-time", "1", "--duration", "60", "--quiet", path,
        ])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: \(path): disk full (no space left on device)"), "\(result.stderr)")
        let playlist = try Playlist(path)
        #expect(playlist.ended && playlist.text.contains("#EXT-X-VERSION:"), "\(playlist.text)")
        #expect(!playlist.segments.isEmpty, "\(playlist.text)")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: disk).filter { $0 != "full.m3u8" }
        #expect(Set(onDisk) == Set(playlist.segments.map(\.name)), "on disk \(onDisk.sorted()), \(playlist.text)")
        for segment in playlist.segments {
            let messages = try RecordOracle.decodingMessages(disk + "/" + segment.name)
            #expect(messages.isEmpty, "\(segment.name): \(messages)")
        }
    }
}
