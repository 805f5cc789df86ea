#!/usr/bin/env python3
"""Checks two screenshots of the preview page taken a second or more apart: the image area shows
the test pattern (its saturated colour bars, not a blank or broken image) and the picture moved
between them. The pixels are read by ffmpeg (PNG to raw RGB); prints one JSON object, exits 1
with a line on stderr when a check fails.

Usage: screenshot_check.py FIRST.png SECOND.png LEFT TOP RIGHT BOTTOM
(the image's area in the screenshots, in pixels).
"""
import json
import subprocess
import sys


def pixels(path, box):
    """The RGB pixels of path within box, row by row."""
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path],
        check=True, capture_output=True, text=True).stdout.strip().split(",")
    width, height = int(probe[0]), int(probe[1])
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
        check=True, capture_output=True).stdout
    left, top, right, bottom = box
    if right > width or bottom > height:
        raise SystemExit(f"screenshot_check: {path} is {width}x{height}, smaller than the box {box}")
    return [raw[(y * width + x) * 3:(y * width + x) * 3 + 3] for y in range(top, bottom, 2)
            for x in range(left, right, 2)]


def hue_class(pixel):
    """red, yellow, green, cyan, blue or magenta for a saturated pixel; None otherwise."""
    r, g, b = pixel
    high, low = max(r, g, b), min(r, g, b)
    if high - low < 100:
        return None
    if r == high:
        return "yellow" if g - low > (high - low) / 2 else ("magenta" if b - low > (high - low) / 2 else "red")
    if g == high:
        return "yellow" if r - low > (high - low) / 2 else ("cyan" if b - low > (high - low) / 2 else "green")
    return "magenta" if r - low > (high - low) / 2 else ("cyan" if g - low > (high - low) / 2 else "blue")


def main():
    first, second = sys.argv[1], sys.argv[2]
    box = tuple(int(value) for value in sys.argv[3:7])
    a, b = pixels(first, box), pixels(second, box)
    counts = {}
    for pixel in a:
        name = hue_class(pixel)
        if name:
            counts[name] = counts.get(name, 0) + 1
    shares = {name: round(count / len(a), 4) for name, count in counts.items()}
    changed = sum(1 for p, q in zip(a, b) if max(abs(p[i] - q[i]) for i in range(3)) > 40) / len(a)
    result = {"hue_shares": shares, "changed": round(changed, 4)}
    print(json.dumps(result))
    # The test pattern's six bars each take a sixth of the picture; a blank page, a broken-image
    # icon or a grey placeholder has none of them.
    bars = [name for name, share in shares.items() if share >= 0.05]
    if len(bars) < 5:
        print(f"screenshot_check: the image area shows {shares}, not the test pattern's bars", file=sys.stderr)
        sys.exit(1)
    if changed < 0.002:
        print(f"screenshot_check: only {changed:.4f} of the image area changed between the screenshots",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
