#!/usr/bin/env bash
# A compressed camera whose feed goes wrong mid-recording (v4l2loopback; issue 10): the producer
# stops (the node stays open and silent: a stall, exit 74 within --stall-timeout, the file
# finalized), or a new producer with another frame size takes over (v4l2loopback then delivers
# nothing more to the reader that negotiated the old size: a clear one-line error and exit 74, not
# a crash). An H.264 camera that sends only bytes with no picture in them stalls like a silent one
# (exit 74 within --stall-timeout, no file), and SIGINT ends the wait for its first keyframe.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: v4l2loopback devices=4 video_nr=30,31,32,33 exclusive_caps=1,1,1,1 card_label=loop30,loop31,loop32,loop33
# timeout: 240
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
check_eq "producer stops: one line on stderr" 1 "$(stderr_lines "$VM_OUT/stop.err")"
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
check_eq "producer restarted at another size: one line on stderr" 1 "$(stderr_lines "$VM_OUT/resize.err")"
check_eq "producer restarted at another size: the file reads back" 0 \
    "$(ffprobe -v error "$out/resize.mkv" >/dev/null 2>&1; echo $?)"
check "producer restarted at another size: with the 3 s before ($(value "$out/resize.mkv" format=duration) s)" \
    test "$(value "$out/resize.mkv" format=duration | cut -d. -f1)" -ge 2

# Waits up to 20 s for PID to hold NODE open (start-up under emulation takes seconds; a signal
# that comes before the recorder set up its handlers meets the SIG_IGN a background job starts with).
holds() { # PID NODE
    for _ in $(seq 200); do
        [[ $(readlink /proc/$1/fd/* 2>/dev/null) == *"$2"* ]] && return 0
        sleep 0.1
    done
    return 1
}

# Only garbage from an H.264 camera: FFmpeg's parser finds no picture to hand out at all.
check "camera fed: h264 garbage" loop_write_frames $cam h264 320x180 15 garbage:900
"$CAPTURE" record --video $cam --codec copy --stall-timeout 2 --duration 10 "$out/h264-garbage.mkv" \
    >"$VM_OUT/h264-garbage.out" 2>"$VM_OUT/h264-garbage.err" &
pid=$!
holds $pid $cam || true
opened=$(date +%s%N)
wait_for $pid 30
took=$(tenths_since "$opened")
check_eq "h264 garbage: exit 74" 74 "$vm_status"
check "h264 garbage: within the stall timeout + 3 s of opening the camera ($took tenths)" test "$took" -le 50
check_eq "h264 garbage: the stall on stderr" \
    "Error: $cam: no usable frame for 2 s; the device stalled. Nothing was recorded; no file was written" \
    "$(cat "$VM_OUT/h264-garbage.err")"
check "h264 garbage: no file" test ! -e "$out/h264-garbage.mkv"

# SIGINT while waiting for its first keyframe.
"$CAPTURE" record --video $cam --codec copy --stall-timeout 60 "$out/h264-int.mkv" \
    >"$VM_OUT/h264-int.out" 2>"$VM_OUT/h264-int.err" &
pid=$!
holds $pid $cam || true
sleep 2
kill -INT $pid
signalled=$(date +%s%N)
wait_for $pid 20
took=$(tenths_since "$signalled")
loop_producer_stop $cam
check_eq "h264 garbage, SIGINT: exit 0" 0 "$vm_status"
check "h264 garbage, SIGINT: ends within 3 s ($took tenths)" test "$took" -le 30
check "h264 garbage, SIGINT: says it stopped before the first frame" \
    grep -q "stopped by SIGINT before the first frame" "$VM_OUT/h264-int.err"
check "h264 garbage, SIGINT: no file" test ! -e "$out/h264-int.mkv"

rm -rf "$out"
finish
