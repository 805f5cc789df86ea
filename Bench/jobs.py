"""The host jobs of the benchmark: each one as a `capture` command and the ffmpeg command that
does the same work, with the files to compare and the targets from issues 7 and 16.

The sources are lavfi graphs without `realtime`, so both tools run as fast as they can and what is
measured is the tool's own cost. Both sides read the same graph and encode with the same x264
settings (preset, crf, keyint, b-frames; the benchmark compares the whole option string x264
writes into the file) and let x264 pick its thread count ("auto"). They differ in one thing, by
each tool's default: capture runs x264 with sliced threads (lower latency and memory for live
capture), ffmpeg with frame threads. The report says so, and job 1 also measures ffmpeg with
sliced threads ("ffmpeg sliced") so the same layout can be read side by side.
"""

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]

VIDEO_720P = "testsrc2=size=1280x720:rate=30"
SINE = "sine=frequency=440:sample_rate=48000"
# A flat colour costs next to nothing to generate, so the raw job shows the tool's own overhead;
# 900 frames of 1080p (2.8 GB) make it last long enough for a stable ratio.
COLOR_1080P = "color=c=gray:size=1920x1080:rate=30"
RAW_FRAMES = "900"
# Job 13's source, in the scratch folder.
MJPEG_1080P = "mjpeg-1080p.mkv"

# capture keeps a keyframe at least every 2 s (issue 5); ffmpeg gets the same GOP so both
# encoders do the same work.
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", "60", "-pix_fmt", "yuv420p", "-threads", "0"]


class Target:
    """A limit on a median ratio capture/ffmpeg: `metric` is cpu, wall or rss; or, for
    rss_mib, on the median difference capture - ffmpeg of peak RSS in MiB."""

    def __init__(self, metric, limit, text):
        self.metric = metric
        self.limit = limit
        self.text = text


class Side:
    """One way of doing a job: one or more commands whose costs add up (CPU and wall summed,
    peak RSS and threads the largest), and the file they write, if any."""

    def __init__(self, name, commands, output=None):
        self.name = name
        self.commands = commands
        self.output = output


class Job:
    """A job done by capture (sides[0]) and by ffmpeg (sides[1]); further sides are references
    measured in the same rounds but not compared."""

    def __init__(self, key, label, title, sides, targets, check_files=True, compare_threads=True, on_disk=False):
        self.key = key
        #: a few words for the table
        self.label = label
        self.title = title
        self.sides = sides
        self.targets = targets
        self.check_files = check_files
        self.compare_threads = compare_threads
        #: the files go to a folder on disk rather than in memory
        self.on_disk = on_disk


def raw_job(key, label, where, record, on_disk):
    """Job 3 (memory) or 3d (disk): raw 1080p frames to .nut, the tool's own overhead per byte."""
    return Job(
        key,
        label,
        "raw 1920x1080 yuv420p (lavfi color), %s frames -> .nut (2.8 GB) %s" % (RAW_FRAMES, where),
        [
            Side("capture", [record + ["--video", "lavfi:" + COLOR_1080P, "--frames", RAW_FRAMES,
                                       "--codec", "raw", "capture.nut"]], "capture.nut"),
            Side("ffmpeg", [FFMPEG + ["-f", "lavfi", "-i", COLOR_1080P, "-frames:v", RAW_FRAMES,
                                      "-c:v", "rawvideo", "ffmpeg.nut"]], "ffmpeg.nut"),
        ],
        [Target("cpu", 0.80, "CPU ratio <= 0.80")] if not on_disk else [],
        on_disk=on_disk,
    )


