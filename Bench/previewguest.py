#!/usr/bin/env python3
"""Job 15: an MJPEG camera's live picture served over HTTP in the QEMU guest, `capture serve`
against Debian's ustreamer (issue 26): CPU, and latency from the camera's frame to its arrival
at the viewer.

The host side (`run_on_host`) encodes 900 distinct 640x360 MJPEG frames of testsrc2 (30 s at
30 fps, so no picture repeats within a run) and boots the guest. The guest side (`--guest`)
brings up the loopback interface and starts the camera: a writer feeding the frames into a
v4l2loopback node with write(2) at 30 fps, noting when it wrote each (CLOCK_MONOTONIC) and its
MD5. Then, per round and per tool, the server is started on the camera, a viewer reads /stream
for 10 s, noting when each part arrived and its MD5, and the server's CPU over those 10 s is read
from /proc. Both pass the camera's JPEGs through (capture: always; ustreamer: `--encoder HW`), so
a part is found among the written frames by its MD5: latency is its arrival less that frame's
write. capture serves at --serve-rate 60, ustreamer at its default, so both serve every frame.
"""

import hashlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402

DEVICE = "/dev/video30"
MODULE = "v4l2loopback devices=1 video_nr=30 exclusive_caps=1 card_label=mjpeg-camera"
SIZE = "640x360"
RATE = 30
COUNT = 900
SECONDS = 10
PORT = 8090
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]


def servers(capture):
    return {
        "capture": [capture, "serve", DEVICE, "--listen", "127.0.0.1:%d" % PORT, "--serve-rate", "60", "--quiet"],
        "ustreamer": ["ustreamer", "--device", DEVICE, "--host", "127.0.0.1", "--port", str(PORT), "--format",
                      "MJPEG", "--encoder", "HW", "--resolution", SIZE, "--persistent"],
    }


WRITER = r'''
import fcntl, hashlib, os, signal, struct, sys, time
node, size, rate, folder, log_path = sys.argv[1:6]
w, h = (int(x) for x in size.split("x"))
frames = [open(os.path.join(folder, f), "rb").read() for f in sorted(os.listdir(folder)) if f.endswith(".jpg")]
fd = os.open(node, os.O_RDWR)
# VIDIOC_S_FMT: type 2 (output), then the pix member (MJPG) of the 200-byte union at offset 8.
pix = struct.pack("=12I", w, h, struct.unpack("<I", b"MJPG")[0], 1, 0, w * h * 2, 0, 0, 0, 0, 0, 0)
fcntl.ioctl(fd, 0xC0D05605, struct.pack("=I4x", 2) + pix.ljust(200, b"\0"))
log = []
def flush(*_):
    with open(log_path, "w") as f:
        f.write("".join(log))
    os._exit(0)
signal.signal(signal.SIGTERM, flush)
n, t0 = 0, time.monotonic()
while True:
    data = frames[n % len(frames)]
    # The time before the write: on the guest's one CPU the server may take the frame and send it
    # before the writer runs again, so a time taken after could come after the part arrived.
    written = time.monotonic()
    os.write(fd, data)
    log.append("%.6f %s\n" % (written, hashlib.md5(data).hexdigest()))
    n += 1
    time.sleep(max(0.0, t0 + n / float(rate) - time.monotonic()))
'''


def cpu_seconds(pid):
    """utime + stime of a process so far, from /proc/PID/stat."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def view(seconds):
    """Reads /stream for `seconds` from the first part: [(arrival, md5)] per part."""
    deadline = time.monotonic() + 30
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    sock.sendall(b"GET /stream HTTP/1.1\r\nHost: bench\r\n\r\n")
    reader = sock.makefile("rb")
    while reader.readline() not in (b"\r\n", b""):
        pass
    parts, end = [], None
    while end is None or time.monotonic() < end:
        line = reader.readline()
        if not line:
            break
        if not line.lower().startswith(b"content-length:"):
            continue
        length = int(line.split(b":")[1])
        while reader.readline() not in (b"\r\n", b""):
            pass
        data = reader.read(length)
        now = time.monotonic()
        parts.append((now, hashlib.md5(data).hexdigest()))
        if end is None:
            end = now + seconds
    sock.close()
    return parts


def serve_once(tool, argv, folder):
    with open(os.path.join(folder, "%s.log" % tool), "a") as log:
        server = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        view(1)  # the server is up and the camera delivers
        before, started = cpu_seconds(server.pid), time.monotonic()
        parts = view(SECONDS)
        cpu = cpu_seconds(server.pid) - before
        wall = time.monotonic() - started
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "parts": parts}


def latencies(parts, written):
    """Milliseconds from each part's frame written to its arrival; None for a part not written."""
    found = []
    for arrival, md5 in parts:
        times = [t for t in written.get(md5, []) if t <= arrival]
        found.append(round((arrival - max(times)) * 1000, 2) if times else None)
    return found


