"""Job 8: a 720p30 stream to an RTMP server and a file, from one capture and one encode, against
ffmpeg's tee muxer doing the same (issue 15).

Both tools read a paced source (capture's `test` devices at 1280x720; ffmpeg the same lavfi
graphs behind `realtime`/`arealtime`), encode H.264 (veryfast, crf 23, a keyframe every 2 s) and
AAC once, and write the packets twice: to rtmp://127.0.0.1:PORT/live/KEY as FLV and to a .mkv.
The server is nginx with its RTMP module, started by the benchmark from a configuration of its
own in the scratch folder (never the system's service), relaying without recording, so what is
measured is the tool's CPU and memory for one live job with two outputs.
"""

import os
import socket
import subprocess
import time

import jobs

SECONDS = "10"
VIDEO = "testsrc2=size=1280x720:rate=30"
# capture's `test` microphone: a 1 kHz tone at 48 kHz, mono; AAC at capture's default for mono.
AUDIO = "sine=frequency=1000:sample_rate=48000"
MODULE = "/usr/lib/nginx/modules/ngx_rtmp_module.so"


class Server:
    """nginx with the RTMP module on a free port of 127.0.0.1, in the foreground, until `stop`."""

    def __init__(self, folder):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        root = os.path.join(folder, "nginx")
        os.makedirs(root, exist_ok=True)
        with open(os.path.join(root, "nginx.conf"), "w") as f:
            f.write("load_module %s;\ndaemon off;\nmaster_process off;\nworker_processes 1;\n"
                    "pid %s/nginx.pid;\nerror_log %s/error.log warn;\nevents { worker_connections 64; }\n"
                    "rtmp { server { listen 127.0.0.1:%d; application live { live on; record off; } } }\n"
                    % (MODULE, root, root, self.port))
        self.process = subprocess.Popen(["nginx", "-c", os.path.join(root, "nginx.conf"), "-p", root,
                                         "-e", os.path.join(root, "error.log")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise OSError("nginx exited: %s" % self.process.stderr.read().decode(errors="replace").strip())
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise OSError("nginx did not listen on %d within 10 s" % self.port)

    def url(self, key):
        return "rtmp://127.0.0.1:%d/live/%s" % (self.port, key)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def job(capture, server):
    """Job 8 for the benchmark's host loop."""
    ours = [capture, "record", "--force", "--quiet", "--video", "test", "--video-size", "1280x720",
            "--framerate", "30", "--audio", "test", "--codec", "h264", "--preset", "veryfast", "--crf", "23",
            "--audio-codec", "aac", "--duration", SECONDS, server.url("capture"), "--also", "capture.mkv"]
    # The tee muxer does not pass the global-header flag on: FLV needs the codec headers up front.
    theirs = jobs.FFMPEG + ["-f", "lavfi", "-i", VIDEO + ",realtime", "-f", "lavfi", "-i", AUDIO + ",arealtime",
                            "-map", "0:v", "-map", "1:a", "-t", SECONDS] + jobs.X264 + [
        "-c:a", "aac", "-b:a", "96k", "-ac", "1", "-flags", "+global_header", "-f", "tee",
        "[f=flv]%s|[f=matroska]ffmpeg.mkv" % server.url("ffmpeg")]
    return jobs.Job(
        "8",
        "stream + file",
        "720p30 paced + 48 kHz tone -> H.264/AAC once, to RTMP (nginx) and .mkv, %s s; ffmpeg: tee" % SECONDS,
        [jobs.Side("capture", [ours], "capture.mkv"), jobs.Side("ffmpeg", [theirs], "ffmpeg.mkv")],
        # The same work as ffmpeg's tee: one encode, two muxers; the backlog adds little memory.
        [jobs.Target("cpu", 1.05, "CPU ratio <= 1.05"), jobs.Target("rss", 1.0, "peak RSS ratio <= 1.00")],
    )
