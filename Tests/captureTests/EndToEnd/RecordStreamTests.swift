import Foundation
import Testing

/// Streaming to a real server: nginx with its RTMP module and an SRT listener (ffmpeg), the
/// stream pulled back and read by ffprobe; the server down at the start, gone in the middle, and
/// back; credentials never printed.
@Suite(.serialized) struct RecordStreamTests {
    static let key = "s3cretStreamKey"

    /// The JSON summary on stdout.
    static func summary(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw MediaServer.ServerFailed(what: "no JSON summary in: \(text)")
        }
        return object
    }

    /// `ffmpeg` pulling `url` into `file` as it is (`-c copy`), started before the push so it
    /// gets the stream from its first keyframe.
    static func puller(_ input: [String], to file: String, in scratch: RecordScratch, name: String = "puller") throws
        -> ChildProcess
    {
        try ChildProcess.recording(
            ["ffmpeg", "-nostdin", "-v", "error", "-y"] + input + ["-c", "copy", file], program: "/usr/bin/env",
            in: scratch, name: name)
    }

    /// Ends a puller as a user would (SIGINT: ffmpeg finishes the file) unless it ended itself.
    static func end(_ puller: ChildProcess) {
        if puller.wait(timeout: 3) == nil {
            kill(puller.pid, SIGINT)
            if puller.wait(timeout: 10) == nil { kill(puller.pid, SIGKILL) }
        }
    }

    @Test func rtmpStreamPullsBackAsPushed() async throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let url = server.url(key: Self.key)
        let pulled = scratch.path("pulled.flv")
        let (exit, puller) = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    ["record", "--video", "test", "--audio", "test", "--duration", "8", "--json", url], in: scratch)
                // A viewer that joins while the stream runs, as viewers do, and watches 4 s of it:
                // it starts at a keyframe.
                process.sleep(untilElapsed: 1.5)
                let puller = try Self.puller(
                    ["-rw_timeout", "20000000", "-i", url, "-t", "4"], to: pulled, in: scratch)
                return ((process.wait(timeout: 40), process.stdout, process.stderr), puller)
            }
        }
        Self.end(puller)
        #expect(exit.0?.status == 0, "\(exit.2)")
        #expect(!exit.1.contains(Self.key) && !exit.2.contains(Self.key))
        let json = try Self.summary(exit.1)
        #expect(json["output"] as? String == server.url(key: "***"))
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(streams.count == 1)
        #expect(streams.first?["url"] as? String == server.url(key: "***"))
        #expect(streams.first?["state"] as? String == "finished")
        #expect((streams.first?["packets_dropped"] as? Int) == 0)
        #expect((streams.first?["bytes"] as? Int ?? 0) > 50_000)
        let written = try #require((json["video"] as? [String: Any])?["frames_written"] as? Int)
        let duration = try #require(json["duration"] as? Double)

        // The server got every frame, H.264 and AAC, in step.
        let received = try RecordOracle.probe(server.received(key: Self.key))
        #expect(received.video?.codec == "h264" && received.audio?.codec == "aac")
        #expect(received.video?.frames == written, "the server got \(received.video?.frames ?? 0) of \(written)")
        #expect(abs((received.duration ?? 0) - duration) < 0.2, "\(received.duration ?? 0) s of \(duration)")
        let offset = abs((received.video?.start ?? 9) - (received.audio?.start ?? 0))
        #expect(offset <= 0.1, "A/V start offset \(offset) s")
        #expect(try RecordOracle.decodesCleanly(server.received(key: Self.key)))

        // The viewer got 4 s from its first keyframe: frames for the time pulled, decodable.
        let oracle = try RecordOracle.probe(pulled)
        #expect(oracle.video?.codec == "h264" && oracle.audio?.codec == "aac")
        let frames = try #require(oracle.video?.frames)
        let pushedRate = Double(written) / duration
        #expect(abs(Double(frames) / 4 - pushedRate) <= pushedRate * 0.1, "\(frames) frames in 4 s")
        #expect(abs((oracle.duration ?? 0) - 4) <= 0.3, "\(oracle.duration ?? 0) s")
        #expect(try RecordOracle.decodesCleanly(pulled))
    }

    @Test func srtPassphraseStaysHidden() async throws {
        let scratch = try RecordScratch()
        let port = try FreePort.udp()
        let received = scratch.path("received.ts")
        let listener = try Self.puller(
            ["-f", "mpegts", "-i", "srt://127.0.0.1:\(port)?mode=listener&listen_timeout=30000000"], to: received,
            in: scratch)
        // Listening, whatever the load: a fixed pause left a busy machine's listener not ready.
        try RTSPServer.waitUntilListening(port: port, server: listener, udp: true)
        let url = "srt://127.0.0.1:\(port)?passphrase=\(Self.key)xyz"
        let exit = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    ["record", "--video", "test", "--audio", "test", "--duration", "5", "--json", url], in: scratch)
                return (process.wait(timeout: 40), process.stdout, process.stderr)
            }
        }
        Self.end(listener)
        // The listener has no passphrase: the SRT handshake fails, which says the passphrase was
        // passed on; the message must not show it.
        #expect(exit.0?.status == 69, "\(exit.1) \(exit.2)")
        #expect(!exit.1.contains(Self.key) && !exit.2.contains(Self.key), "\(exit.2)")
        #expect(exit.2.contains("passphrase=***"), "\(exit.2)")
    }

    @Test func srtStreamPullsBackAsPushed() async throws {
        let scratch = try RecordScratch()
        let port = try FreePort.udp()
        let received = scratch.path("received.ts")
        let listener = try Self.puller(
            ["-f", "mpegts", "-i", "srt://127.0.0.1:\(port)?mode=listener&listen_timeout=30000000"], to: received,
            in: scratch)
        // Listening, whatever the load: a fixed pause left a busy machine's listener not ready.
        try RTSPServer.waitUntilListening(port: port, server: listener, udp: true)
        let exit = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    [
                        "record", "--video", "test", "--audio", "test", "--duration", "5", "--json",
                        "srt://127.0.0.1:\(port)",
                    ], in: scratch)
                return (process.wait(timeout: 40), process.stdout, process.stderr)
            }
        }
        Self.end(listener)
        #expect(exit.0?.status == 0, "\(exit.2)")
        let json = try Self.summary(exit.1)
        #expect(json["container"] as? String == "mpegts")
        let written = try #require((json["video"] as? [String: Any])?["frames_written"] as? Int)
        let oracle = try RecordOracle.probe(received)
        #expect(oracle.video?.codec == "h264")
        #expect(oracle.audio?.codec == "aac")
        let frames = try #require(oracle.video?.frames)
        #expect(frames >= written - 2 && frames <= written, "received \(frames) of \(written)")
        let offset = abs((oracle.video?.start ?? 9) - (oracle.audio?.start ?? 0))
        #expect(offset <= 0.1, "A/V start offset \(offset) s")
    }

    /// RTMPS goes through FFmpeg's TLS to a TLS front of the server (self-signed: FFmpeg does not
    /// verify certificates unless asked), and arrives as pushed.
    @Test func rtmpsStreamsThroughTLS() throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--audio", "test", "--duration", "3", "--json", server.tlsURL(key: Self.key),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains(Self.key) && !result.stderr.contains(Self.key))
        let json = try Self.summary(result.stdout)
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(streams.first?["url"] as? String == server.tlsURL(key: "***"))
        #expect(streams.first?["state"] as? String == "finished")
        let written = try #require((json["video"] as? [String: Any])?["frames_written"] as? Int)
        let received = try RecordOracle.probe(server.received(key: Self.key))
        #expect(received.video?.codec == "h264" && received.audio?.codec == "aac")
        #expect(received.video?.frames == written, "the server got \(received.video?.frames ?? 0) of \(written)")
        #expect(try RecordOracle.decodesCleanly(server.received(key: Self.key)))
    }

    /// A stream the server or network refused, as the user sees it: exit 69, one line of stderr
    /// that says `cause`, and never the stream key.
    static func expectRefused(
        _ result: ChildProcess.Result, saying cause: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 69, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(cause), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains(Self.key), sourceLocation: sourceLocation)
    }

    /// rtmps:// to a port that speaks plain RTMP: exit 69, and the cause is the TLS handshake.
    @Test func rtmpsToAPlainServerExits69() throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let url = "rtmps://127.0.0.1:\(server.port)/live/\(Self.key)"
        let result = try BuiltBinary.run(["record", "--video", "test", "--duration", "1", url])
        Self.expectRefused(result, saying: "TLS")
    }

    @Test func refusedConnectionExits69() throws {
        let port = try FreePort.tcp()
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "rtmp://user:hunter22@127.0.0.1:\(port)/live/\(Self.key)",
        ])
        #expect(result.status == 69, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("rtmp://***@127.0.0.1:\(port)/live/***"), "\(result.stderr)")
        #expect(result.stderr.contains("connection refused"), "\(result.stderr)")
        #expect(!result.stderr.contains(Self.key) && !result.stderr.contains("hunter22"))
    }

    @Test func unresolvableHostExits69() throws {
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "rtmp://no-such-host.invalid/live/\(Self.key)",
        ])
        Self.expectRefused(result, saying: "host not found")
    }

    @Test func wrongApplicationExits69() throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", server.url(app: "nosuchapp", key: Self.key),
        ])
        Self.expectRefused(result, saying: "refused the stream")
    }

    /// Ctrl-C while a silent server keeps the connection waiting: the command ends at once,
    /// nothing recorded, exit 0, not at the connect timeout.
    @Test func stopWhileConnectingEndsAtOnce() throws {
        let scratch = try RecordScratch()
        let silent = try FreePort.Silent()
        let process = try ChildProcess.recording(
            [
                "record", "--video", "test", "--connect-timeout", "30",
                "rtmp://127.0.0.1:\(silent.port)/live/\(Self.key)",
            ], in: scratch)
        process.sleep(untilElapsed: 1.5)
        process.signalGroup(SIGINT)
        let exit = process.wait(timeout: 10)
        #expect(exit?.status == 0, "\(process.stderr)")
        #expect(process.elapsed < 5, "ended \(process.elapsed) s after the start")
        #expect(process.stderr.contains("before the first frame"), "\(process.stderr)")
    }

    /// SRT's own connect timeout (3 s) follows --connect-timeout, and its cause names SRT's
    /// settings, not RTMP's.
    @Test func srtWithoutAListenerWaitsTheConnectTimeout() throws {
        let port = try FreePort.udp()
        let start = Date()
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "--connect-timeout", "5", "srt://127.0.0.1:\(port)",
        ])
        let took = Date().timeIntervalSince(start)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("check the port, the passphrase and the stream id"), "\(result.stderr)")
        #expect(took >= 4.5 && took < 12, "took \(took) s")
    }

    /// `--format nut -` writes the recording to standard output, and the summary to stderr.
    @Test func standardOutputCarriesTheRecording() throws {
        let scratch = try RecordScratch()
        let file = scratch.path("piped.nut")
        let result = try ChildProcess.run(
            "sh", ["-c", "\"$0\" record --video test --duration 2 --format nut - > \"$1\"", BuiltBinary.path, file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Recorded standard output: nut, 2.00 s"), "\(result.stderr)")
        let oracle = try RecordOracle.probe(file)
        #expect(oracle.video?.frames == 60)
        #expect(try RecordOracle.decodesCleanly(file))
    }

    /// A server that checks stream keys: the right one streams, a wrong one is exit 69 with one
    /// line pointing at the key, and neither key is printed.
    @Test func wrongStreamKeyExits69() throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let wrong = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", server.url(app: "secure", key: Self.key),
        ])
        Self.expectRefused(wrong, saying: "check the application name and stream key")
        let right = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", server.url(app: "secure", key: MediaServer.goodKey),
        ])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(!right.stdout.contains(MediaServer.goodKey) && !right.stderr.contains(MediaServer.goodKey))
    }

    @Test func silentServerTimesOut() throws {
        let silent = try FreePort.Silent()
        let start = Date()
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "--connect-timeout", "1.5",
            "rtmp://127.0.0.1:\(silent.port)/live/\(Self.key)",
        ])
        let took = Date().timeIntervalSince(start)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("no answer within 1.5 s"), "\(result.stderr)")
        #expect(took < 10, "took \(took) s")
    }

    /// The server goes away 3 s into a 10 s recording and comes back 2 s later: the file is whole,
    /// the stream reconnects and says so. (Reconnects back off 1, 2, 4 s: a server back after the
    /// second attempt would be met only by the third, after the recording's end.)
    @Test func serverRestartMidStreamKeepsTheFileAndReconnects() async throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let file = scratch.path("room.mkv")
        let result = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    [
                        "record", "--video", "test", "--audio", "test", "--duration", "10", "--json",
                        server.url(key: Self.key), "--also", file,
                    ], in: scratch)
                process.sleep(untilElapsed: 4)
                server.stop()
                process.sleep(untilElapsed: 6)
                try server.start()
                return (process.wait(timeout: 40), process.stdout, process.stderr)
            }
        }
        #expect(result.0?.status == 0, "\(result.2)")
        #expect(!result.1.contains(Self.key) && !result.2.contains(Self.key))
        let json = try Self.summary(result.1)
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect((stream["reconnects"] as? Int ?? 0) >= 1, "\(stream)")
        #expect((stream["seconds_disconnected"] as? Double ?? 0) > 0.5, "\(stream)")
        #expect((stream["packets_dropped"] as? Int ?? 0) > 0, "\(stream)")
        #expect(result.2.contains("connection lost") && result.2.contains("reconnected"), "\(result.2)")
        let oracle = try RecordOracle.probe(file)
        #expect(abs((oracle.duration ?? 0) - 10) <= 0.3, "\(oracle.duration ?? 0) s")
        #expect(oracle.video?.codec == "h264" && oracle.audio?.codec == "aac")
        #expect(try RecordOracle.decodesCleanly(file))
    }

    /// Only a stream, and the server never comes back: exit 74 once the reconnect time is up.
    @Test func lostStreamOnlyRecordingExits74() async throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let result = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    [
                        "record", "--video", "test", "--duration", "30", "--reconnect-timeout", "3",
                        server.url(key: Self.key),
                    ], in: scratch)
                process.sleep(untilElapsed: 2)
                server.stop()
                return (process.wait(timeout: 30), process.elapsed, process.stderr)
            }
        }
        #expect(result.0?.status == 74, "\(result.2)")
        #expect(result.1 < 15, "ended after \(result.1) s")
        #expect(result.2.contains("Error: rtmp://127.0.0.1:\(server.port)/live/***: the stream ended"), "\(result.2)")
        #expect(!result.2.contains(Self.key))
    }

    /// While the server is down the stream's packets are dropped, not kept: memory stays flat.
    @Test func memoryStaysBoundedWhileTheServerIsDown() async throws {
        let scratch = try RecordScratch()
        let server = try MediaServer(in: scratch)
        let file = scratch.path("room.mkv")
        let (first, last, exit) = try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(
                    [
                        "record", "--video", "test", "--audio", "test", "--duration", "38", "--quiet",
                        server.url(key: Self.key), "--also", file,
                    ], in: scratch)
                process.sleep(untilElapsed: 3)
                server.stop()
                process.sleep(untilElapsed: 6)
                let first = Self.residentKiB(process.pid)
                process.sleep(untilElapsed: 36)
                let last = Self.residentKiB(process.pid)
                return (first, last, process.wait(timeout: 30))
            }
        }
        #expect(exit?.status == 0)
        #expect(first > 0 && last - first <= 8 * 1024, "RSS \(first) KiB then \(last) KiB")
    }

    /// VmRSS of `pid` in KiB (capture runs under `nice` as root: its child).
    static func residentKiB(_ pid: pid_t) -> Int {
        var candidates = [pid]
        if let children = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) {
            candidates += children.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
        }
        for candidate in candidates.reversed() {
            guard let status = try? String(contentsOfFile: "/proc/\(candidate)/status", encoding: .utf8),
                status.contains("Name:\tcapture"),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
            else { continue }
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    @Test func usageErrors() throws {
        for (arguments, message) in [
            (["--bufsize", "1M", "out.mkv"], "--bufsize needs --maxrate"),
            (["--maxrate", "fast", "out.mkv"], "--maxrate takes bits per second"),
            (["--format", "nosuch", "udp://127.0.0.1:9/x"], "no muxer named 'nosuch'"),
            (["--also", "b.mkv", "a.mkv"], "a recording writes one file"),
            (["--codec", "raw", "rtmp://127.0.0.1:9/live/k"], "flv cannot carry raw video"),
            (["http://example.com/x"], "other URLs are not outputs"),
            (["--format", "mpegts", "rtmp://127.0.0.1:9/live/k"], "RTMP carries FLV only"),
            (["--format", "mp4", "udp://127.0.0.1:9"], "cannot stream; use mpegts"),
            (["rtmp://127.0.0.1:99999/live/k"], "'99999' is no port"),
            (["rtmp:///live/k"], "the URL names no host"),
            (["srt://127.0.0.1"], "srt:// needs a port"),
            (["srt://127.0.0.1:9000?passphrase=short"], "an SRT passphrase has 10 to 79 characters, not 5"),
            (["--audio", "test", "a.wav", "--also", "rtmp://127.0.0.1:9/live/k"], "a .wav file holds PCM"),
            (["-"], "'-' writes to standard output: name the container with --format"),
        ] {
            let result = try BuiltBinary.run(["record", "--video", "test"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(result.stderr)")
        }
    }
}

/// `--maxrate` and `--bufsize` hold x264 to a rate a link carries (VBV), where crf alone would not.
@Suite struct RecordRateCapTests {
    static let noisy = "lavfi:testsrc2=size=320x240:rate=30,noise=alls=40:allf=t"

    /// Video bits per second of `file`, from the sizes of its packets (ffprobe).
    static func videoBitRate(_ file: String, seconds: Double) throws -> Double {
        let result = try ChildProcess.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0", file])
        let bytes = result.stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .reduce(0, +)
        return Double(bytes) * 8 / seconds
    }

    @Test func maxrateCapsTheRate() throws {
        let scratch = try RecordScratch()
        let free = scratch.path("free.mkv")
        let capped = scratch.path("capped.mkv")
        let base = ["record", "--video", Self.noisy, "--frames", "120", "--quiet"]
        let a = try BuiltBinary.runNiced(base + [free])
        let b = try BuiltBinary.runNiced(base + ["--maxrate", "300k", "--bufsize", "300k", capped])
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let freeRate = try Self.videoBitRate(free, seconds: 4)
        let cappedRate = try Self.videoBitRate(capped, seconds: 4)
        // The source is noise: crf 23 alone spends far more than the cap.
        #expect(freeRate > 600_000, "\(freeRate) bit/s without a cap")
        #expect(cappedRate <= 300_000 * 1.15, "\(cappedRate) bit/s with --maxrate 300k")
    }
}
