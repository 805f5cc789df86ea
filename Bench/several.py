#!/usr/bin/env python3
"""Job 9: two cameras and a microphone in one recording, in the QEMU guest: capture against the
ffmpeg CLI with three -i inputs on the same devices.

The guest side (`--guest`) records two vivid webcams (640x480, 25 fps, YUYV) and snd-dummy's
microphone for 10 s to H.264 ultrafast and PCM in .mkv with both tools, alternating, and writes
what it saw to several.json in the shared folder. Per camera: frames in the file, frames the tool
said it dropped (capture per camera; ffmpeg counts for all its inputs together), against the 250
the camera sent at its nominal rate; user+sys CPU and peak RSS; and the start skew the file
holds: how far apart its streams start (ffprobe's start_time), which for ffmpeg is each input's
own clock and for capture one clock.
"""

import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
import measure  # noqa: E402

CAMERAS = ["/dev/video10", "/dev/video11"]
MICROPHONE = "hw:CARD=Dummy,DEV=0"
MODULES = ["vivid n_devs=2 node_types=0x1,0x1 vid_cap_nr=10,11", "snd-dummy index=0 id=Dummy"]
SIZE = "640x480"
RATE = 25
SECONDS = 10
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]


def commands(capture, seconds):
    """The two commands, recording `seconds` seconds."""
    ours = [capture, "record", "--video-size", SIZE, "--framerate", str(RATE), "--input-format", "yuyv422"]
    for camera in CAMERAS:
        ours += ["--video", camera]
    ours += ["--audio", MICROPHONE, "--audio-codec", "pcm", "--preset", "ultrafast", "--duration", str(seconds),
             "--force", "--json", "capture.mkv"]
    theirs = list(FFMPEG)
    for camera in CAMERAS:
        theirs += ["-f", "v4l2", "-video_size", SIZE, "-framerate", str(RATE), "-input_format", "yuyv422", "-i", camera]
    theirs += ["-f", "alsa", "-i", MICROPHONE, "-map", "0:v", "-map", "1:v", "-map", "2:a",
               # capture's settings: ultrafast, crf 23, a keyframe every 2 s.
               "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-g", str(2 * RATE), "-pix_fmt", "yuv420p",
               "-c:a", "pcm_s16le", "-t", str(seconds), "-progress", "pipe:1", "-nostats", "ffmpeg.mkv"]
    return {"capture": (ours, "capture.mkv"), "ffmpeg": (theirs, "ffmpeg.mkv")}


def file_streams(path):
    """Each stream's kind, packet count and start time (seconds)."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-count_packets", "-show_entries", "stream=codec_type,nb_read_packets,start_time",
         "-of", "json", path], check=True, capture_output=True, text=True).stdout
    return [{"type": s.get("codec_type"), "packets": int(s.get("nb_read_packets", 0)),
             "start": float(s.get("start_time", "nan"))} for s in json.loads(out).get("streams", [])]


def dropped(tool, run):
    """Frames each camera dropped as the tool said, or for ffmpeg the one count it gives."""
    if tool == "capture":
        try:
            summary = json.loads(run.stdout)
        except ValueError:
            return None
        return [sum(c.get("frames_dropped", {}).get(k, 0) for k in ("late", "corrupt", "gaps"))
                for c in summary.get("cameras", [])]
    drops = [line.split("=", 1)[1] for line in run.stdout.splitlines() if line.startswith("drop_frames=")]
    return [int(drops[-1])] if drops else None


def record_once(tool, argv, output, folder):
    run = measure.run(argv, cwd=folder, timeline=False, timeout=SECONDS * 12)
    entry = run.to_json()
    entry["stderr"] = run.stderr.strip()[-1000:]
    path = os.path.join(folder, output)
    if run.status == 0 and os.path.exists(path):
        streams = file_streams(path)
        starts = [s["start"] for s in streams]
        entry.update(frames=[s["packets"] for s in streams if s["type"] == "video"],
                     start_skew_s=round(max(starts) - min(starts), 4) if starts else None)
    entry["reported_dropped"] = dropped(tool, run)
    return entry


def guest_main(capture, rounds, folder):
    """Runs in the guest: a short warm-up per tool, then `rounds` rounds."""
    results = {"cameras": CAMERAS, "microphone": MICROPHONE, "size": SIZE, "rate": RATE, "seconds": SECONDS,
               "expected_per_camera": RATE * SECONDS, "rounds": [], "warmup": {}}
    for tool, (argv, _) in commands(capture, 2).items():
        results["warmup"][tool] = measure.run(argv, cwd=folder, timeout=120).to_json()
    for index in range(rounds):
        this = {}
        for tool, (argv, output) in commands(capture, SECONDS).items():
            print("guest: round %d/%d %s" % (index + 1, rounds, tool), file=sys.stderr, flush=True)
            this[tool] = record_once(tool, argv, output, folder)
        results["rounds"].append(this)
        with open(os.path.join(folder, "several.json"), "w") as f:
            json.dump(results, f, indent=1)
    return 0


def run_on_host(capture, rounds, folder, repo):
    """Boots the guest and runs the guest side there; returns its results, or an "error" entry."""
    guest.fresh(folder)
    timeout = 120 + rounds * 120
    return guest.run(__file__, MODULES, capture, rounds, folder, repo, timeout, "several.json")


def summary(data):
    """One line per tool: medians over the rounds."""
    if data.get("error"):
        return ["job 9: " + data["error"]]
    lines = []
    for tool in ("capture", "ffmpeg"):
        runs = [r[tool] for r in data.get("rounds", []) if tool in r]
        if not runs:
            continue
        def median(values):
            values = sorted(v for v in values if v is not None)
            return values[len(values) // 2] if values else None
        cpu = median([r.get("cpu_s") for r in runs])
        rss = median([r.get("peak_rss_kib") for r in runs])
        lines.append("job 9 %-7s CPU %s s, peak RSS %s MiB, frames per camera %s of %d, dropped as reported %s, "
                     "start skew in the file %s s" % (
                         tool, cpu, None if rss is None else round(rss / 1024, 1),
                         [r.get("frames") for r in runs], data["expected_per_camera"],
                         [r.get("reported_dropped") for r in runs], [r.get("start_skew_s") for r in runs]))
    return lines


if __name__ == "__main__":
    guest.main(__doc__, run_on_host, guest_main, 3)
