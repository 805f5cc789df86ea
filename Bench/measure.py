"""Runs one program and measures what it cost: user+sys CPU, wall time, peak RSS, threads.

The kernel keeps the numbers: os.wait4 returns the child's own rusage (ru_utime, ru_stime,
ru_maxrss in KiB), so nothing is sampled for them and the measurement adds no work to the child.
Only the thread count (and, on request, a time line of RSS) is sampled from /proc while the child
runs, from a thread of ours.
"""

import os
import shutil
import statistics
import threading
import time


class Run:
    """What one run of a program cost and how it ended."""

    def __init__(self, argv, status, cpu, wall, rss_kib, threads, rss_timeline, stdout, stderr):
        self.argv = argv
        #: exit status (negative: killed by that signal)
        self.status = status
        #: user + sys CPU, seconds
        self.cpu = cpu
        #: wall time from spawn to reaping, seconds
        self.wall = wall
        #: peak resident set size, KiB (ru_maxrss)
        self.rss_kib = rss_kib
        #: most threads seen at once (sampled; 0 when the run was too short to see)
        self.threads = threads
        #: [(seconds since spawn, VmRSS KiB)] when asked for
        self.rss_timeline = rss_timeline
        self.stdout = stdout
        self.stderr = stderr

    def to_json(self):
        return {
            "argv": self.argv,
            "status": self.status,
            "cpu_s": round(self.cpu, 4),
            "wall_s": round(self.wall, 4),
            "peak_rss_kib": self.rss_kib,
            "threads": self.threads,
        }


class Failed(Exception):
    """A measured program exited with a status other than 0."""

    def __init__(self, run):
        tail = run.stderr.strip().splitlines()[-3:]
        super().__init__(
            "%s exited with %s%s" % (" ".join(run.argv), run.status, ": " + " | ".join(tail) if tail else "")
        )
        self.run = run


def _sample(pid, stop, interval, found, timeline, started):
    """Reads /proc/PID/status until stop is set: the most threads, and RSS over time."""
    path = "/proc/%d/status" % pid
    while not stop.is_set():
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            return
        for line in text.splitlines():
            if line.startswith("Threads:"):
                found[0] = max(found[0], int(line.split()[1]))
            elif timeline is not None and line.startswith("VmRSS:"):
                timeline.append((round(time.monotonic() - started, 3), int(line.split()[1])))
        stop.wait(interval)


def run(argv, cwd=None, env=None, timeout=600, timeline=False, interval=0.05):
    """Spawns argv, waits for it and returns a Run; stdout and stderr are kept in files meanwhile.

    posix_spawn keeps the parent's work between the two clock readings to one system call.
    A run longer than `timeout` seconds is killed (SIGKILL) and reported with status -9.
    """
    program = shutil.which(argv[0]) or argv[0]
    cwd = os.path.abspath(cwd or os.getcwd())
    out_path = os.path.join(cwd, ".bench-stdout")
    err_path = os.path.join(cwd, ".bench-stderr")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out_path, flags, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, err_path, flags, 0o644),
    ]
    saved = os.getcwd()
    os.chdir(cwd)
    try:
        started = time.monotonic()
        pid = os.posix_spawn(program, argv, env if env is not None else os.environ, file_actions=actions)
    finally:
        os.chdir(saved)
    stop = threading.Event()
    threads = [0]
    rss_timeline = [] if timeline else None
    sampler = threading.Thread(
        target=_sample, args=(pid, stop, interval, threads, rss_timeline, started), daemon=True
    )
    sampler.start()
    killer = threading.Timer(timeout, lambda: _kill(pid))
    killer.start()
    try:
        _, status, usage = os.wait4(pid, 0)
        wall = time.monotonic() - started
    finally:
        killer.cancel()
        stop.set()
        sampler.join()
    with open(out_path, errors="replace") as f:
        stdout = f.read()
    with open(err_path, errors="replace") as f:
        stderr = f.read()
    for path in (out_path, err_path):
        os.unlink(path)
    return Run(
        argv=list(argv),
        status=os.waitstatus_to_exitcode(status),
        cpu=usage.ru_utime + usage.ru_stime,
        wall=wall,
        rss_kib=usage.ru_maxrss,
        threads=threads[0],
        rss_timeline=rss_timeline,
        stdout=stdout,
        stderr=stderr,
    )


def _kill(pid):
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass


def checked(argv, **options):
    """run(), raising Failed unless the program exited 0."""
    result = run(argv, **options)
    if result.status != 0:
        raise Failed(result)
    return result


def summary(values):
    """Median, min and max of a list of numbers (None for an empty list)."""
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}
