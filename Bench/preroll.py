"""Job 10: the pre-roll of event clips (issue 25). The paced test source at 1280x720, 30 fps, to
H.264 with a 60 s pre-roll and no trigger, for 100 s: nothing goes to disk, the last 60 s of
packets stay in memory. RSS over time shows what that costs: from the first seconds to the end of
the fill it may grow by what the pre-roll holds (the summary's `pre_roll.bytes`, the packets' own
count) plus 10 %, and after the fill it must stay flat (within 10 % of that). ffmpeg recording the
same paced source to a file beside it is the reference for the encoder's own memory.
"""

import json
import os

import measure

SIZE = "1280x720"
RATE = 30
PRE_ROLL = 60
SECONDS = 100
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
# Start-up (libraries, devices, the encoder's first frames) is over by then: the base line.
BASE_S = 4.0


def commands(capture):
    ours = [capture, "record", "--video", "test", "--video-size", SIZE, "--framerate", str(RATE),
            "--codec", "h264", "--preset", "veryfast", "--crf", "23", "--pre-roll", str(PRE_ROLL),
            "--duration", str(SECONDS), "--force", "--json", "--quiet", "clip-%n.mp4"]
    graph = "testsrc2=size=%s:rate=%d,realtime" % (SIZE, RATE)
    theirs = FFMPEG + ["-f", "lavfi", "-i", graph, "-t", str(SECONDS), "-c:v", "libx264", "-preset", "veryfast",
                       "-crf", "23", "-g", str(RATE), "-pix_fmt", "yuv420p", "ffmpeg.mp4"]
    return ours, theirs


def peak(timeline, start, end):
    """The largest RSS sample (KiB) from `start` to `end` seconds after the start; None if none."""
    samples = [rss for t, rss in timeline if start <= t <= end]
    return max(samples) if samples else None


def run(capture, folder, log):
    ours, theirs = commands(capture)
    log("job 10: capture, a %d s pre-roll at %s %d fps for %d s" % (PRE_ROLL, SIZE, RATE, SECONDS))
    mine = measure.run(ours, cwd=folder, timeline=True, interval=0.25, timeout=SECONDS * 4)
    log("job 10: ffmpeg, the same source to a file")
    reference = measure.run(theirs, cwd=folder, timeline=False, timeout=SECONDS * 4)
    for name in os.listdir(folder):
        if name.startswith("clip-") or name == "ffmpeg.mp4":
            os.unlink(os.path.join(folder, name))
    result = {"size": SIZE, "rate": RATE, "pre_roll_s": PRE_ROLL, "seconds": SECONDS,
              "capture": mine.to_json(), "ffmpeg": reference.to_json()}
    result["capture"].pop("rss_timeline", None)
    if mine.status != 0:
        result["error"] = "capture exited with %d: %s" % (mine.status, mine.stderr.strip()[-300:])
        return result
    held = json.loads(mine.stdout).get("pre_roll") or {}
    timeline = mine.rss_timeline or []
    fill_end = PRE_ROLL + BASE_S
    result["pre_roll_bytes"] = held.get("bytes")
    result["pre_roll_held_s"] = held.get("seconds")
    result["rss_base_kib"] = peak(timeline, BASE_S - 1, BASE_S)
    result["rss_filled_kib"] = peak(timeline, fill_end - 1, fill_end + 1)
    result["rss_end_kib"] = peak(timeline, SECONDS - 2, SECONDS + 1)
    return result


def summary(result):
    """Lines for the report."""
    if result.get("error"):
        return ["job 10 (pre-roll): FAILED: %s" % result["error"]]
    ring = (result.get("pre_roll_bytes") or 0) / 1024
    base, filled, end = result["rss_base_kib"], result["rss_filled_kib"], result["rss_end_kib"]
    if None in (base, filled, end) or ring == 0:
        return ["job 10 (pre-roll): no RSS timeline or pre-roll size to judge"]
    growth, after = filled - base, end - filled
    ok_fill, ok_after = growth <= ring * 1.1, after <= ring * 0.1
    mib = lambda kib: kib / 1024
    return [
        "job 10 (pre-roll %d s, %s %d fps, %d s, no trigger): the pre-roll held %.1f s in %.1f MiB"
        % (result["pre_roll_s"], result["size"], result["rate"], result["seconds"], result["pre_roll_held_s"] or 0,
           mib(ring)),
        "  RSS grew %.1f MiB while it filled (%.0f to %.0f s; target <= %.1f MiB, the pre-roll + 10 %%): %s"
        % (mib(growth), BASE_S, PRE_ROLL + BASE_S, mib(ring * 1.1), "PASS" if ok_fill else "FAIL"),
        "  and %.1f MiB after it filled (target <= %.1f MiB, flat): %s"
        % (mib(after), mib(ring * 0.1), "PASS" if ok_after else "FAIL"),
        "  peak RSS: capture %.1f MiB with the pre-roll; ffmpeg recording the same to a file %.1f MiB"
        % (mib(result["capture"]["peak_rss_kib"]), mib(result["ffmpeg"]["peak_rss_kib"])),
    ]
