#!/usr/bin/env python3
"""Jobs 5 and 6: real V4L2 drivers in the QEMU guest, recorded by capture and by ffmpeg.

The host side (`run_on_host`) boots the guest through Tests/VM/run-in-guest with this script as
the command; the guest side (`--guest`) records with both tools, alternating, and writes what it
saw to camera.json in the shared folder.

Job 5: vivid's webcam at 640x480, 25 fps for 10 s, raw to .nut and H.264 (veryfast) to .mkv.
Job 6: a USB-webcam-like MJPEG camera: v4l2loopback fed by ffmpeg with a 640x360 MJPEG clip at
the producer's full 30 fps (copied, so the feeding costs next to nothing), decoded and encoded to
H.264 (ultrafast) .mkv for 10 s.

For each recording: frames in the file against the frames expected (what the camera sent in the
10 s); frames the tool reported dropped (capture's summary; ffmpeg's drop_frames); frames missing
from the file as gaps in its timestamps; user+sys CPU; peak RSS and RSS over time. The guest is
emulated (TCG, one vCPU): x264 runs there at about half real time, so the H.264 rows show how each
tool falls behind, the raw rows the tool itself.
"""

import argparse
import json
import os
import subprocess
import sys
import time

# Nothing written next to the sources: no __pycache__ in the work tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402
import probe  # noqa: E402

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
SECONDS = 10


class CameraJob:
    """One camera job: the driver to load, the node, the mode both tools are asked for, the codecs
    recorded and the x264 preset; `clip` is an MJPEG clip a producer feeds into the node."""

    def __init__(self, key, title, module, device, size, rate, input_format, codecs, preset, clip=None):
        self.key = key
        self.title = title
        self.module = module
        self.device = device
        self.size = size
        self.rate = rate
        self.input_format = input_format
        self.codecs = codecs
        self.preset = preset
        self.clip = clip

    @property
    def expected(self):
        return self.rate * SECONDS


JOBS = {
    # Both tools get the webcam's common packed 4:2:2 format, so both files hold the same pictures
    # (left alone, each tool would pick a format of its own).
    "5": CameraJob("5", "vivid", "vivid n_devs=1 node_types=0x1 vid_cap_nr=10", "/dev/video10", "640x480", 25,
                   "yuyv422", ("raw", "h264"), "veryfast"),
    "6": CameraJob("6", "MJPEG camera (v4l2loopback)", "v4l2loopback devices=1 video_nr=30 exclusive_caps=1",
                   "/dev/video30", "640x360", 30, "mjpeg", ("h264",), "ultrafast", clip="clip.mkv"),
}


def commands(capture, job, codec, seconds):
    """The two commands for one codec ("raw" or "h264"), recording `seconds` seconds."""
    ext = "nut" if codec == "raw" else "mkv"
    ours = [capture, "record", "--video", job.device, "--video-size", job.size, "--framerate", str(job.rate),
            "--input-format", job.input_format, "--codec", codec, "--duration", str(seconds), "--force", "--json"]
    if codec == "h264":
        ours += ["--preset", job.preset]
    ours.append("capture-%s.%s" % (codec, ext))
    theirs = FFMPEG + ["-f", "v4l2", "-video_size", job.size, "-framerate", str(job.rate),
                       "-input_format", job.input_format, "-i", job.device,
                       "-t", str(seconds), "-progress", "pipe:1", "-nostats"]
    if codec == "raw":
        theirs += ["-c:v", "rawvideo"]
    else:
        # The same encoder settings as capture's: the preset, crf 23, a keyframe every 2 s.
        theirs += ["-c:v", "libx264", "-preset", job.preset, "-crf", "23", "-g", str(2 * job.rate),
                   "-pix_fmt", "yuv420p"]
    theirs.append("ffmpeg-%s.%s" % (codec, ext))
    return {"capture": (ours, ours[-1]), "ffmpeg": (theirs, theirs[-1])}


def reported_drops(tool, run):
    """Frames the tool itself said it dropped, or None when it said nothing."""
    if tool == "capture":
        try:
            summary = json.loads(run.stdout)
        except ValueError:
            return None
        d = summary.get("video", {}).get("frames_dropped", {})
        return sum(d.get(k, 0) for k in ("late", "corrupt", "gaps"))
    drops = [line.split("=", 1)[1] for line in run.stdout.splitlines() if line.startswith("drop_frames=")]
    return int(drops[-1]) if drops else None


def rss_growth(timeline, seconds):
    """KiB by which RSS grew from the middle third of the recording to the last third (peak
    against peak): near zero when memory is bounded, steady growth when frames pile up."""
    if not timeline:
        return None
    end = timeline[-1][0]
    start = max(0.0, end - seconds)
    third = (end - start) / 3
    middle = [rss for t, rss in timeline if start + third <= t < start + 2 * third]
    last = [rss for t, rss in timeline if t >= start + 2 * third]
    if not middle or not last:
        return None
    return max(last) - max(middle)