def host_jobs(capture, libload, swiftfloor=None, baseline=None):
    """Jobs 1 to 4 and 4v. `capture` is the binary to measure; `libload` and `swiftfloor` the floor
    programs in C and in Swift (or None)."""
    record = [capture, "record", "--force", "--quiet"]
    jobs = [
        Job(
            "1",
            "H.264 .mp4",
            "H.264 1280x720 30 fps, 300 frames -> .mp4 (veryfast, crf 23)",
            [
                Side("capture", [record + ["--video", "lavfi:" + VIDEO_720P, "--frames", "300",
                                           "--codec", "h264", "--preset", "veryfast", "--crf", "23",
                                           "capture.mp4"]], "capture.mp4"),
                Side("ffmpeg", [FFMPEG + ["-f", "lavfi", "-i", VIDEO_720P, "-frames:v", "300"] + X264
                                + ["ffmpeg.mp4"]], "ffmpeg.mp4"),
                Side("ffmpeg sliced", [FFMPEG + ["-f", "lavfi", "-i", VIDEO_720P, "-frames:v", "300"] + X264
                                       + ["-x264-params", "sliced-threads=1", "ffmpeg-sliced.mp4"]],
                     "ffmpeg-sliced.mp4"),
            ],
            [Target("cpu", 0.97, "CPU ratio <= 0.97"), Target("rss", 0.85, "peak RSS ratio <= 0.85")],
        ),
        Job(
            "2",
            "H.264+AAC .mp4",
            "job 1 + 48 kHz stereo sine -> AAC 128 kb/s, 10 s",
            [
                Side("capture", [record + ["--video", "lavfi:" + VIDEO_720P, "--frames", "300",
                                           "--codec", "h264", "--preset", "veryfast", "--crf", "23",
                                           "--audio", "lavfi:" + SINE, "--channels", "2",
                                           "--audio-codec", "aac", "capture.mp4"]], "capture.mp4"),
                # -t rather than -frames:v: ffmpeg ends every stream when the video count is
                # reached, which would cut the audio short.
                Side("ffmpeg", [FFMPEG + ["-f", "lavfi", "-i", VIDEO_720P, "-f", "lavfi", "-i", SINE,
                                          "-map", "0:v", "-map", "1:a", "-t", "10"] + X264
                                + ["-c:a", "aac", "-b:a", "128k", "-ac", "2", "ffmpeg.mp4"]], "ffmpeg.mp4"),
            ],
            [],
        ),
        raw_job("3", "raw .nut memory", "to memory", record, on_disk=False),
        raw_job("3d", "raw .nut disk", "to disk", record, on_disk=True),
    ]
    references = [
        Side("capture --version", [[capture, "--version"]]),
        Side("ffmpeg -version", [["ffmpeg", "-hide_banner", "-version"]]),
    ]
    if libload:
        references.append(Side("libav* load only", [[libload]]))
    jobs.append(
        Job(
            "4",
            "list devices",
            "list devices: capture list --json / ffmpeg -sources v4l2 + -sources alsa",
            [
                Side("capture", [[capture, "list", "--json"]]),
                Side("ffmpeg", [["ffmpeg", "-hide_banner", "-sources", "v4l2"],
                                ["ffmpeg", "-hide_banner", "-sources", "alsa"]]),
            ] + references,
            [Target("wall", 1.0, "wall ratio <= 1.00")],
            check_files=False,
            compare_threads=False,
        )
    )
    # The cost of starting at all: the runtime and libraries each tool maps before doing anything.
    # The floors show what of it is the language's: libav* loaded from C, and from Swift with the
    # static standard library and FoundationEssentials, as capture is built.
    floors = []
    if libload:
        floors.append(Side("libav* load only", [[libload]]))
    if swiftfloor:
        floors.append(Side("Swift floor", [[swiftfloor]]))
    jobs.append(
        Job(
            "4v",
            "start-up",
            "start-up: capture --version / ffmpeg -version",
            [
                Side("capture", [[capture, "--version"]]),
                Side("ffmpeg", [["ffmpeg", "-hide_banner", "-version"]]),
            ] + floors,
            [Target("rss_mib", 5.0, "capture --version peak RSS <= ffmpeg -version + 5 MiB")],
            check_files=False,
            compare_threads=False,
        )
    )
    # Audio levels (issue 25): ten minutes of 48 kHz stereo decoded and measured, peak and RMS per
    # channel, against ffmpeg's astats filter doing the same and more; what a recording pays for
    # its meter, which it always runs.
    levels = "sine=frequency=1000:sample_rate=48000,pan=stereo|c0=c0|c1=0.5*c0"
    jobs.append(
        Job(
            "11",
            "audio levels",
            "audio levels of 600 s of 48 kHz stereo: capture meter / ffmpeg -af astats",
            [
                Side("capture", [[capture, "meter", "lavfi:" + levels, "--duration", "600", "--interval", "1",
                                  "--quiet"]]),
                Side("ffmpeg", [FFMPEG + ["-f", "lavfi", "-i", levels, "-t", "600", "-af",
                                          "astats=measure_perchannel=Peak_level+RMS_level:measure_overall=none",
                                          "-f", "null", "-"]]),
            ],
            [Target("cpu", 1.0, "CPU ratio <= 1.00")],
            check_files=False,
            compare_threads=False,
        )
    )
    # MJPEG to H.264 (issue 28): a webcam's 1080p 4:2:2 JPEGs (MJPEG_1080P, made by bench.py),
    # decoded in the tool's own process (lavfi's movie source for capture, ffmpeg's decoder for
    # ffmpeg: the same libavcodec decoder), converted to 4:2:0 and encoded with x264 ultrafast.
    # ffmpeg gets the usual -pix_fmt yuv420p, which converts the range too; "ffmpeg full range"
    # keeps it, as capture does, for reference.
    ultrafast = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-g", "60", "-threads", "0"]
    mjpeg_args = ["--video", "lavfi:movie=" + MJPEG_1080P, "--frames", "300", "--preset", "ultrafast", "--crf", "23"]
    # `--baseline`: an earlier capture binary on the same job in the same rounds (issue 28's
    # "against today's binary"), with its own ratio, capture/baseline per round.
    mjpeg_baseline = (
        [Side("capture baseline", [[baseline, "record", "--force", "--quiet"] + mjpeg_args + ["baseline.mp4"]],
              "baseline.mp4")]
        if baseline else [])
    jobs.append(
        Job(
            "13",
            "MJPEG->H.264",
            "MJPEG 1920x1080 4:2:2, 300 frames, decoded -> H.264 ultrafast .mp4",
            [
                Side("capture", [record + mjpeg_args + ["capture.mp4"]], "capture.mp4"),
                Side("ffmpeg", [FFMPEG + ["-i", MJPEG_1080P, "-frames:v", "300"] + ultrafast
                                + ["-pix_fmt", "yuv420p", "ffmpeg.mp4"]], "ffmpeg.mp4"),
                Side("ffmpeg full range", [FFMPEG + ["-i", MJPEG_1080P, "-frames:v", "300"] + ultrafast
                                           + ["-vf", "scale=out_range=full,format=yuvj420p", "ffmpeg-full.mp4"]],
                     "ffmpeg-full.mp4"),
            ] + mjpeg_baseline,
            [Target("cpu", 1.0, "CPU ratio <= 1.00")]
            + ([Target("baseline_cpu", 0.75, "CPU against the baseline binary <= 0.75")] if baseline else []),
            check_files=False,
        )
    )
    return jobs


def make_mjpeg_source(folder):
    """Writes MJPEG_1080P into `folder`: 10 s of a moving test picture as a webcam's JPEGs."""
    import subprocess
    subprocess.run(FFMPEG + ["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-t", "10", "-pix_fmt",
                             "yuvj422p", "-c:v", "mjpeg", "-q:v", "4", MJPEG_1080P], cwd=folder, check=True)
