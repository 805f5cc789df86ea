"""Job 7: the live (paced) test source at 1280x720 and 1920x1080, 30 fps, and 1920x1080 at 60 fps,
for 20 s each, to H.264 in .mp4 with each tool's defaults.

A camera delivers frames at its own pace whether the recorder keeps up or not. capture's `test`
video is lavfi's testsrc2 behind the `realtime` filter, read by its own thread into a bounded
queue: when the encoder falls behind, the oldest frames are dropped and counted. ffmpeg reads the
same graph (`testsrc2=...,realtime`) in its one loop: it never drops, it falls behind the clock
instead and takes longer than 20 s, where a camera would have dropped what it could not take. So
each run reports the frames in the file, the frames the tool said it dropped, and how far past
20 s it ended (seconds behind; times the rate, the frames a camera would have lost); and RSS over
time, since memory is bounded when it does not grow from the middle third of the run to the last.
Neither tool is given an encoder option: capture's encoder budget chooses its x264 preset (which
each run reports), ffmpeg runs libx264 at its own defaults (medium, crf 23).
"""

import json
import os

import measure
import probe

SECONDS = 20
# (frame size, frames per second); the last is beyond what a 2-core machine encodes, where the
# budget must say so and be right.
MODES = (("1280x720", 30), ("1920x1080", 30), ("1920x1080", 60))
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
# Start-up and finishing (loading the libraries, the MP4 index) take a few tenths of a second, and
# capture's encoder budget times x264 before the source opens (about a second at 1080p60 here,
# where two presets are tried): a run ending within this much of the recording's length kept up.
# Falling behind shows in capture's drops (its queue is bounded) and in ffmpeg's lateness.
FINISH_ALLOWANCE_S = 2.0


def commands(capture, size, rate, seconds):
    """The two commands recording `seconds` of the paced source at `size` and `rate` fps."""
    ours = [capture, "record", "--video", "test", "--video-size", size, "--framerate", str(rate),
            "--duration", str(seconds), "--force", "--json", "--quiet", "capture.mp4"]
    graph = "testsrc2=size=%s:rate=%d,realtime" % (size, rate)
    theirs = FFMPEG + ["-f", "lavfi", "-i", graph, "-t", str(seconds), "ffmpeg.mp4"]
    return {"capture": (ours, "capture.mp4"), "ffmpeg": (theirs, "ffmpeg.mp4")}


def key(size, rate, tool):
    return "%s@%d/%s" % (size, rate, tool)


def rss_growth(timeline, seconds):
    """KiB by which RSS grew from the middle third of the run to the last third (peak against
    peak): near zero when memory is bounded, steady growth when frames pile up."""
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


def record_once(tool, argv, output, folder, rate, seconds):
    """One recording, measured; what the file holds read back by ffprobe."""
    path = os.path.join(folder, output)
    if os.path.exists(path):
        os.unlink(path)
    run = measure.run(argv, cwd=folder, timeline=True, interval=0.25, timeout=seconds * 12)
    entry = run.to_json()
    text = run.stderr.strip()
    entry["stderr"] = text if len(text) <= 1000 else text[:500] + "\n...\n" + text[-500:]
    entry["behind_s"] = round(max(0.0, run.wall - seconds), 3)
    entry["rss_growth_kib"] = rss_growth(run.rss_timeline, seconds)
    if run.status == 0 and os.path.exists(path):
        streams = probe.streams(path)
        video = next((s for s in streams if s["type"] == "video"), None)
        entry["frames"] = video["frames"] if video else 0
        entry["missing_in_gaps"] = probe.missing_in_gaps(probe.video_times(path), 1 / rate)
        entry["x264_threads"] = probe.thread_mode(probe.x264_options(path))
    if tool == "capture" and run.status == 0:
        try:
            video = json.loads(run.stdout).get("video", {})
            dropped = video.get("frames_dropped", {})
            entry["reported_dropped"] = sum(dropped.get(k, 0) for k in ("late", "corrupt", "gaps"))
            budget = video.get("encoder_budget") or {}
            entry["preset"] = budget.get("preset")
            entry["budget_keeps_up"] = budget.get("keeps_up")
            entry["budget_speed"] = next((m["speed"] for m in reversed(budget.get("measured", []))
                                          if m["preset"] == budget.get("preset")), None)
        except ValueError:
            entry["reported_dropped"] = None
    else:
        # ffmpeg's lavfi input has nothing to drop: it waits for the encoder and falls behind.
        entry["reported_dropped"] = 0 if run.status == 0 else None
    if os.path.exists(path):
        os.unlink(path)
    return entry


def run(capture, rounds, folder, log):
    """A 2 s warm-up per tool, then `rounds` rounds of each mode, the tools alternating."""
    result = {"modes": [list(m) for m in MODES], "seconds": SECONDS, "rounds": []}
    size, rate = MODES[0]
    for tool, (argv, output) in commands(capture, size, rate, 2).items():
        record_once(tool, argv, output, folder, rate, 2)
    for index in range(rounds):
        this = {}
        for size, rate in MODES:
            for tool, (argv, output) in commands(capture, size, rate, SECONDS).items():
                log("job 7: round %d/%d %s at %d fps %s" % (index + 1, rounds, size, rate, tool))
                this[key(size, rate, tool)] = record_once(tool, argv, output, folder, rate, SECONDS)
        result["rounds"].append(this)
    return result


def kept_up(entry, rate, seconds):
    """The run wrote every frame of the 20 s, dropped none and ended on time."""
    return (entry["status"] == 0 and entry.get("reported_dropped") == 0
            and entry.get("frames", 0) >= rate * seconds - 1 and entry["behind_s"] <= FINISH_ALLOWANCE_S)
