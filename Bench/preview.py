"""Job 14: what the preview costs (issue 26). The paced test source at 1280x720 30 fps, 15 s to
H.264 veryfast in .mp4, without --serve and with --serve and one viewer reading /stream for the
whole run (5 pictures a second at most 640 wide, the defaults: each one decoded frame copied,
scaled and JPEG-encoded). The viewer is a thread of the bench, so its own CPU is not counted.
Reports capture's user+sys CPU each way, the difference, the pictures the viewer got, and the
frames written and dropped, which must be the same both ways.
"""

import json
import os
import socket
import threading
import time

import measure

SECONDS = 15
PORT = 18626


def viewer(port, stop, got):
    """Reads /stream until the server ends it; counts the parts' boundaries."""
    while not stop.is_set():
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=2)
        except OSError:
            time.sleep(0.1)
            continue
        sock.settimeout(5)
        sock.sendall(b"GET /stream HTTP/1.1\r\nHost: bench\r\n\r\n")
        tail = b""
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                got["parts"] += (tail + data).count(b"--capturepreview\r\n")
                tail = data[-20:]
        except OSError:
            pass
        sock.close()
        return


def once(capture, folder, serve):
    """One recording, with or without the preview and its viewer."""
    output = os.path.join(folder, "preview.mp4")
    argv = [capture, "record", "--video", "test", "--video-size", "1280x720", "--framerate", "30",
            "--preset", "veryfast", "--duration", str(SECONDS), "--force", "--json", "--quiet", output]
    if serve:
        argv[2:2] = ["--serve", "127.0.0.1:%d" % PORT]
    stop, got = threading.Event(), {"parts": 0}
    thread = threading.Thread(target=viewer, args=(PORT, stop, got)) if serve else None
    if thread:
        thread.start()
    run = measure.run(argv, cwd=folder, timeout=SECONDS * 6)
    stop.set()
    if thread:
        thread.join(10)
    entry = run.to_json()
    entry["serve"] = serve
    entry["pictures"] = got["parts"]
    try:
        video = json.loads(run.stdout).get("video", {})
        entry["frames"] = video.get("frames_written")
        entry["dropped"] = sum(video.get("frames_dropped", {}).values())
    except ValueError:
        entry["frames"] = entry["dropped"] = None
    if os.path.exists(output):
        os.unlink(output)
    return entry


def run(capture, rounds, folder, log):
    """A warm-up, then `rounds` rounds alternating off and on."""
    once(capture, folder, False)
    result = {"seconds": SECONDS, "rounds": []}
    for index in range(rounds):
        pair = {}
        for serve in (False, True):
            log("job 14: round %d/%d, preview %s" % (index + 1, rounds, "on" if serve else "off"))
            pair["on" if serve else "off"] = once(capture, folder, serve)
        result["rounds"].append(pair)
    return result


def summary(result):
    """Lines for the report: CPU off and on (medians), what the preview added, what the viewer got."""
    rounds = result.get("rounds", [])
    if not rounds:
        return []
    off = measure.summary([r["off"]["cpu_s"] for r in rounds])
    on = measure.summary([r["on"]["cpu_s"] for r in rounds])
    added = measure.summary([r["on"]["cpu_s"] - r["off"]["cpu_s"] for r in rounds])
    pictures = measure.summary([r["on"]["pictures"] for r in rounds])
    same = all(r["on"]["frames"] == r["off"]["frames"] and r["on"]["dropped"] == r["off"]["dropped"] == 0
               for r in rounds)
    seconds = result["seconds"]
    return [
        "Job 14, the preview (720p30 test source to H.264 veryfast, %d s, one viewer at 5 pictures/s):" % seconds,
        "  CPU without --serve %.2f s, with %.2f s: +%.2f s (%.1f %% of one core; %.2f-%.2f over %d rounds)"
        % (off["median"], on["median"], added["median"], 100 * added["median"] / seconds, added["min"],
           added["max"], len(rounds)),
        "  pictures the viewer got: %d (%.1f a second); frames written the same and none dropped both ways: %s"
        % (pictures["median"], pictures["median"] / seconds, "yes" if same else "NO"),
    ]
