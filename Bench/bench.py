#!/usr/bin/env python3
"""capture against the ffmpeg CLI on the same jobs: CPU, wall time and peak RSS (issues 7 and 16).

Each job runs once per side as a warm-up (whose files are checked for equivalence with ffprobe),
then in rounds, capture and ffmpeg alternating, so slow drifts of the machine hit both sides
alike. Prints one table of medians and capture/ffmpeg ratios (median, min and max of the
per-round ratios), the targets met or not, a stream and a file from one encode (8, against
ffmpeg's tee muxer), the live test source at 720p and 1080p (7), and the camera
jobs from the QEMU guest (5: vivid's raw webcam; 6: an MJPEG camera played by v4l2loopback; 9:
two cameras and a microphone in one recording), and the memory of a 60 s pre-roll of event
clips (10); the cost of audio levels against ffmpeg's astats (11); start-up in the guest beside
ffmpeg, v4l2-ctl and arecord (12); a webcam's 1080p MJPEG decoded to H.264 (13); writes all of it, every single run included, as JSON into the results folder.

Usage: Bench/bench.py [--capture PATH] [--baseline PATH] [--rounds N] [--jobs 1,2,3,3d,4,4v,5,6,7,8,9,10,11,12,13] [--results DIR]
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

# Nothing written next to the sources: no __pycache__ in the work tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import camera  # noqa: E402
import startup  # noqa: E402
import loopback  # noqa: E402
import several  # noqa: E402
import jobs  # noqa: E402
import preroll  # noqa: E402
import preview  # noqa: E402
import previewguest  # noqa: E402
import live  # noqa: E402
import measure  # noqa: E402
import probe  # noqa: E402
import stream  # noqa: E402
import report  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBAV = ["libavdevice", "libavformat", "libavcodec", "libavfilter", "libswscale", "libswresample", "libavutil"]


def log(text):
    print("bench: " + text, file=sys.stderr, flush=True)


def measure_side(side, folder):
    """Runs a side's commands one after another; their costs add up."""
    # Each run writes a new file rather than overwriting the last one, on both sides alike.
    if side.output and os.path.exists(os.path.join(folder, side.output)):
        os.unlink(os.path.join(folder, side.output))
    runs = [measure.checked(argv, cwd=folder) for argv in side.commands]
    return {
        "cpu": sum(r.cpu for r in runs),
        "wall": sum(r.wall for r in runs),
        "rss_kib": max(r.rss_kib for r in runs),
        "threads": max(r.threads for r in runs),
        "runs": [r.to_json() for r in runs],
    }


def check_files(job, folder):
    """ffprobe both outputs; returns (descriptions, differences)."""
    found = {}
    for side in job.sides[:2]:
        path = os.path.join(folder, side.output)
        found[side.name] = (probe.streams(path), probe.x264_options(path))
    (a, xa), (b, xb) = found["capture"], found["ffmpeg"]
    lines = probe.differences(a, b) + probe.option_differences(xa, xb)
    described = {name: probe.describe(s) for name, (s, _) in found.items()}
    if xa or xb:
        described["x264_threads"] = {name: probe.thread_mode(x) for name, (_, x) in found.items()}
    return described, lines


def run_job(job, rounds, folder):
    result = {"job": job.key, "label": job.label, "title": job.title, "sides": [s.name for s in job.sides], "rounds": []}
    log("job %s: %s: warm-up" % (job.key, job.title))
    try:
        result["warmup"] = {s.name: measure_side(s, folder) for s in job.sides}
        if job.check_files:
            result["files"], lines = check_files(job, folder)
            if lines:
                result["error"] = "the two sides did not produce equivalent files: " + "; ".join(lines)
                log("job %s: %s" % (job.key, result["error"]))
                return result
        for index in range(rounds):
            log("job %s: round %d/%d" % (job.key, index + 1, rounds))
            this = {}
            for side in job.sides:
                this[side.name] = measure_side(side, folder)
                # Job 3's files are 2.8 GB each: never more than one at a time in the folder.
                if side.output and os.path.exists(os.path.join(folder, side.output)):
                    os.unlink(os.path.join(folder, side.output))
            result["rounds"].append(this)
    except measure.Failed as failure:
        result["error"] = str(failure)
        log("job %s: %s" % (job.key, failure))
        return result
    finally:
        for side in job.sides:
            if side.output and os.path.exists(os.path.join(folder, side.output)):
                os.unlink(os.path.join(folder, side.output))
    summarize(job, result)
    return result


