"""The benchmark's printed report: one table for the host jobs, the live test source, the camera
jobs from the guest, and the targets of issues 7 and 16, each marked met or not."""

import statistics

import live

MIB = 1024.0
# Memory is bounded when RSS does not climb from the middle third of a recording to the last.
RSS_GROWTH_LIMIT_KIB = 8 * 1024


def _ratio(summary):
    if not summary:
        return ""
    return "%.2f (%.2f-%.2f)" % (summary["median"], summary["min"], summary["max"])


def _difference(summary):
    if not summary:
        return ""
    return "%+.1f (%+.1f..%+.1f)" % (summary["median"], summary["min"], summary["max"])


def _host_table(data):
    head = ("Job", "Side", "CPU s", "Wall s", "RSS MiB", "Thr", "CPU ratio", "Wall ratio", "RSS ratio")
    rows = [head]
    notes = []
    for job in data["jobs"]:
        label = "%s %s" % (job["job"], job["label"])
        if job.get("error"):
            rows.append((label, "-", "", "", "", "", "", "", ""))
            notes.append("job %s not compared: %s" % (job["job"], job["error"]))
            continue
        for index, side in enumerate(job["sides"]):
            m = job["medians"][side]
            ratios = job["ratios"] if index == 0 else {}
            rows.append((
                label if index == 0 else "",
                side,
                "%.3f" % m["cpu_s"]["median"],
                "%.3f" % m["wall_s"]["median"],
                "%.1f" % (m["peak_rss_kib"]["median"] / MIB),
                str(m["threads"]) if m["threads"] else "",
                _ratio(ratios.get("cpu")),
                _ratio(ratios.get("wall")),
                _ratio(ratios.get("rss")),
            ))
        if job["job"] == "4":
            notes.extend(_load_notes(job))
        if job["job"] == "4v" and job.get("differences", {}).get("rss_mib"):
            notes.append("job %s: peak RSS capture - ffmpeg, MiB per round: %s"
                         % (job["job"], _difference(job["differences"]["rss_mib"])))
        if job["job"] == "4v":
            notes.extend(_floor_notes(job))
        if job.get("files"):
            notes.append("job %s files: capture %s; ffmpeg %s" % (job["job"], job["files"]["capture"], job["files"]["ffmpeg"]))
            threads = job["files"].get("x264_threads")
            if threads:
                notes.append(
                    "job %s x264: capture uses %s, ffmpeg %s; every other x264 setting (preset analysis, crf, keyint,"
                    " b-frames, lookahead) is equal%s"
                    % (job["job"], threads["capture"], threads["ffmpeg"],
                       "; 'ffmpeg sliced' is ffmpeg with capture's thread layout (-x264-params sliced-threads=1),"
                       " measured alongside, not compared" if "ffmpeg sliced" in job["sides"] else ""))
    lines = _columns(rows)
    lines.append("")
    lines += ["job %s: %s" % (job["job"], job["title"]) for job in data["jobs"]]
    if data.get("disk") and any(job["job"] == "3d" for job in data["jobs"]):
        notes.append("job 3d writes to disk, in %s" % data["disk"])
    return lines, notes


