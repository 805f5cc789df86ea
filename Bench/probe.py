"""What a recorded file holds, read back by ffprobe, and whether two files are equivalent.

The benchmark compares costs only between runs that produced the same thing: the same streams
with the same codec, frame size, pixel format and frame count (video), codec, rate and channels
and duration (audio).
"""

import json
import re
import subprocess


def streams(path):
    """One dict per stream: codec, and frame size, pixel format and packet count, or rate,
    channels and duration (seconds)."""
    out = subprocess.run(
        [
            "ffprobe", "-v", "error", "-count_packets", "-show_entries",
            "stream=codec_type,codec_name,width,height,pix_fmt,sample_rate,channels,nb_read_packets,duration"
            ":format=duration",
            "-of", "json", path,
        ],
        check=True, capture_output=True, text=True,
    ).stdout
    data = json.loads(out)
    result = []
    for s in data.get("streams", []):
        entry = {"type": s.get("codec_type"), "codec": s.get("codec_name")}
        if entry["type"] == "video":
            entry.update(width=s.get("width"), height=s.get("height"), pix_fmt=s.get("pix_fmt"),
                         frames=int(s.get("nb_read_packets", 0)), keyframes=keyframes(path))
        elif entry["type"] == "audio":
            duration = s.get("duration") or data.get("format", {}).get("duration")
            entry.update(sample_rate=int(s.get("sample_rate", 0)), channels=s.get("channels"),
                         duration=round(float(duration), 3) if duration else None)
        result.append(entry)
    return result


def keyframes(path):
    """Keyframes in the first video stream: equal settings give (nearly) the same count, and an
    encoder that was made to key every frame shows up here, not in its option string."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-of", "csv=p=0", path],
        check=True, capture_output=True, text=True,
    ).stdout
    return sum(1 for line in out.split() if line.startswith("K"))


def differences(a, b, audio_tolerance=0.05):
    """What differs between two `streams` results, as readable lines; empty when equivalent.

    Audio durations may differ by `audio_tolerance` seconds: the tools cut the last audio frame
    (1024 samples for AAC, 21 ms at 48 kHz) at slightly different places.
    """
    lines = []
    kinds_a = [s["type"] for s in a]
    kinds_b = [s["type"] for s in b]
    if sorted(kinds_a) != sorted(kinds_b):
        return ["streams %s against %s" % (kinds_a, kinds_b)]
    for kind in ("video", "audio"):
        sa = [s for s in a if s["type"] == kind]
        sb = [s for s in b if s["type"] == kind]
        for x, y in zip(sa, sb):
            for key in x:
                if key == "duration":
                    if x[key] is None or y[key] is None or abs(x[key] - y[key]) > audio_tolerance:
                        lines.append("%s duration %s s against %s s" % (kind, x[key], y[key]))
                elif key == "keyframes":
                    # Scene cuts may fall a frame apart between thread layouts; a count far off
                    # means a different encode.
                    if abs(x[key] - y[key]) > max(1, 0.1 * max(x[key], y[key])):
                        lines.append("%s keyframes %s against %s" % (kind, x[key], y[key]))
                elif x[key] != y[key]:
                    lines.append("%s %s %s against %s" % (kind, key, x[key], y[key]))
    return lines


def describe(entries):
    """One short line for a `streams` result."""
    parts = []
    for s in entries:
        if s["type"] == "video":
            parts.append("%s %dx%d %s %d frames (%d key)"
                         % (s["codec"], s["width"], s["height"], s["pix_fmt"], s["frames"], s.get("keyframes", 0)))
        elif s["type"] == "audio":
            parts.append("%s %d Hz %s ch %s s" % (s["codec"], s["sample_rate"], s["channels"], s["duration"]))
    return ", ".join(parts)


def video_times(path):
    """The presentation times (seconds) of the video packets, in order."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
         "-of", "csv=p=0", path],
        check=True, capture_output=True, text=True,
    ).stdout
    times = sorted(float(line.split(",")[0]) for line in out.split() if line and line[0] != "N")
    return times


def missing_in_gaps(times, interval):
    """Frames missing between consecutive frames: a step longer than 1.5 intervals lost
    round(step / interval) - 1 frames, the rule capture itself counts gaps by."""
    missing = 0
    for earlier, later in zip(times, times[1:]):
        step = later - earlier
        if step > 1.5 * interval:
            missing += round(step / interval) - 1
    return missing


def x264_options(path):
    """The option string libx264 writes into its first SEI ("cabac=1 ref=1 ... threads=3 ..."),
    or None when the file holds none."""
    with open(path, "rb") as f:
        head = f.read(4 << 20)
    match = re.search(rb"x264 - core [^\x00]*?options: ([ -~]*)", head)
    return match.group(1).decode() if match else None


# How x264 spreads its work over threads: frame threads (one frame per thread, ffmpeg's default)
# or sliced threads (each frame split among the threads, capture's default for its lower latency
# and memory). Everything else in the option string is what the encode does to each frame (the
# preset's analysis and motion search, crf, keyint, b-frames, lookahead ...), and must be equal.
THREAD_LAYOUT = ("threads", "lookahead_threads", "sliced_threads", "slices")


def _parse(options):
    return dict(item.split("=", 1) for item in options.split() if "=" in item)


def option_differences(a, b):
    """The x264 options that differ between two option strings, as "name=x against y", leaving
    out the thread layout (THREAD_LAYOUT), which `thread_mode` reports instead."""
    if a is None or b is None:
        return [] if a == b else ["x264 options %s against %s" % (a is not None, b is not None)]
    pa, pb = _parse(a), _parse(b)
    keys = sorted((set(pa) | set(pb)) - set(THREAD_LAYOUT))
    return ["x264 %s=%s against %s" % (k, pa.get(k), pb.get(k)) for k in keys if pa.get(k) != pb.get(k)]


def thread_mode(options):
    """"sliced threads (2 threads, 2 slices)" or "frame threads (3 threads)" from an x264 option
    string; None without one."""
    if options is None:
        return None
    o = _parse(options)
    if o.get("sliced_threads") == "1":
        return "sliced threads (%s threads, %s slices)" % (o.get("threads", "?"), o.get("slices", "?"))
    return "frame threads (%s threads)" % o.get("threads", "?")