def summarize(job, result):
    """Medians per side, per-round ratios capture/ffmpeg, and the targets."""
    rounds = result["rounds"]
    result["medians"] = {
        s.name: {
            "cpu_s": measure.summary([r[s.name]["cpu"] for r in rounds]),
            "wall_s": measure.summary([r[s.name]["wall"] for r in rounds]),
            "peak_rss_kib": measure.summary([r[s.name]["rss_kib"] for r in rounds]),
            "threads": max(r[s.name]["threads"] for r in rounds),
        }
        for s in job.sides
    }
    keys = {"cpu": "cpu", "wall": "wall", "rss": "rss_kib"}
    result["ratios"] = {
        metric: measure.summary([r["capture"][key] / r["ffmpeg"][key] for r in rounds if r["ffmpeg"][key] > 0])
        for metric, key in keys.items()
    }
    # Differences capture - ffmpeg per round, for targets that are a margin rather than a ratio.
    result["differences"] = {
        "rss_mib": measure.summary([(r["capture"]["rss_kib"] - r["ffmpeg"]["rss_kib"]) / 1024.0 for r in rounds]),
    }
    if "capture baseline" in result["sides"]:
        result["ratios"]["baseline_cpu"] = measure.summary(
            [r["capture"]["cpu"] / r["capture baseline"]["cpu"] for r in rounds if r["capture baseline"]["cpu"] > 0])
    values = dict(result["ratios"], **result["differences"])
    result["targets"] = [
        {
            "target": t.text,
            "value": values[t.metric]["median"],
            "met": values[t.metric]["median"] <= t.limit,
        }
        for t in job.targets
    ]


def build_libload(folder):
    """Compiles libload.c against the libav* libraries; None (with a note) when it cannot."""
    source = os.path.join(REPO, "Bench", "libload.c")
    binary = os.path.join(folder, "libload")
    try:
        flags = subprocess.run(["pkg-config", "--cflags", "--libs"] + LIBAV,
                               check=True, capture_output=True, text=True).stdout.split()
        # The Swift toolchain brings clang where no cc is installed.
        compiler = shutil.which("cc") or shutil.which("clang") or "cc"
        subprocess.run([compiler, "-O2", "-o", binary, source] + flags, check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as error:
        log("cannot build %s (%s); job 4 goes without the load-only floor" % (source, error))
        return None
    return binary


def build_swiftfloor(folder):
    """Compiles swiftfloor.swift as capture is linked (static Swift standard library) against the
    libav* libraries; None (with a note) when it cannot."""
    source = os.path.join(REPO, "Bench", "swiftfloor.swift")
    binary = os.path.join(folder, "swiftfloor")
    try:
        cflags = subprocess.run(["pkg-config", "--cflags", "libavdevice"],
                                check=True, capture_output=True, text=True).stdout.split()
        libs = subprocess.run(["pkg-config", "--libs"] + LIBAV,
                              check=True, capture_output=True, text=True).stdout.split()
        subprocess.run(["swiftc", "-O", "-static-stdlib", "-import-objc-header",
                        os.path.join(REPO, "Bench", "libav.h"), "-o", binary, source]
                       + [flag for c in cflags for flag in ("-Xcc", c)] + libs,
                       check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as error:
        log("cannot build %s (%s); job 4v goes without the Swift floor" % (source, error))
        return None
    return binary


def machine():
    def first_line(argv):
        try:
            out = subprocess.run(argv, capture_output=True, text=True).stdout.strip().splitlines()
            return out[0] if out else None
        except OSError:
            return None

    model = None
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), None)
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "kernel": platform.release(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        # "ffmpeg version 5.1.9-0+deb12u1 Copyright ..." -> "ffmpeg 5.1.9-0+deb12u1"
        "ffmpeg": " ".join((first_line(["ffmpeg", "-hide_banner", "-version"]) or "ffmpeg ?").split()[0:3:2]),
        "python": platform.python_version(),
    }