def record_once(job, tool, argv, output, folder):
    run = measure.run(argv, cwd=folder, timeline=True, interval=0.25, timeout=SECONDS * 12)
    entry = run.to_json()
    # A crash report runs to pages: keep its head (what happened) and tail (the last words).
    text = run.stderr.strip()
    entry["stderr"] = text if len(text) <= 1000 else text[:500] + "\n...\n" + text[-500:]
    path = os.path.join(folder, output)
    if run.status == 0 and os.path.exists(path):
        streams = probe.streams(path)
        video = next((s for s in streams if s["type"] == "video"), None)
        times = probe.video_times(path)
        entry.update(
            file=probe.describe(streams),
            frames=video["frames"] if video else 0,
            missing_in_gaps=probe.missing_in_gaps(times, 1 / job.rate),
            span_s=round(times[-1] - times[0], 3) if len(times) > 1 else 0,
        )
        if tool == "capture":
            entry["summary"] = json.loads(run.stdout)
    entry["reported_dropped"] = reported_drops(tool, run)
    entry["rss_growth_kib"] = rss_growth(run.rss_timeline, SECONDS)
    entry["rss_timeline"] = run.rss_timeline
    return entry


def start_producer(job, folder):
    """Feeds the job's clip into its node at the clip's own rate, over and over; returns the
    process once the node offers MJPEG for capture."""
    producer = subprocess.Popen(FFMPEG + ["-re", "-stream_loop", "-1", "-i", os.path.join(folder, job.clip),
                                          "-c:v", "copy", "-f", "v4l2", job.device],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(150):
        formats = subprocess.run(["v4l2-ctl", "-d", job.device, "--list-formats"], capture_output=True, text=True)
        if "'MJPG'" in formats.stdout:
            return producer
        time.sleep(0.2)
    producer.kill()
    raise SystemExit("guest: %s never offered MJPEG for capture" % job.device)


def guest_main(capture, job, rounds, folder):
    """Runs in the guest: a short warm-up per tool, then `rounds` rounds of each codec."""
    results = {"job": job.key, "title": job.title, "device": job.device, "module": job.module, "size": job.size,
               "rate": job.rate, "input_format": job.input_format, "seconds": SECONDS, "expected": job.expected,
               "rounds": [], "warmup": {}}
    producer = start_producer(job, folder) if job.clip else None
    try:
        # The first start of a large program in the guest takes seconds: keep it out of the rounds.
        for tool, (argv, output) in commands(capture, job, job.codecs[0], 2).items():
            results["warmup"][tool] = measure.run(argv, cwd=folder, timeout=120).to_json()
        for index in range(rounds):
            this = {}
            for codec in job.codecs:
                for tool, (argv, output) in commands(capture, job, codec, SECONDS).items():
                    print("guest: job %s round %d/%d %s %s" % (job.key, index + 1, rounds, codec, tool),
                          file=sys.stderr, flush=True)
                    this["%s/%s" % (codec, tool)] = record_once(job, tool, argv, output, folder)
            results["rounds"].append(this)
            with open(os.path.join(folder, "camera.json"), "w") as f:
                json.dump(results, f, indent=1)
    finally:
        if producer:
            producer.terminate()
            producer.wait()
    return 0


def run_on_host(capture, job, rounds, folder, repo):
    """Boots the guest and runs the guest side there; returns its results, or an "error" entry."""
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    if job.clip:
        # Encoded here, where it is quick, so the guest's one CPU only copies it into the node.
        measure.checked(FFMPEG + ["-f", "lavfi", "-i", "testsrc2=size=%s:rate=%d" % (job.size, job.rate),
                                  "-t", "10", "-c:v", "mjpeg", "-q:v", "5", os.path.join(folder, job.clip)])
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    # Boot, the slow first starts, then per round about 10 s for each recording and 20-25 s for
    # ffmpeg's H.264, which falls behind and records past the wall-clock 10 s.
    timeout = 120 + rounds * 75 * len(job.codecs)
    argv = [os.path.join(repo, "Tests", "VM", "run-in-guest"), "--module", job.module, "--share", folder,
            "--timeout", str(timeout), "--", python, os.path.abspath(__file__), "--guest", "--job", job.key,
            "--capture", capture, "--rounds", str(rounds), "--folder", folder]
    done = subprocess.run(argv, capture_output=True, text=True)
    path = os.path.join(folder, "camera.json")
    if done.returncode != 0 or not os.path.exists(path):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-5:]
        return {"error": "the guest run failed (exit %d): %s" % (done.returncode, " | ".join(tail))}
    with open(path) as f:
        results = json.load(f)
    for name in os.listdir(folder):
        if name != "camera.json":
            os.unlink(os.path.join(folder, name))
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guest", action="store_true", help="run the recordings (inside the guest)")
    parser.add_argument("--job", choices=sorted(JOBS), default="5")
    parser.add_argument("--capture", required=True, help="the capture binary")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--folder", required=True, help="a folder shared with the host")
    options = parser.parse_args()
    if not options.guest:
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        print(json.dumps(run_on_host(options.capture, JOBS[options.job], options.rounds, options.folder, repo),
                         indent=1))
        sys.exit(0)
    sys.exit(guest_main(options.capture, JOBS[options.job], options.rounds, options.folder))
