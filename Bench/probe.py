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
                         frames=int(s.get("nb_read_packets", 0)))
        elif entry["type"] == "audio":
            duration = s.get("duration") or data.get("format", {}).get("duration")
            entry.update(sample_rate=int(s.get("sample_rate", 0)), channels=s.get("channels"),
                         duration=round(float(duration), 3) if duration else None)
        result.append(entry)
    return result


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
                elif x[key] != y[key]:
                    lines.append("%s %s %s against %s" % (kind, key, x[key], y[key]))
    return lines


def describe(entries):
    """One short line for a `streams` result."""
    parts = []
    for s in entries:
        if s["type"] == "video":
            parts.append("%s %dx%d %s %d frames" % (s["codec"], s["width"], s["height"], s["pix_fmt"], s["frames"]))
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
    or None when the file holds none: equal strings mean both encoders ran with equal settings,
    thread counts included."""
    with open(path, "rb") as f:
        head = f.read(4 << 20)
    match = re.search(rb"x264 - core [^\x00]*?options: ([ -~]*)", head)
    return match.group(1).decode() if match else None


def option_differences(a, b):
    """The x264 options that differ between two option strings, as "name=x against y"."""
    if a is None or b is None:
        return [] if a == b else ["x264 options %s against %s" % (a is not None, b is not None)]
    pa = dict(item.split("=", 1) for item in a.split() if "=" in item)
    pb = dict(item.split("=", 1) for item in b.split() if "=" in item)
    return ["x264 %s=%s against %s" % (k, pa.get(k), pb.get(k)) for k in sorted(set(pa) | set(pb)) if pa.get(k) != pb.get(k)]