def scratch_folder():
    """Where the recordings go: memory (/dev/shm) when it has room, so that disk write-back,
    which lands on whichever run happens to trigger it, does not blur the comparison."""
    try:
        stat = os.statvfs("/dev/shm")
        if stat.f_bavail * stat.f_frsize >= 4 << 30 and os.access("/dev/shm", os.W_OK):
            return "/dev/shm"
    except OSError:
        pass
    return None


def disk_folder():
    """Where job 3d's recordings go: the build folder, on the disk that holds the checkout."""
    parent = os.path.join(REPO, ".build")
    os.makedirs(parent, exist_ok=True)
    return tempfile.mkdtemp(prefix="capture-bench-disk-", dir=parent)


def default_capture():
    try:
        bin_path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=REPO,
                                  check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        bin_path = os.path.join(REPO, ".build", "release")
    return os.path.join(bin_path, "capture")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capture", help="the capture binary (default: this checkout's release build)")
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds per job (default: 5)")
    parser.add_argument("--list-rounds", type=int, default=15,
                        help="rounds for job 4, whose runs take a tenth of a second (default: 15)")
    parser.add_argument("--guest-rounds", type=int, default=5, help="rounds of job 5 in the guest (default: 5)")
    parser.add_argument("--startup-rounds", type=int, default=3,
                        help="rounds of job 12's start-ups in the guest (default: 3)")
    parser.add_argument("--loopback-rounds", type=int, default=3, help="rounds of job 6 in the guest (default: 3)")
    parser.add_argument("--live-rounds", type=int, default=3,
                        help="rounds of job 7, each 20 s per rate and tool (default: 3)")
    parser.add_argument("--several-rounds", type=int, default=3, help="rounds of job 9 in the guest (default: 3)")
    parser.add_argument("--baseline", metavar="PATH",
                        help="an earlier capture binary, measured beside this one in job 13 (CPU ratio against it)")
    parser.add_argument("--preview-rounds", type=int, default=3,
                        help="rounds of job 14, each 15 s with the preview off and on (default: 3)")
    parser.add_argument("--preview-guest-rounds", type=int, default=3,
                        help="rounds of job 15 in the guest, capture serve against ustreamer (default: 3)")
    parser.add_argument("--jobs", default="1,2,3,3d,4,4v,5,6,7,8,9,10,11,12,13,14,15",
                        help="which jobs to run (default: 1,2,3,3d,4,4v,5,6,7,8,9,10,11)")
    parser.add_argument("--results", default=os.path.join(REPO, "bench-results"),
                        help="folder for the JSON results (default: bench-results)")
    options = parser.parse_args()
    capture = os.path.abspath(options.capture or default_capture())
    baseline = os.path.abspath(options.baseline) if options.baseline else None
    if baseline and not os.access(baseline, os.X_OK):
        sys.exit("bench: no baseline binary at %s" % baseline)
    if not os.access(capture, os.X_OK):
        sys.exit("bench: no capture binary at %s: run `swift build -c release` (or make build) first" % capture)
    for tool in ("ffmpeg", "ffprobe"):
        if not shutil.which(tool):
            sys.exit("bench: %s not found: install it with `make deps`" % tool)
    wanted = set(options.jobs.split(","))
    results = os.path.abspath(options.results)
    os.makedirs(results, exist_ok=True)

    version = subprocess.run([capture, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    data = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "capture": {"path": capture, "version": version},
        "machine": machine(),
        "rounds": options.rounds,
        "jobs": [],
    }
    folder = tempfile.mkdtemp(prefix="capture-bench-", dir=scratch_folder())
    data["scratch"] = folder
    disk = disk_folder() if "3d" in wanted else None
    data["disk"] = disk
    try:
        libload = build_libload(folder) if wanted & {"4", "4v"} else None
        swiftfloor = build_swiftfloor(folder) if "4v" in wanted else None
        if "13" in wanted:
            jobs.make_mjpeg_source(folder)
        for job in jobs.host_jobs(capture, libload, swiftfloor, baseline):
            if job.key in wanted:
                rounds = options.list_rounds if job.key in ("4", "4v") else options.rounds
                data["jobs"].append(run_job(job, rounds, disk if job.on_disk else folder))
        if "8" in wanted:
            log("job 8: a 720p30 stream to nginx-rtmp and a file, %s s per run" % stream.SECONDS)
            try:
                server = stream.Server(folder)
            except OSError as error:
                data["jobs"].append({"job": "8", "label": "stream + file", "title": "stream + file",
                                     "error": "no RTMP server: %s" % error})
            else:
                try:
                    data["jobs"].append(run_job(stream.job(capture, server), options.rounds, folder))
                finally:
                    server.stop()
        if "7" in wanted:
            log("job 7: the live test source at %s, %d s per run, %d rounds (at least %d minutes)"
                % (", ".join("%s at %d fps" % m for m in live.MODES), live.SECONDS, options.live_rounds,
                   1 + options.live_rounds * len(live.MODES) * 2 * live.SECONDS // 60))
            data["live"] = live.run(capture, options.live_rounds, folder, log)
            data["live_summary"] = report.live_summary(data["live"])
        if "14" in wanted:
            data["preview"] = preview.run(capture, options.preview_rounds, folder, log)
            data["preview_summary"] = preview.summary(data["preview"])
        if "10" in wanted:
            data["preroll"] = preroll.run(capture, folder, log)
            data["preroll_summary"] = preroll.summary(data["preroll"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if disk:
            shutil.rmtree(disk, ignore_errors=True)
    if "5" in wanted:
        log("job 5: vivid in the QEMU guest, %d rounds (about %d minutes)"
            % (options.guest_rounds, 1 + options.guest_rounds))
        data["camera"] = camera.run_on_host(capture, options.guest_rounds, os.path.join(results, "guest"), REPO)
        data["camera_summary"] = report.camera_summary(data["camera"])
    if "6" in wanted:
        log("job 6: an MJPEG camera (v4l2loopback) in the QEMU guest, %d rounds (about %d minutes)"
            % (options.loopback_rounds, 1 + options.loopback_rounds))
        data["loopback"] = loopback.run_on_host(capture, options.loopback_rounds, os.path.join(results, "guest-loopback"), REPO)
        data["loopback_summary"] = report.camera_summary(data["loopback"])
    if "12" in wanted:
        log("job 12: start-up in the QEMU guest, %d rounds (about %d minutes)"
            % (options.startup_rounds, 2 + options.startup_rounds))
        data["startup"] = startup.run_on_host(capture, options.startup_rounds, os.path.join(results, "guest-startup"), REPO)
        data["startup_summary"] = startup.summary(data["startup"])
    if "9" in wanted:
        log("job 9: two cameras and a microphone in the QEMU guest, %d rounds (about %d minutes)"
            % (options.several_rounds, 1 + options.several_rounds))
        data["several"] = several.run_on_host(capture, options.several_rounds, os.path.join(results, "guest-several"), REPO)
        data["several_summary"] = several.summary(data["several"])
    if "15" in wanted:
        log("job 15: an MJPEG camera served by capture serve and ustreamer in the QEMU guest, %d rounds "
            "(about %d minutes)" % (options.preview_guest_rounds, 2 + options.preview_guest_rounds))
        data["previewguest"] = previewguest.run_on_host(
            capture, options.preview_guest_rounds, os.path.join(results, "guest-preview"), REPO)
        data["previewguest_summary"] = previewguest.summary(data["previewguest"])

    text = report.render(data) + "".join(
        "\n" + line
        for line in data.get("several_summary", []) + data.get("preroll_summary", []) + data.get("startup_summary", [])
        + data.get("preview_summary", []) + data.get("previewguest_summary", []))
    print(text)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for name in ("bench-%s.json" % stamp, "latest.json"):
        with open(os.path.join(results, name), "w") as f:
            json.dump(data, f, indent=1)
    with open(os.path.join(results, "latest.txt"), "w") as f:
        f.write(text + "\n")
    log("results in %s/bench-%s.json (and latest.json, latest.txt)" % (results, stamp))
    failed = [j for j in data["jobs"] if j.get("error")] + [
        data[k] for k in ("camera", "loopback", "several", "preroll", "startup", "previewguest") if data.get(k, {}).get("error")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
