#!/usr/bin/env python3
"""Job 5: a real V4L2 driver (vivid) in the QEMU guest, recorded by capture and by ffmpeg.

The host side (`run_on_host`) boots the guest through Tests/VM/run-in-guest with this script as
the command; the guest side (`--guest`) records vivid's webcam at 640x480, 25 fps for 10 s, raw to
.nut and H.264 to .mkv, with capture (through FFmpeg's v4l2 input, its default for this camera, and
through its own V4L2 reader) and with ffmpeg, in turn, and writes what it saw to camera.json in the
shared folder.

For each recording: frames in the file against the 250 expected; frames the tool reported dropped
(capture's summary; ffmpeg's drop_frames); frames missing from the file as gaps in its timestamps;
user+sys CPU; peak RSS and RSS over time. The guest is emulated (TCG, one vCPU): x264 runs there at
about half real time, so the H.264 rows show how each tool falls behind, the raw rows the tool itself.
"""

import json
import os
import sys

# Nothing written next to the sources: no __pycache__ in the work tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
import measure  # noqa: E402
import probe  # noqa: E402

DEVICE = "/dev/video10"
MODULE = "vivid n_devs=1 node_types=0x1 vid_cap_nr=10"
SIZE = "640x480"
# Both tools get the webcam's common packed 4:2:2 format, so both files hold the same pictures
# (left alone, each tool would pick a format of its own).
INPUT_FORMAT = "yuyv422"
RATE = 25
SECONDS = 10
EXPECTED = RATE * SECONDS
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]


def commands(capture, codec, seconds):
    """The two commands for one codec ("raw" or "h264"), recording `seconds` seconds."""
    ext = "nut" if codec == "raw" else "mkv"
    ours = [capture, "record", "--video", DEVICE, "--video-size", SIZE, "--framerate", str(RATE),
            "--input-format", INPUT_FORMAT, "--codec", codec, "--duration", str(seconds), "--force", "--json", "capture-%s.%s" % (codec, ext)]
    theirs = FFMPEG + ["-f", "v4l2", "-video_size", SIZE, "-framerate", str(RATE),
                       "-input_format", INPUT_FORMAT, "-i", DEVICE,
                       "-t", str(seconds), "-progress", "pipe:1", "-nostats"]
    if codec == "raw":
        theirs += ["-c:v", "rawvideo"]
    else:
        # The same encoder settings as capture's defaults: veryfast, crf 23, a keyframe every 2 s.
        theirs += ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", str(2 * RATE), "-pix_fmt", "yuv420p"]
    theirs.append("ffmpeg-%s.%s" % (codec, ext))
    # The same camera read by FFmpeg's v4l2 input instead of capture's own V4L2 reader, the default
    # (issue 27: the default was chosen from these rows).
    other = ours[:-1] + ["--v4l2-reader", "ffmpeg", "capture-ffmpeg-reader-%s.%s" % (codec, ext)]
    return {"capture": (ours, ours[-1]), "capture ffmpeg-reader": (other, other[-1]), "ffmpeg": (theirs, theirs[-1])}


def reported_drops(tool, run):
    """Frames the tool itself said it dropped, or None when it said nothing."""
    if tool.startswith("capture"):
        try:
            summary = json.loads(run.stdout)
        except ValueError:
            return None
        d = summary.get("video", {}).get("frames_dropped", {})
        return sum(d.get(k, 0) for k in ("late", "corrupt", "gaps", "device"))
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


def record_once(tool, argv, output, folder, rate=RATE, seconds=SECONDS):
    run = measure.run(argv, cwd=folder, timeline=True, interval=0.25, timeout=seconds * 12)
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
            missing_in_gaps=probe.missing_in_gaps(times, 1 / rate),
            span_s=round(times[-1] - times[0], 3) if len(times) > 1 else 0,
        )
        if tool.startswith("capture"):
            entry["summary"] = json.loads(run.stdout)
    entry["reported_dropped"] = reported_drops(tool, run)
    entry["rss_growth_kib"] = rss_growth(run.rss_timeline, seconds)
    entry["rss_timeline"] = run.rss_timeline
    return entry


def guest_main(capture, rounds, folder):
    """Runs in the guest: a short warm-up per tool, then `rounds` rounds of raw and H.264."""
    results = {"device": DEVICE, "module": MODULE, "size": SIZE, "rate": RATE, "input_format": INPUT_FORMAT,
               "seconds": SECONDS,
               "expected": EXPECTED, "rounds": [], "warmup": {}}
    # The first start of a large program in the guest takes seconds: keep it out of the rounds.
    for codec in ("raw",):
        for tool, (argv, output) in commands(capture, codec, 2).items():
            results["warmup"][tool] = measure.run(argv, cwd=folder, timeout=120).to_json()
    for index in range(rounds):
        this = {}
        for codec in ("raw", "h264"):
            for tool, (argv, output) in commands(capture, codec, SECONDS).items():
                print("guest: round %d/%d %s %s" % (index + 1, rounds, codec, tool), file=sys.stderr, flush=True)
                this["%s/%s" % (codec, tool)] = record_once(tool, argv, output, folder)
        results["rounds"].append(this)
        with open(os.path.join(folder, "camera.json"), "w") as f:
            json.dump(results, f, indent=1)
    return 0


def run_on_host(capture, rounds, folder, repo):
    """Boots the guest and runs the guest side there; returns its results, or an "error" entry."""
    guest.fresh(folder)
    # Boot, the slow first starts, then per round about 10 s for each of five recordings and
    # 20-25 s for ffmpeg's H.264, which falls behind and records past the wall-clock 10 s.
    timeout = 120 + rounds * 200
    return guest.run(__file__, MODULE, capture, rounds, folder, repo, timeout, "camera.json")


if __name__ == "__main__":
    guest.main(__doc__, run_on_host, guest_main, 5)
