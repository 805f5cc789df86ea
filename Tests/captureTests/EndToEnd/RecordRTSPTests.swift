import Foundation
import Testing

/// Publishing to RTSP servers on 127.0.0.1 (ANNOUNCE, RECORD, RTP over the RTSP connection):
/// FFmpeg's listener and GStreamer's gst-rtsp-server, what each received read back by ffprobe;
/// the password never printed; the server gone in the middle while the `--also` file goes on.
@Suite(.serialized) struct RecordRTSPTests {
    static let password = "hunter22pw"

    /// Records with the built capture in real time; returns its exit, stdout and stderr. `during`
    /// runs on the recording's thread while it goes.
    static func record(
        _ arguments: [String], in scratch: RecordScratch,
        during: @escaping @Sendable (ChildProcess) throws -> Void = { _ in }
    ) async throws -> (exit: ChildProcess.Exit?, stdout: String, stderr: String) {
        try await RealTimeSlots.run {
            try await onOwnThread {
                let process = try ChildProcess.realTime(["record"] + arguments, in: scratch)
                try during(process)
                return (process.wait(timeout: 40), process.stdout, process.stderr)
            }
        }
    }

    static func summary(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test(arguments: ["aac", "opus"])
    func publishedToFFmpegArrivesAsRecorded(audioCodec: String) async throws {
        let scratch = try RecordScratch()
        let port = try FreePort.tcp()
        let received = scratch.path("received")
        let server = try RTSPServer.ffmpeg(port: port, writing: received, in: scratch)
        let result = try await Self.record(
            [
                "--video", "test", "--audio", "test", "--audio-codec", audioCodec, "--duration", "4", "--json",
                "rtsp://door:\(Self.password)@127.0.0.1:\(port)/live",
            ], in: scratch)
        RTSPServer.stop(server)
        #expect(result.exit?.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains(Self.password) && !result.stderr.contains(Self.password))
        let json = try Self.summary(result.stdout)
        #expect(json["output"] as? String == "rtsp://door:***@127.0.0.1:\(port)/live")
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect(stream["state"] as? String == "finished", "\(stream)")
        #expect(stream["packets_dropped"] as? Int == 0, "\(stream)")
        #expect((stream["bytes"] as? Int ?? 0) > 50_000, "\(stream)")
        let written = try #require((json["video"] as? [String: Any])?["frames_written"] as? Int)
        let duration = try #require(json["duration"] as? Double)

        // The server got every frame, each decodable, and the audio asked for, for as long.
        let video = try RecordOracle.probe(received + ".h264")
        #expect(video.video?.codec == "h264")
        #expect(video.video?.frames == written, "the server got \(video.video?.frames ?? 0) of \(written) frames")
        let messages = try RecordOracle.decodingMessages(received + ".h264")
        #expect(messages.isEmpty, "\(messages)")
        let audio = try RecordOracle.probe(received + ".mkv")
        #expect(audio.audio?.codec == audioCodec)
        #expect(abs((audio.duration ?? 0) - duration) < 0.2, "\(audio.duration ?? 0) s of audio for \(duration) s")
    }

    /// The second server implementation takes the same publisher: the session, the SDP and the
    /// RTP packetization are understood, and what it writes decodes. gst-rtsp-server stops its
    /// pipeline on TEARDOWN without draining it, so the last tenths of a second in flight there
    /// are not written: completeness is the FFmpeg server's test, and here most of it must come.
    @Test func publishedToGStreamerArrivesAsRecorded() async throws {
        let scratch = try RecordScratch()
        let port = try FreePort.tcp()
        let received = scratch.path("received")
        let server = try RTSPServer.gstreamer(port: port, writing: received, in: scratch)
        defer { RTSPServer.stop(server) }
        let result = try await Self.record(
            ["--video", "test", "--audio", "test", "--duration", "4", "--json", "rtsp://127.0.0.1:\(port)/live"],
            in: scratch)
        #expect(result.exit?.status == 0, "\(result.stderr)")
        let json = try Self.summary(result.stdout)
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect(stream["state"] as? String == "finished", "\(stream)")
        let written = try #require((json["video"] as? [String: Any])?["frames_written"] as? Int)
        let samples = try #require((json["audio"] as? [String: Any])?["samples"] as? Int)

        let video = try RecordOracle.probe(received + ".h264")
        #expect(video.video?.codec == "h264")
        let frames = try #require(video.video?.frames)
        #expect((written * 9 / 10...written).contains(frames), "the server got \(frames) of \(written) frames")
        let videoMessages = try RecordOracle.decodingMessages(received + ".h264")
        #expect(videoMessages.isEmpty, "\(videoMessages)")
        let audio = try RecordOracle.probe(received + ".aac")
        #expect(audio.audio?.codec == "aac")
        // AAC frames of 1024 samples; the encoder's flush adds one or two.
        let aacFrames = try #require(audio.audio?.frames)
        let sent = (samples + 1023) / 1024
        #expect((sent * 9 / 10...sent + 2).contains(aacFrames), "the server got \(aacFrames) AAC frames for \(sent)")
    }

    /// The server dies 2 s into an 8 s recording and a new one listens from 4 s: the file given
    /// with `--also` holds all 8 s, and the stream reconnects to the new server, which gets the
    /// rest from a keyframe.
    @Test func serverKilledMidStreamKeepsTheFileAndReconnects() async throws {
        let scratch = try RecordScratch()
        let port = try FreePort.tcp()
        let file = scratch.path("room.mkv")
        let first = try RTSPServer.ffmpeg(port: port, writing: scratch.path("first"), in: scratch, name: "first")
        let second = ServerSlot()
        let result = try await Self.record(
            [
                "--video", "test", "--audio", "test", "--duration", "8", "--json", "rtsp://127.0.0.1:\(port)/live",
                "--also", file,
            ], in: scratch
        ) { process in
            process.sleep(untilElapsed: 2)
            kill(first.pid, SIGKILL)
            process.sleep(untilElapsed: 4)
            second.server = try RTSPServer.ffmpeg(
                port: port, writing: scratch.path("second"), in: scratch, name: "second")
        }
        first.wait()
        if let server = second.server { RTSPServer.stop(server) }
        #expect(result.exit?.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("connection lost") && result.stderr.contains("reconnected"), "\(result.stderr)")
        let json = try Self.summary(result.stdout)
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        #expect((stream["reconnects"] as? Int ?? 0) >= 1, "\(stream)")
        let oracle = try RecordOracle.probe(file)
        #expect(abs((oracle.duration ?? 0) - 8) <= 0.3, "\(oracle.duration ?? 0) s")
        #expect(oracle.video?.codec == "h264" && oracle.audio?.codec == "aac")
        #expect(try RecordOracle.decodesCleanly(file))
        // From a keyframe on: a byte stream that started elsewhere would not decode cleanly.
        let resumed = try RecordOracle.probe(scratch.path("second.h264"))
        #expect((resumed.video?.frames ?? 0) >= 30, "the new server got \(resumed.video?.frames ?? 0) frames")
        let messages = try RecordOracle.decodingMessages(scratch.path("second.h264"))
        #expect(messages.isEmpty, "\(messages)")
    }

    @Test func refusedConnectionExits69WithoutThePassword() throws {
        let port = try FreePort.tcp()
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "rtsp://door:\(Self.password)@127.0.0.1:\(port)/live",
        ])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("rtsp://door:***@127.0.0.1:\(port)/live"), "\(result.stderr)")
        #expect(result.stderr.contains("connection refused"), "\(result.stderr)")
        #expect(!result.stderr.contains(Self.password))
    }

    /// A server that takes the connection and never answers the ANNOUNCE: FFmpeg's RTSP reports
    /// the interrupted read as invalid data, but the cause is the time it did not answer in.
    @Test func aServerThatNeverAnswersTimesOut() throws {
        let scratch = try RecordScratch()
        let port = try FreePort.tcp()
        let silent = try ChildProcess.recording(
            [
                "-c",
                "import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(4); "
                    + "c = s.accept(); time.sleep(60)",
                "\(port)",
            ], program: "/usr/bin/python3", in: scratch, name: "silent")
        defer {
            silent.signal(SIGKILL)
            silent.wait()
        }
        try RTSPServer.waitUntilListening(port: port, server: silent)
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "--connect-timeout", "2", "rtsp://127.0.0.1:\(port)/live",
        ])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("no answer within 2 s"), "\(result.stderr)")
    }

    @Test func anotherMuxerForRTSPExits64() throws {
        let result = try BuiltBinary.run([
            "record", "--video", "test", "--duration", "1", "--format", "mpegts", "rtsp://127.0.0.1:8554/live",
        ])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("RTSP is written by FFmpeg's rtsp muxer"), "\(result.stderr)")
    }

    /// The second server, made on the recording's thread and stopped by the test's.
    final class ServerSlot: @unchecked Sendable {
        var server: ChildProcess?
    }
}