def guest_main(capture, rounds, folder):
    results = {"size": SIZE, "rate": RATE, "seconds": SECONDS, "rounds": []}
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    log_path = os.path.join(folder, "written.log")
    writer = subprocess.Popen([sys.executable, "-I", "-S", "-c", WRITER, DEVICE, SIZE, str(RATE),
                               os.path.join(folder, "frames"), log_path])
    runs = []
    try:
        time.sleep(2)
        for index in range(rounds):
            for tool, argv in servers(capture).items():
                print("guest: round %d/%d %s" % (index + 1, rounds, tool), file=sys.stderr, flush=True)
                try:
                    runs.append((index, tool, serve_once(tool, argv, folder)))
                except OSError as error:
                    runs.append((index, tool, {"error": str(error)}))
    finally:
        writer.send_signal(signal.SIGTERM)
        writer.wait()
    written = {}
    with open(log_path) as f:
        for line in f:
            stamp, md5 = line.split()
            written.setdefault(md5, []).append(float(stamp))
    for index, tool, run in runs:
        while len(results["rounds"]) <= index:
            results["rounds"].append({})
        if "parts" in run:
            found = latencies(run.pop("parts"), written)
            known = [value for value in found if value is not None]
            run.update({"count": len(found), "identical": len(known),
                        "fps": round(len(found) / run["wall_s"], 2) if run["wall_s"] else None,
                        "latency_ms_median": statistics.median(known) if known else None,
                        "latency_ms_p95": sorted(known)[int(0.95 * (len(known) - 1))] if known else None})
        results["rounds"][index][tool] = run
    with open(os.path.join(folder, "preview.json"), "w") as f:
        json.dump(results, f, indent=1)
    return 0


def run_on_host(capture, rounds, folder, repo):
    """Encodes the frames, boots the guest, runs the guest side; its results or an "error" entry."""
    shutil.rmtree(os.path.join(folder, "frames"), ignore_errors=True)
    guest.fresh(folder)
    frames = os.path.join(folder, "frames")
    os.makedirs(frames, exist_ok=True)
    subprocess.run(FFMPEG + ["-f", "lavfi", "-i", "testsrc2=size=%s:rate=%d" % (SIZE, RATE), "-frames:v",
                             str(COUNT), "-c:v", "mjpeg", "-q:v", "5", "-f", "image2",
                             os.path.join(frames, "%04d.jpg")], check=True)
    timeout = 120 + rounds * 2 * (SECONDS + 25)
    try:
        return guest.run(__file__, MODULE, capture, rounds, folder, repo, timeout, "preview.json")
    finally:
        # guest.run removes the files the run left; the frames are a folder of their own.
        shutil.rmtree(frames, ignore_errors=True)


def summary(result):
    """Lines for the report: each tool's CPU, parts a second, identical parts and latency, medians."""
    if result.get("error"):
        return ["Job 15, preview server in the guest: %s" % result["error"]]
    lines = ["Job 15, an MJPEG camera (v4l2loopback, %s at %d fps) served over HTTP in the guest, one viewer, "
             "%d s:" % (result["size"], result["rate"], result["seconds"])]
    for tool in ("capture", "ustreamer"):
        runs = [r[tool] for r in result["rounds"] if "count" in r.get(tool, {})]
        if not runs:
            lines.append("  %-9s no run: %s" % (tool, [r.get(tool, {}).get("error") for r in result["rounds"]]))
            continue

        def median(key):
            values = [r[key] for r in runs if r.get(key) is not None]
            return statistics.median(values) if values else float("nan")
        lines.append("  %-9s CPU %.2f s (%.1f %% of the CPU), %.1f parts/s, %d/%d byte for byte, latency median "
                     "%.1f ms, p95 %.1f ms" % (tool, median("cpu_s"), 100 * median("cpu_s") / result["seconds"],
                                                median("fps"), sum(r["identical"] for r in runs),
                                                sum(r["count"] for r in runs), median("latency_ms_median"),
                                                median("latency_ms_p95")))
    return lines


if __name__ == "__main__":
    guest.main(__doc__, run_on_host, guest_main, 3)