def _columns(rows):
    """Rows of cells as aligned lines: the first two columns left-aligned, numbers right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        cells = (c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
        lines.append("  ".join(cells).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def _load_notes(job):
    """How much of job 4 is loading the shared libraries."""
    m = {side: job["medians"][side]["wall_s"]["median"] for side in job["sides"]}
    notes = []
    floor = m.get("libav* load only")
    if floor is not None:
        notes.append(
            "job 4: loading libav* and their dependencies alone takes %.0f ms (libav* load only): %.0f %% of "
            "capture list (%.0f ms) and %.0f %% of the two ffmpeg -sources runs (%.0f ms, two loads)"
            % (floor * 1e3, 100 * floor / m["capture"], m["capture"] * 1e3, 200 * floor / m["ffmpeg"], m["ffmpeg"] * 1e3)
        )
    if "capture --version" in m and "ffmpeg -version" in m:
        notes.append(
            "job 4: start-up floors: capture --version %.0f ms, ffmpeg -version %.0f ms; capture list "
            "spends %.0f ms beyond its floor, the ffmpeg pair %.0f ms beyond two floors"
            % (m["capture --version"] * 1e3, m["ffmpeg -version"] * 1e3, (m["capture"] - m["capture --version"]) * 1e3,
               (m["ffmpeg"] - 2 * m["ffmpeg -version"]) * 1e3)
        )
    return notes


def _floor_notes(job):
    """What of job 4v's peak RSS is the language's: the Swift floor above the C one."""
    rss = {side: job["medians"][side]["peak_rss_kib"]["median"] / MIB for side in job["sides"]}
    if "Swift floor" not in rss or "libav* load only" not in rss:
        return []
    return [
        "job 4v: peak RSS of libav* loaded from C %.1f MiB; from Swift with the static standard library and "
        "FoundationEssentials encoding one JSON object %.1f MiB (%+.1f): capture --version is %+.1f above that"
        % (rss["libav* load only"], rss["Swift floor"], rss["Swift floor"] - rss["libav* load only"],
           rss["capture"] - rss["Swift floor"])
    ]


def _failure(entry):
    """One line for a failed run: the signal that killed it or its exit status, and the
    line of its stderr that says what went wrong."""
    status = entry["status"]
    how = "killed by signal %d" % -status if status < 0 else "exit %d" % status
    lines = (entry.get("stderr") or "").splitlines()
    said = next((line for line in lines if "crashed" in line or line.startswith("Error:")), None)
    return how + (": " + said.strip("* ") if said else "")


def camera_summary(camera):
    """Medians over the guest rounds per codec and tool, and the two job 5 targets."""
    if camera.get("error") or not camera.get("rounds"):
        return {"error": camera.get("error", "no rounds")}
    expected = camera["expected"]
    rows = {}
    for key in camera["rounds"][0]:
        entries = [r[key] for r in camera["rounds"]]
        ok = [e for e in entries if e["status"] == 0 and "frames" in e]

        def med(name, source=ok):
            values = [e[name] for e in source if e.get(name) is not None]
            return statistics.median(values) if values else None

        rows[key] = {
            "runs": len(entries),
            "failed": [_failure(e) for e in entries if e not in ok],
            "frames": med("frames"),
            "frames_min": min((e["frames"] for e in ok), default=None),
            "frames_max": max((e["frames"] for e in ok), default=None),
            "reported_dropped": med("reported_dropped"),
            "missing_in_gaps": med("missing_in_gaps"),
            "cpu_s": med("cpu_s", entries),
            "wall_s": med("wall_s", entries),
            "peak_rss_kib": med("peak_rss_kib", entries),
            "rss_growth_kib": max((e["rss_growth_kib"] for e in ok if e.get("rss_growth_kib") is not None), default=None),
            # Job 6: the frame rate the producer (the camera) kept while the tool ran.
            "producer_fps": med("producer_fps", entries),
            "sent_while_running": med("sent_while_running", entries),
        }
    targets = []
    if "raw/capture" in camera["rounds"][0]:
        raw = [r["raw/capture"] for r in camera["rounds"]]
        raw_met = all(e["status"] == 0 and e.get("frames") == expected and e.get("reported_dropped") == 0
                      and e.get("missing_in_gaps") == 0 for e in raw)
        targets.append({"target": "raw: %d/%d frames and 0 dropped in every round" % (expected, expected), "met": raw_met})
    h264 = [r["h264/capture"] for r in camera["rounds"]]
    bounded = all(e["status"] == 0 and e.get("rss_growth_kib") is not None
                  and e["rss_growth_kib"] <= RSS_GROWTH_LIMIT_KIB for e in h264)
    # Every frame the camera delivered in the 10 s is either in the file or in the dropped count.
    counted = all(e["status"] == 0 and e.get("reported_dropped") is not None
                  and abs(e["frames"] + e["reported_dropped"] - expected) <= 1 for e in h264)
    targets += [
        {"target": "H.264: RSS grows <= %d MiB from the middle to the last third" % (RSS_GROWTH_LIMIT_KIB // 1024),
         "met": bounded},
        {"target": "H.264: frames written + dropped reported = %d (+-1) in every round" % expected, "met": counted},
    ]
    return {"rows": rows, "targets": targets, "expected": expected}


def _camera_lines(data, key="camera", job="5", source="vivid"):
    camera = data.get(key)
    summary = data.get(key + "_summary")
    if camera is None:
        return []
    if summary.get("error"):
        return ["", "Job %s (QEMU guest): not run: %s" % (job, summary["error"])]
    lines = [
        "",
        "Job %s: %s %s %d fps %s, %d s in the QEMU guest (TCG, 1 vCPU); medians of %d rounds"
        % (job, source, camera["size"], camera["rate"], camera.get("input_format", ""), camera["seconds"],
           len(camera["rounds"])),
    ]
    head = ("Codec", "Tool", "Runs ok", "Frames/expected", "Dropped (reported)", "Missing (gaps)", "CPU s", "Wall s", "RSS MiB",
            "RSS growth MiB")
    rows = [head]
    for key, r in summary["rows"].items():
        codec, tool = key.split("/")
        frames = "-" if r["frames"] is None else "%g/%d" % (r["frames"], summary["expected"])
        if r["frames_min"] is not None and r["frames_min"] != r["frames_max"]:
            frames += " (%d-%d)" % (r["frames_min"], r["frames_max"])
        rows.append((
            codec, tool, "%d/%d" % (r["runs"] - len(r["failed"]), r["runs"]), frames,
            "-" if r["reported_dropped"] is None else "%g" % r["reported_dropped"],
            "-" if r["missing_in_gaps"] is None else "%g" % r["missing_in_gaps"],
            "%.2f" % r["cpu_s"], "%.2f" % r["wall_s"], "%.1f" % (r["peak_rss_kib"] / MIB),
            "-" if r["rss_growth_kib"] is None else "%.1f" % (r["rss_growth_kib"] / MIB),
        ))
    lines += _columns(rows)
    for name, r in summary["rows"].items():
        if r["failed"]:
            lines.append("%s failed %d of %d runs: %s" % (name, len(r["failed"]), r["runs"], r["failed"][0]))
        if r.get("producer_fps") is not None:
            lines.append("%s: the producer sent %g frames, %.1f fps, while the tool ran (medians; above 30 fps it"
                         " was catching up on time ffmpeg -re had fallen behind, the guest's one CPU being busy)"
                         % (name, r["sent_while_running"], r["producer_fps"]))
    return lines


def live_summary(result):
    """Medians over the rounds per mode and tool, whether each tool kept up, and for capture the
    preset its encoder budget chose and whether the budget's word held."""
    rows = {}
    for key in result["rounds"][0]:
        entries = [r[key] for r in result["rounds"]]
        ok = [e for e in entries if e["status"] == 0 and "frames" in e]
        rate = int(key.split("/")[0].split("@")[1])

        def med(name, source=ok):
            values = [e[name] for e in source if e.get(name) is not None]
            return statistics.median(values) if values else None

        rows[key] = {
            "runs": len(entries),
            "failed": [_failure(e) for e in entries if e not in ok],
            "frames": med("frames"),
            "reported_dropped": med("reported_dropped"),
            "missing_in_gaps": med("missing_in_gaps"),
            "behind_s": med("behind_s"),
            "cpu_s": med("cpu_s", entries),
            "wall_s": med("wall_s", entries),
            "peak_rss_kib": med("peak_rss_kib", entries),
            "rss_growth_kib": max((e["rss_growth_kib"] for e in ok if e.get("rss_growth_kib") is not None), default=None),
            "threads": max((e["threads"] for e in entries), default=0),
            "presets": sorted({e["preset"] for e in ok if e.get("preset")}),
            "budget_speed": med("budget_speed"),
            "kept_up": sum(1 for e in entries if live.kept_up(e, rate, result["seconds"])),
        }
    targets = []
    for size, rate in result["modes"]:
        capture = [r[live.key(size, rate, "capture")] for r in result["rounds"]]
        bounded = all(e["status"] == 0 and e.get("rss_growth_kib") is not None
                      and e["rss_growth_kib"] <= RSS_GROWTH_LIMIT_KIB for e in capture)
        kept = [live.kept_up(e, rate, result["seconds"]) for e in capture]
        if rate <= 30:
            targets.append({"target": "%s at %d fps: capture keeps up (no drop, on time) in every round, "
                                      "RSS grows <= %d MiB" % (size, rate, RSS_GROWTH_LIMIT_KIB // 1024),
                            "met": bounded and all(kept)})
        else:
            # Beyond the machine: the budget says whether its choice keeps up, and it must be right.
            targets.append({"target": "%s at %d fps: the budget's word holds in every round (kept up exactly "
                                      "when it said its preset would)" % (size, rate),
                            "met": all(e.get("budget_keeps_up") is not None and e["budget_keeps_up"] == k
                                       for e, k in zip(capture, kept))})
    return {"rows": rows, "targets": targets}


def _live_lines(data):
    result = data.get("live")
    summary = data.get("live_summary")
    if not result or "modes" not in result:
        return []
    lines = [
        "",
        "Job 7: the live (paced) test source, %d s to H.264 .mp4, each tool's defaults; medians of %d rounds"
        % (result["seconds"], len(result["rounds"])),
    ]
    head = ("Mode", "Tool", "Kept up", "Frames", "Dropped", "Missing (gaps)", "Behind s", "CPU s", "RSS MiB",
            "RSS growth MiB", "Thr", "Preset (budget speed)")
    rows = [head]
    for key, r in summary["rows"].items():
        mode, tool = key.split("/")
        preset = "/".join(r["presets"]) or ("medium (default)" if tool == "ffmpeg" else "-")
        if r["budget_speed"] is not None:
            preset += " (%.2fx)" % r["budget_speed"]
        rows.append((
            mode.replace("@", " at ") + " fps", tool, "%d/%d" % (r["kept_up"], r["runs"]),
            "-" if r["frames"] is None else "%g" % r["frames"],
            "-" if r["reported_dropped"] is None else "%g" % r["reported_dropped"],
            "-" if r["missing_in_gaps"] is None else "%g" % r["missing_in_gaps"],
            "-" if r["behind_s"] is None else "%.2f" % r["behind_s"],
            "%.2f" % r["cpu_s"], "%.1f" % (r["peak_rss_kib"] / MIB),
            "-" if r["rss_growth_kib"] is None else "%.1f" % (r["rss_growth_kib"] / MIB),
            str(r["threads"]), preset,
        ))
    lines += _columns(rows)
    lines.append("Dropped: what the tool reported; ffmpeg's lavfi input never drops but falls behind the clock"
                 " (Behind s: wall time past %d s; a camera would have lost that times the rate in frames)."
                 " Kept up: no drop and behind <= %.1f s. Budget speed: what x264 kept at that preset before"
                 " the recording, in multiples of real time." % (result["seconds"], live.FINISH_ALLOWANCE_S))
    for name, r in summary["rows"].items():
        if r["failed"]:
            lines.append("%s failed %d of %d runs: %s" % (name, len(r["failed"]), r["runs"], r["failed"][0]))
    return lines


def render(data):
    m = data["machine"]
    lines = [
        "%s against %s; %d rounds after a warm-up, A B alternating; %s CPUs (%s), load %s at start"
        % (data["capture"]["version"], m["ffmpeg"], data["rounds"], m["cpus"], m["cpu_model"],
           " ".join("%.2f" % x for x in m["load_average"])),
        "Medians; ratios are capture/ffmpeg per round: median (min-max). RSS is peak resident set (ru_maxrss);"
        " files written to %s." % ("memory (/dev/shm)" if data.get("scratch", "").startswith("/dev/shm") else "disk"),
        "",
    ]
    table, notes = _host_table(data)
    lines += table
    if notes:
        lines.append("")
        lines += notes
    lines += _live_lines(data)
    lines += _camera_lines(data)
    lines += _camera_lines(data, "loopback", "6", "v4l2loopback camera")
    lines += ["", "Targets (issues 7, 15 and 16):"]
    for job in data["jobs"]:
        if job.get("error"):
            continue
        for t in job.get("targets", []):
            lines.append("  job %s  %-66s %5.2f  %s" % (job["job"], t["target"], t["value"], "met" if t["met"] else "NOT MET"))
    for job, key in (("7", "live_summary"), ("5", "camera_summary"), ("6", "loopback_summary")):
        summary = data.get(key)
        if summary and not summary.get("error"):
            for t in summary["targets"]:
                lines.append("  job %s  %-66s %5s  %s" % (job, t["target"], "", "met" if t["met"] else "NOT MET"))
    return "\n".join(lines)
