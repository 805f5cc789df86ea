#!/usr/bin/env python3
"""Job 6: an MJPEG camera in the QEMU guest (v4l2loopback fed by ffmpeg at its full rate),
decoded and recorded to H.264 by capture and by ffmpeg.

The host side (`run_on_host`) encodes a 640x360 30 fps MJPEG clip and boots the guest through
Tests/VM/run-in-guest with this script as the command; the guest side (`--guest`) starts the
producer, ffmpeg copying the clip into /dev/video30 in real time, then records 10 s to H.264
ultrafast with both tools, alternating, and writes what it saw to loopback.json in the shared
folder. The producer runs through all rounds, so the camera never stops between them.

For each recording, as in job 5 (camera.py): frames in the file, frames the tool reported dropped,
frames missing as gaps in the file's timestamps, CPU, peak RSS and RSS over time; and the frames
the producer sent while the tool ran, which says whether the producer itself kept its full rate on
the one emulated CPU it shares with the tool.
"""

import json
import os
import subprocess
import sys
import time

# Nothing written next to the sources: no __pycache__ in the work tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import camera  # noqa: E402
import guest  # noqa: E402
import measure  # noqa: E402

DEVICE = "/dev/video30"
MODULE = "v4l2loopback devices=1 video_nr=30 exclusive_caps=1 card_label=mjpeg-camera"
SIZE = "640x360"
INPUT_FORMAT = "mjpeg"
RATE = 30
SECONDS = 10
EXPECTED = RATE * SECONDS
FFMPEG = camera.FFMPEG


CLIP = "clip.mkv"


def producer_argv(clip, progress):
    """ffmpeg as the camera: the MJPEG clip copied into the node at its own rate, over and over
    (copying costs next to nothing, so the tools get the guest's CPU); its frame count in
    `progress`."""
    return ["ffmpeg", "-nostdin", "-v", "error", "-re", "-stream_loop", "-1", "-i", clip, "-c:v", "copy",
            "-progress", progress, "-stats_period", "0.2", "-f", "v4l2", DEVICE]


def commands(capture, seconds):
    """capture and ffmpeg decoding the camera's MJPEG and encoding H.264 ultrafast for `seconds`."""
    ours = [capture, "record", "--video", DEVICE, "--input-format", INPUT_FORMAT, "--codec", "h264",
            "--preset", "ultrafast", "--duration", str(seconds), "--force", "--json", "capture-h264.mkv"]
    # The same encoder settings as capture's: ultrafast, crf 23, a keyframe every 2 s.
    theirs = FFMPEG + ["-f", "v4l2", "-input_format", INPUT_FORMAT, "-i", DEVICE, "-t", str(seconds),
                       "-progress", "pipe:1", "-nostats", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23",
                       "-g", str(2 * RATE), "-pix_fmt", "yuv420p", "ffmpeg-h264.mkv"]
    return {"capture": (ours, ours[-1]), "ffmpeg": (theirs, theirs[-1])}


def frames_sent(progress):
    """The producer's frame count from the last block of its -progress file (0 before the first)."""
    try:
        with open(progress) as f:
            counts = [line.split("=", 1)[1] for line in f if line.startswith("frame=")]
    except OSError:
        return 0
    return int(counts[-1]) if counts else 0


def wait_for_camera(seconds=30):
    """Until the node offers MJPEG for capture (the producer has written its first frame)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done = subprocess.run(["v4l2-ctl", "-d", DEVICE, "--list-formats"], capture_output=True, text=True)
        if "'MJPG'" in done.stdout:
            return True
        time.sleep(0.2)
    return False


def guest_main(capture, rounds, folder):
    results = {"device": DEVICE, "module": MODULE, "size": SIZE, "rate": RATE, "input_format": INPUT_FORMAT,
               "seconds": SECONDS, "expected": EXPECTED, "rounds": [], "warmup": {}}
    progress = os.path.join(folder, "producer.progress")
    with open(os.path.join(folder, "producer.log"), "w") as log:
        producer = subprocess.Popen(producer_argv(os.path.join(folder, CLIP), progress), stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log)
    try:
        if not wait_for_camera():
            results["error"] = "the producer never made %s a camera" % DEVICE
            return write(results, folder, 1)
        for tool, (argv, output) in commands(capture, 2).items():
            results["warmup"][tool] = measure.run(argv, cwd=folder, timeout=120).to_json()
        for index in range(rounds):
            this = {}
            for tool, (argv, output) in commands(capture, SECONDS).items():
                print("guest: round %d/%d h264 %s" % (index + 1, rounds, tool), file=sys.stderr, flush=True)
                before = frames_sent(progress)
                entry = camera.record_once(tool, argv, output, folder, rate=RATE, seconds=SECONDS)
                entry["sent_while_running"] = frames_sent(progress) - before
                entry["producer_fps"] = round(entry["sent_while_running"] / entry["wall_s"], 2) if entry["wall_s"] else None
                this["h264/%s" % tool] = entry
            results["rounds"].append(this)
            write(results, folder, 0)
    finally:
        producer.terminate()
        producer.wait()
    return write(results, folder, 0)


def write(results, folder, status):
    with open(os.path.join(folder, "loopback.json"), "w") as f:
        json.dump(results, f, indent=1)
    return status


def run_on_host(capture, rounds, folder, repo):
    """Boots the guest and runs the guest side there; returns its results, or an "error" entry."""
    guest.fresh(folder)
    # Encoded here, where it is quick: testsrc2 at the camera's size and full rate.
    measure.checked(FFMPEG + ["-f", "lavfi", "-i", "testsrc2=size=%s:rate=%d" % (SIZE, RATE), "-t", "10",
                              "-c:v", "mjpeg", "-q:v", "5", os.path.join(folder, CLIP)])
    # Boot, the slow first starts, then per round two recordings of 10 s plus the tools' start-up
    # and ffmpeg's lag when it falls behind.
    timeout = 120 + rounds * 90
    return guest.run(__file__, MODULE, capture, rounds, folder, repo, timeout, "loopback.json")


if __name__ == "__main__":
    guest.main(__doc__, run_on_host, guest_main, 3)
