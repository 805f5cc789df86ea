#!/usr/bin/env bash
# A compressed camera whose feed goes wrong mid-recording (v4l2loopback; issue 10): the producer
# stops (the node stays open and silent: a stall, exit 74 within --stall-timeout, the file
# finalized), or a new producer with another frame size takes over (v4l2loopback then delivers
# nothing more to the reader that negotiated the old size: a clear one-line error and exit 74, not
# a crash).
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: v4l2loopback devices=3 video_nr=30,31,32 exclusive_caps=1,1,1 card_label=loop30,loop31,loop32
# timeout: 150
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video32
out=$(mktemp -d)
trap 'loop_producer_stop $cam' EXIT
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

# The producer stops 3 s into the recording.
check "camera fed: mjpeg 320x180 15" loop_producer_start $cam mjpeg 320x180 15
"$CAPTURE" record --video $cam --codec h264 --preset ultrafast --stall-timeout 2 --duration 60 \
    "$out/stop.mkv" >"$VM_OUT/stop.out" 2>"$VM_OUT/stop.err" &
pid=$!
appeared "$out/stop.mkv" >/dev/null || true
sleep 3
loop_producer_stop $cam
stopped=$(date +%s%N)
wait_for $pid 30
took=$(tenths_since "$stopped")
check_eq "producer stops: exit 74" 74 "$vm_status"
check "producer stops: within the stall timeout + 3 s ($took tenths)" test "$took" -le 50
check "producer stops: stderr says the camera stalled" grep -q "^Error: $cam: .*stalled" "$VM_OUT/stop.err"
check_eq "producer stops: one line on stderr" 1 "$(wc -l <"$VM_OUT/stop.err")"
check_eq "producer stops: the file reads back" 0 "$(ffprobe -v error "$out/stop.mkv" >/dev/null 2>&1; echo $?)"
check "producer stops: with the 3 s before ($(value "$out/stop.mkv" format=duration) s)" \
    test "$(value "$out/stop.mkv" format=duration | cut -d. -f1)" -ge 2

# The node is free again: once the reader is gone, the next producer may choose its size.
# Then a producer restarted at 640x360 while the recording runs at 320x180.
check "camera fed: mjpeg 320x180 15" loop_producer_start $cam mjpeg 320x180 15
"$CAPTURE" record --video $cam --codec h264 --preset ultrafast --stall-timeout 2 --duration 60 \
    "$out/resize.mkv" >"$VM_OUT/resize.out" 2>"$VM_OUT/resize.err" &
pid=$!
appeared "$out/resize.mkv" >/dev/null || true
sleep 3
loop_producer_stop $cam
check "camera fed: mjpeg 640x360 15" loop_producer_start $cam mjpeg 640x360 15
wait_for $pid 30
loop_producer_stop $cam
check_eq "producer restarted at another size: exit 74" 74 "$vm_status"
check "producer restarted at another size: stderr names the camera" grep -q "^Error: $cam: " "$VM_OUT/resize.err"
check_eq "producer restarted at another size: one line on stderr" 1 "$(wc -l <"$VM_OUT/resize.err")"
check_eq "producer restarted at another size: the file reads back" 0 \
    "$(ffprobe -v error "$out/resize.mkv" >/dev/null 2>&1; echo $?)"
check "producer restarted at another size: with the 3 s before ($(value "$out/resize.mkv" format=duration) s)" \
    test "$(value "$out/resize.mkv" format=duration | cut -d. -f1)" -ge 2

rm -rf "$out"
finish
