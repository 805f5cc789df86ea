import Foundation

/// RTSP servers that take a publisher (ANNOUNCE, then RECORD with RTP over the RTSP connection),
/// started by a test on 127.0.0.1 and writing what they receive to files, the oracle of what
/// was published. Two implementations, so the muxer's dialect is checked against both:
/// FFmpeg's own (`ffmpeg -rtsp_flags listen`: one publisher, then it exits) and GStreamer's
/// gst-rtsp-server through Python GI (Debian's `gir1.2-gst-rtsp-server-1.0` and `python3-gst-1.0`).
///
/// Each writes the video as the H.264 byte stream it received, `STEM.h264`: RTP carries no decode
/// times, which a container would need for H.264 with B-frames (ffmpeg's copy into Matroska
/// fails on them), and frames are what is counted. The parameter sets the SDP carried go before
/// each keyframe, as in the stream itself.
enum RTSPServer {
    /// `ffmpeg -rtsp_flags listen` on `port`, path `/live`: the video into `STEM.h264`, the
    /// audio, as it came, into `STEM.mkv`.
    static func ffmpeg(port: Int, writing stem: String, in scratch: RecordScratch, name: String = "rtsp-ffmpeg")
        throws -> ChildProcess
    {
        let server = try ChildProcess.recording(
            [
                "ffmpeg", "-nostdin", "-v", "error", "-rtsp_flags", "listen", "-i", "rtsp://127.0.0.1:\(port)/live",
                "-map", "0:v", "-c", "copy", "-bsf:v", "dump_extra=freq=keyframe", "-f", "h264", "-y", stem + ".h264",
                "-map", "0:a?", "-c", "copy", "-y",
                stem + ".mkv",
            ], program: "/usr/bin/env", in: scratch, name: name)
        try waitUntilListening(port: port, server: server)
        return server
    }

    /// gst-rtsp-server on `port`, path `/live`, taking H.264 and AAC: the video into `STEM.h264`,
    /// the audio as ADTS into `STEM.aac`, as the depayloaders give them, with no jitter buffer
    /// latency (the server stops its pipeline on TEARDOWN without draining it).
    static func gstreamer(port: Int, writing stem: String, in scratch: RecordScratch) throws -> ChildProcess {
        let script = """
            import sys, gi
            gi.require_version("Gst", "1.0")
            gi.require_version("GstRtsp", "1.0")
            gi.require_version("GstRtspServer", "1.0")
            from gi.repository import GLib, Gst, GstRtsp, GstRtspServer
            Gst.init(None)
            server = GstRtspServer.RTSPServer()
            server.set_address("127.0.0.1")
            server.set_service(sys.argv[1])
            factory = GstRtspServer.RTSPMediaFactory()
            factory.set_transport_mode(GstRtspServer.RTSPTransportMode.RECORD)
            factory.set_protocols(GstRtsp.RTSPLowerTrans.TCP)
            factory.set_latency(0)
            factory.set_launch(
                "( rtph264depay name=depay0 ! h264parse ! video/x-h264,stream-format=byte-stream ! filesink location="
                + sys.argv[2] + ".h264 rtpmp4gdepay name=depay1 ! aacparse ! audio/mpeg,stream-format=adts ! filesink location="
                + sys.argv[2] + ".aac )")
            server.get_mount_points().add_factory("/live", factory)
            server.attach(None)
            GLib.MainLoop().run()
            """
        // Debian's Python: the GI bindings are its packages, not a virtual environment's.
        let server = try ChildProcess.recording(
            ["-c", script, "\(port)", stem], program: "/usr/bin/python3", in: scratch, name: "rtsp-gstreamer")
        try waitUntilListening(port: port, server: server)
        return server
    }

    /// Waits until `port` of 127.0.0.1 is in the LISTEN state, as /proc/net/tcp shows it, or with
    /// `udp` bound, as /proc/net/udp shows it (an SRT listener). A test connection would not do:
    /// ffmpeg's listener takes the first one for its publisher.
    ///
    /// The server either listens or ends; the limit only catches one that hangs. It is generous:
    /// GStreamer's first start on a fresh machine builds its plugin registry, which took over 20 s
    /// on two busy cores.
    static func waitUntilListening(port: Int, server: ChildProcess, udp: Bool = false) throws {
        let local = String(format: "0100007F:%04X", port)
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let table = (try? String(contentsOfFile: udp ? "/proc/net/udp" : "/proc/net/tcp", encoding: .utf8)) ?? ""
            let listening = table.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[1] == local && (udp || fields[3] == "0A")
            }
            if listening { return }
            if let exit = server.wait(timeout: 0) {
                throw MediaServer.ServerFailed(what: "the server on port \(port) ended (\(exit)): \(server.stderr)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw MediaServer.ServerFailed(what: "the server did not listen on port \(port) within 120 s")
    }

    /// Stops a server that is still running (SIGINT: ffmpeg finishes its file) and waits for it.
    static func stop(_ server: ChildProcess) {
        if server.wait(timeout: 3) == nil {
            kill(server.pid, SIGINT)
            if server.wait(timeout: 10) == nil { kill(server.pid, SIGKILL) }
        }
    }
}
