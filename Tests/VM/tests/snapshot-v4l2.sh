#!/usr/bin/env bash
# capture snapshot on real drivers (issue 14): vivid's webcam at the largest size it lists by
# default, read back by ffprobe; an MJPEG camera (v4l2loopback) whose frame goes to .jpg as it
# came (mjpeg2jpeg), byte sizes and markers checked, and to .png decoded; --wait for a camera whose
# driver binds 3 s after the start (vivid unbound and bound again through sysfs).
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: v4l2loopback devices=3 video_nr=30,31,32 exclusive_caps=1,1,1 card_label=loop30,loop31,loop32
# timeout: 300
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
loop=/dev/video30
out=$(mktemp -d)
trap 'loop_producer_stop $loop' EXIT
has_marker() { # FILE HEX: the JPEG holds the marker (ffc4: Huffman tables)
    "$VM_PYTHON" -I -S -c "import sys; sys.exit(bytes.fromhex('$2') not in open('$1','rb').read())"
}
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

# The largest size the webcam lists, from v4l2-ctl, for the format capture chooses there.
largest=$(v4l2-ctl -d $cam --list-formats-ext | awk '/Size: Discrete/ {split($3, a, "x"); if (a[1] * a[2] > best) {best = a[1] * a[2]; size = $3}} END {print size}')
rc=$(run_for largest 90 "$CAPTURE" snapshot $cam "$out/largest.pgm" --json)
check_eq "vivid to .pgm: exit 0" 0 "$rc"
[[ $rc == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/largest.err"
check_eq "vivid: taken at the largest size listed" "$largest" "$(value "$out/largest.pgm" stream=width v:0)x$(value "$out/largest.pgm" stream=height v:0)"
check_eq "vivid: a PGM" "pgm" "$(value "$out/largest.pgm" stream=codec_name v:0)"
if json_has "$VM_OUT/largest.out" stills; then
    # To the millisecond, as the settling counts it: a camera's frame times jitter by microseconds
    # (a frame one period after another came at 0.99996 s).
    check "vivid: settled at least 1 s of the camera's time" \
        "$VM_PYTHON" -I -S -c "import json,sys; sys.exit(json.load(open('$VM_OUT/largest.out'))['stills'][0]['time'] < 0.999)"
fi

rc=$(run_for sized 60 "$CAPTURE" snapshot $cam "$out/sized.jpg" --video-size 640x360 --skip 0 --json)
check_eq "vivid 640x360 to .jpg: exit 0" 0 "$rc"
check_eq "vivid 640x360 to .jpg: size" "640x360" "$(value "$out/sized.jpg" stream=width v:0)x$(value "$out/sized.jpg" stream=height v:0)"
check_eq "vivid to .jpg: encoded, not copied" "false" "$(json "$VM_OUT/sized.out" 'd["stills"][0]["copied"]')"
check "vivid to .jpg: decodes cleanly" clean "$out/sized.jpg"

# A busy camera: held by a recording, the snapshot is refused with 75.
"$CAPTURE" record --video $cam --video-size 640x360 --codec raw --duration 20 "$out/hold.nut" >/dev/null 2>&1 &
holder=$!
sleep 6
rc=$(run_for busy 60 "$CAPTURE" snapshot $cam "$out/busy.png" --video-size 640x360)
check_eq "busy camera: exit 75" 75 "$rc"
check "busy camera: no picture" test ! -e "$out/busy.png"
kill -INT $holder 2>/dev/null || true
wait_for $holder 30

# An MJPEG camera: the frame is written as it came, made whole by mjpeg2jpeg.
check "camera fed: mjpeg 320x180 15" loop_producer_start $loop mjpeg 320x180 15
rc=$(run_for mjpeg 60 "$CAPTURE" snapshot $loop "$out/m.jpg" --json)
check_eq "MJPEG to .jpg: exit 0" 0 "$rc"
[[ $rc == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/mjpeg.err"
check_eq "MJPEG to .jpg: copied" "true" "$(json "$VM_OUT/mjpeg.out" 'd["stills"][0]["copied"]')"
check_eq "MJPEG to .jpg: 320x180 mjpeg" "mjpeg 320x180" \
    "$(value "$out/m.jpg" stream=codec_name v:0) $(value "$out/m.jpg" stream=width v:0)x$(value "$out/m.jpg" stream=height v:0)"
check "MJPEG to .jpg: decodes cleanly" clean "$out/m.jpg"
check "MJPEG to .jpg: holds Huffman tables" has_marker "$out/m.jpg" ffc4
rc=$(run_for mjpeg-png 60 "$CAPTURE" snapshot $loop "$out/m.png" --skip 0 --json)
check_eq "MJPEG to .png: exit 0" 0 "$rc"
check_eq "MJPEG to .png: decoded" "png false" "$(value "$out/m.png" stream=codec_name v:0) $(json "$VM_OUT/mjpeg-png.out" 'd["stills"][0]["copied"]')"
rc=$(run_for mjpeg-count 60 "$CAPTURE" snapshot $loop "$out/series.jpg" --skip 0 --count 3 --interval 0.5 --json)
check_eq "MJPEG, --count 3: exit 0" 0 "$rc"
check_eq "MJPEG, --count 3: three numbered files" "series-0001.jpg series-0002.jpg series-0003.jpg" "$(cd "$out" && echo series-*.jpg)"
loop_producer_stop $loop

# A camera that leaves the Huffman tables out, as many UVC cameras do: JPEGs made with the
# standard tables (-huffman default) and their DHT segments cut out, fed buffer by buffer. The
# still must come out with the tables put in.
# The folder loop_write_frames plays for these arguments (mjpeg, 352x288, 15 fps, 30 frames).
frames=$VM_OUT/frames-mjpeg-352x288-15-30
mkdir -p "$frames.full" "$frames"
ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=352x288:rate=15 -frames:v 30 -c:v mjpeg -q:v 5 \
    -huffman default -f image2 "$frames.full/%03d.jpg"
"$VM_PYTHON" -I -S -c '
import os, sys
source, target = sys.argv[1:3]
for name in sorted(os.listdir(source)):
    data = open(os.path.join(source, name), "rb").read()
    out, i = bytearray(data[:2]), 2
    while i < len(data):
        marker = data[i + 1]
        if marker == 0xDA:
            out += data[i:]
            break
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if marker != 0xC4:
            out += data[i:i + 2 + length]
        i += 2 + length
    open(os.path.join(target, name), "wb").write(out)
' "$frames.full" "$frames"
lacks_marker() { ! has_marker "$@"; }
check "the camera's JPEGs lack Huffman tables" lacks_marker "$frames/001.jpg" ffc4
check "camera fed: Huffman-less JPEGs 352x288 15" loop_write_frames $loop mjpeg 352x288 15 good:900
rc=$(run_for bare 60 "$CAPTURE" snapshot $loop "$out/bare.jpg" --json)
check_eq "Huffman-less MJPEG to .jpg: exit 0" 0 "$rc"
[[ $rc == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/bare.err"
check_eq "Huffman-less MJPEG to .jpg: copied" "true" "$(json "$VM_OUT/bare.out" 'd["stills"][0]["copied"]')"
check "Huffman-less MJPEG to .jpg: the tables put in" has_marker "$out/bare.jpg" ffc4
check "Huffman-less MJPEG to .jpg: decodes cleanly" clean "$out/bare.jpg"
loop_producer_stop $loop

# --wait: the camera's driver is unbound, capture starts, the driver binds again 3 s later.
device=$(basename "$(readlink -f /sys/class/video4linux/video10/device)")
echo "$device" >/sys/bus/platform/drivers/vivid/unbind
check "vivid unbound: no node" test ! -e $cam
started=$(date +%s)
"$CAPTURE" snapshot --wait=120 $cam "$out/waited.png" --video-size 640x360 --skip 0 >"$VM_OUT/wait.out" 2>"$VM_OUT/wait.err" &
waiter=$!
# Loading capture under emulation takes seconds of its own: the 3 s count from its first line.
for _ in $(seq 300); do
    grep -q "Waiting for camera" "$VM_OUT/wait.err" 2>/dev/null && break
    sleep 0.1
done
sleep 3
check "still waiting after 3 s" kill -0 $waiter
echo "$device" >/sys/bus/platform/drivers/vivid/bind
wait_for $waiter 90
check_eq "--wait: exit 0 once the camera is there" 0 "$vm_status"
[[ $vm_status == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/wait.err"
check "--wait: said what it waited for" grep -q "Waiting for camera $cam" "$VM_OUT/wait.err"
check "--wait: said when it came" grep -q "camera $cam is there" "$VM_OUT/wait.err"
check "--wait: the picture" test -s "$out/waited.png"
check "--wait: took at least the 3 s" test $(( $(date +%s) - started )) -ge 3
finish
