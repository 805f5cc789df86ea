#!/usr/bin/env bash
# Issue 24's true skew, from content: one producer writes the same frames to two v4l2loopback
# nodes at once, each frame carrying its number in its brightness (luma 16 + n % 200); capture
# records both into one file, and the frames of one number must line up across the two tracks
# within one frame interval, as must the frame phase capture reports for the second camera against
# the skew measured from the file (the median of the matched frames' differences).
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: v4l2loopback devices=4 video_nr=30,31,32,33 exclusive_caps=1,1,1,1 card_label=loop30,loop31,loop32,loop33
# timeout: 180
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

a=/dev/video30
b=/dev/video31
out=$(mktemp -d)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

# The writer: 64x48 YUYV frames, frame n all of luma 16 + n % 200 (unique within any 6 s), written
# to both nodes one right after the other, paced at 30 fps; it logs each frame's number and when
# it was written to each node (the guest's one CPU may run something else between the two).
twin_writer='
import fcntl, os, signal, struct, sys, time
w, h, rate = 64, 48, 30.0
fds = []
for node in sys.argv[1:3]:
    fd = os.open(node, os.O_RDWR)
    pix = struct.pack("=12I", w, h, struct.unpack("<I", b"YUYV")[0], 1, w * 2, w * h * 2, 0, 0, 0, 0, 0, 0)
    fcntl.ioctl(fd, 0xC0D05605, struct.pack("=I4x", 2) + pix.ljust(200, b"\0"))  # VIDIOC_S_FMT
    fds.append(fd)
log = []
def flush(*_):
    sys.stdout.write("".join(log))
    sys.stdout.flush()
    os._exit(0)
signal.signal(signal.SIGTERM, flush)
t0 = time.monotonic()
for n in range(900):
    frame = bytes([16 + n % 200, 128, 16 + n % 200, 128]) * (w * h // 2)
    written = []
    for fd in fds:
        os.write(fd, frame)
        written.append(time.monotonic())
    log.append("%d %.6f %.6f\n" % (n % 200, written[0], written[1]))
    time.sleep(max(0.0, t0 + (n + 1) / rate - time.monotonic()))
flush()
'
loop_reset $a
loop_reset $b
"$VM_PYTHON" -I -S -c "$twin_writer" $a $b >"$VM_OUT/twin-writer.log" 2>&1 &
writer=$!
trap 'kill -TERM $writer 2>/dev/null || true; wait $writer 2>/dev/null || true; loop_reset $a || true; loop_reset $b || true' EXIT
check "the first node is a YUYV camera" loop_wait_capture $a YUYV
check "the second node is a YUYV camera" loop_wait_capture $b YUYV

rc=$(run_for twin 60 "$CAPTURE" record --video $a --video $b --codec raw --duration 3 --json "$out/twin.nut")
check_eq "two loopback cameras into one .nut: exit 0" 0 "$rc"
[[ $rc == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/twin.err"

# The writer writes its log as it ends.
kill -TERM $writer 2>/dev/null || true
wait $writer 2>/dev/null || true

# Each track's frames: (frame number from the luma, pts in seconds).
for index in 0 1; do
    ffprobe -v error -f lavfi -i "movie=$out/twin.nut:si=$index,signalstats" \
        -show_entries frame=pts_time:frame_tags=lavfi.signalstats.YAVG -of csv=p=0 >"$VM_OUT/track$index.csv" || true
done
measure='
import json, statistics, sys
def frames(path):
    found = {}
    for line in open(path):
        fields = line.strip().split(",")
        if len(fields) == 2:
            found.setdefault(round(float(fields[1])) - 16, float(fields[0]))
    return found
a, b = frames(sys.argv[1]), frames(sys.argv[2])
# What the producer did, for the record: how much later each number reached the second node
# (its last writing of that number, as the recording holds the latest frames of the writer).
sent = {}
for line in open(sys.argv[4]):
    fields = line.split()
    if len(fields) == 3:
        sent[int(fields[0])] = float(fields[2]) - float(fields[1])
both = sorted(set(a) & set(b) & set(sent))
gaps = [b[n] - a[n] for n in both]
summary = json.load(open(sys.argv[3]))
phase = summary["cameras"][1].get("frame_phase")
print(len(both), "%.4f" % max(abs(g) for g in gaps) if gaps else "nan",
      "%.4f" % statistics.median(gaps) if gaps else "nan", "none" if phase is None else "%.4f" % (phase / 1000),
      "%.4f" % max(abs(sent[n]) for n in both) if both else "nan")
'
read -r matched worst measured reported written < <("$VM_PYTHON" -I -S -c "$measure" "$VM_OUT/track0.csv" "$VM_OUT/track1.csv" \
    "$VM_OUT/twin.out" "$VM_OUT/twin-writer.log" 2>"$VM_OUT/measure.err" || echo "0 nan nan none nan")
[[ $matched -gt 0 ]] || sed 's/^/  measure: /' "$VM_OUT/measure.err"
# 3 s at 30 fps: about 90 frames in each track, all but the edges in both.
check "frames of the same number in both tracks ($matched)" test "$matched" -ge 80
# One frame interval, and a millisecond for the timestamps' rounding to the file's time base.
interval=0.0343
check "the same frame lines up across the tracks within one frame interval (worst $worst s apart; written up to $written s apart)" \
    near "$worst" 0 "$interval"
check "capture reports a frame phase for the second camera ($reported s)" test "$reported" != none
if [[ $reported != none ]]; then
    check "the reported phase ($reported s) agrees with the measured skew ($measured s) within one frame interval" \
        near "$reported" "$measured" "$interval"
fi
finish
