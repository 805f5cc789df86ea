"""Job 7: the live (paced) test source at 1080p, 30 and 60 fps, for 20 s, to H.264 in .mp4.

A camera delivers frames at its own pace whether the recorder keeps up or not. capture's `test`
video is lavfi's testsrc2 behind the `realtime` filter, read by its own thread into a bounded
queue: when the encoder falls behind, the oldest frames are dropped and counted. ffmpeg reads the
same graph (`testsrc2=...,realtime`) in its one loop: it never drops, it falls behind the clock
instead and takes longer than 20 s, where a camera would have dropped what it could not take. So
each run reports the frames in the file, the frames the tool said it dropped, and how far past
20 s it ended (seconds behind; times the rate, the frames a camera would have lost); and RSS over
time, since memory is bounded when it does not grow from the middle third of the run to the last.
Both encode with the same x264 settings (veryfast, crf 23, a keyframe every 2 s), each with its
own thread layout.
"""

import json
import os

import measure
import probe

SIZE = "1920x1080"
SECONDS = 20
RATES = (30, 60)
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
# Start-up and finishing (loading the libraries, the MP4 index) take a few tenths of a second:
# a run ending within this much of the recording's length kept up.
FINISH_ALLOWANCE_S = 1.0


def commands(capture, rate, seconds):
    """The two commands recording `seconds` of the paced source at `rate` fps."""
    ours = [capture, "record", "--video", "test", "--video-size", SIZE, "--framerate", str(rate),
            "--codec", "h264", "--preset", "veryfast", "--crf", "23", "--duration", str(seconds),
            "--force", "--json", "--quiet", "capture.mp4"]
    graph = "testsrc2=size=%s:rate=%d,realtime" % (SIZE, rate)
    theirs = FFMPEG + ["-f", "lavfi", "-i", graph, "-t", str(seconds), "-c:v", "libx264", "-preset", "veryfast",
                       "-crf", "23", "-g", str(2 * rate), "-pix_fmt", "yuv420p", "ffmpeg.mp4"]
    return {"capture": (ours, "capture.mp4"), "ffmpeg": (theirs, "ffmpeg.mp4")}


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
            dropped = json.loads(run.stdout).get("video", {}).get("frames_dropped", {})
            entry["reported_dropped"] = sum(dropped.get(k, 0) for k in ("late", "corrupt", "gaps"))
        except ValueError:
            entry["reported_dropped"] = None
    else:
        # ffmpeg's lavfi input has nothing to drop: it waits for the encoder and falls behind.
        entry["reported_dropped"] = 0 if run.status == 0 else None
    if os.path.exists(path):
        os.unlink(path)
    return entry


def run(capture, rounds, folder, log):
    """A 2 s warm-up per tool, then `rounds` rounds of each rate, the tools alternating."""
    result = {"size": SIZE, "seconds": SECONDS, "rates": list(RATES), "rounds": []}
    for tool, (argv, output) in commands(capture, RATES[0], 2).items():
        record_once(tool, argv, output, folder, RATES[0], 2)
    for index in range(rounds):
        this = {}
        for rate in RATES:
            for tool, (argv, output) in commands(capture, rate, SECONDS).items():
                log("job 7: round %d/%d %d fps %s" % (index + 1, rounds, rate, tool))
                this["%d/%s" % (rate, tool)] = record_once(tool, argv, output, folder, rate, SECONDS)
        result["rounds"].append(this)
    return result


def kept_up(entry, rate, seconds):
    """The run wrote every frame of the 20 s, dropped none and ended on time."""
    return (entry["status"] == 0 and entry.get("reported_dropped") == 0
            and entry.get("frames", 0) >= rate * seconds - 1 and entry["behind_s"] <= FINISH_ALLOWANCE_S)
