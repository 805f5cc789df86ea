#!/usr/bin/env python3
"""Job 12: start-up in the QEMU guest, a stand-in for a slow board, beside the tools it replaces.

On the host every one of these starts in about a tenth of a second, which hides what a small
machine pays. In the guest (TCG, one vCPU) with vivid and snd-aloop loaded, each command runs once
to warm the page cache, then `rounds` times in turn; each run's wall time is measured:
`capture --version` against `ffmpeg -version` (the same FFmpeg libraries to load), `capture list`
against `v4l2-ctl --list-devices` and `arecord -l` (what it answers together), and `capture probe`
of the camera against `v4l2-ctl --list-formats-ext`. Target (issue 28): `capture list` within
1.5x `ffmpeg -version`, medians.
"""

import json
import os
import statistics
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
import measure  # noqa: E402

DEVICE = "/dev/video10"
MODULES = ["vivid n_devs=1 node_types=0x1 vid_cap_nr=10", "snd-aloop index=0 id=Loopback pcm_substreams=2"]
TARGET_RATIO = 1.5


def commands(capture):
    return {
        "capture --version": [capture, "--version"],
        "ffmpeg -version": ["ffmpeg", "-hide_banner", "-version"],
        "capture list": [capture, "list"],
        "v4l2-ctl --list-devices": ["v4l2-ctl", "-d", DEVICE, "--list-devices"],
        "arecord -l": ["arecord", "-l"],
        "capture probe": [capture, "probe", DEVICE],
        "v4l2-ctl --list-formats-ext": ["v4l2-ctl", "-d", DEVICE, "--list-formats-ext"],
    }


def guest_main(capture, rounds, folder):
    """Runs in the guest: one warm-up of each command, then `rounds` rounds of all of them."""
    runs = {name: [] for name in commands(capture)}
    failures = {}
    for name, argv in commands(capture).items():
        measure.run(argv, cwd=folder, timeout=120)
    for index in range(rounds):
        print("guest: start-up round %d/%d" % (index + 1, rounds), file=sys.stderr, flush=True)
        for name, argv in commands(capture).items():
            run = measure.run(argv, cwd=folder, timeout=120)
            if run.status != 0:
                failures[name] = "exit %d: %s" % (run.status, run.stderr.strip()[-300:])
            runs[name].append(round(run.wall, 3))
    with open(os.path.join(folder, "startup.json"), "w") as f:
        json.dump({"rounds": rounds, "wall_s": runs, "failures": failures}, f, indent=1)
    return 0


def run_on_host(capture, rounds, folder, repo):
    """Boots the guest and runs the guest side there; returns its results, or an "error" entry."""
    guest.fresh(folder)
    return guest.run(__file__, MODULES, capture, rounds, folder, repo, 120 + rounds * 90, "startup.json")


def summary(result):
    """Lines for the report: each command's median and range, and the target."""
    if result.get("error"):
        return ["", "Job 12: start-up in the QEMU guest: %s" % result["error"]]
    walls = result["wall_s"]
    med = {name: statistics.median(values) for name, values in walls.items() if values}
    lines = ["", "Job 12: start-up in the QEMU guest (one emulated CPU), wall seconds over %d rounds after a warm-up"
             % result["rounds"], "  %-28s %8s  %s" % ("Command", "Median", "Range")]
    for name, values in walls.items():
        lines.append("  %-28s %8.2f  %.2f-%.2f" % (name, med[name], min(values), max(values)))
    for name, failure in result.get("failures", {}).items():
        lines.append("  %s failed: %s" % (name, failure))
    ratio = med["capture list"] / med["ffmpeg -version"]
    lines.append("Target (issue 28):")
    lines.append("  job 12  capture list <= %.1fx ffmpeg -version (median)%20s %5.2f  %s"
                 % (TARGET_RATIO, "", ratio, "met" if ratio <= TARGET_RATIO else "NOT MET"))
    return lines


if __name__ == "__main__":
    guest.main(__doc__, run_on_host, guest_main, 3)
