#!/usr/bin/env bash
# A camera that goes away or stops delivering ends the recording honestly (C09 and the stall
# of issue 6): the file is finalized with what was captured, one line says what happened, exit 74;
# ffmpeg exits 0 on a disconnect and blocks forever on a stall.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# timeout: 180
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)
"$CAPTURE" --version >/dev/null  # the first start under emulation is the slowest

# C09: vivid's disconnect control acts like an unplug while the device is open. The recording
# starts when the file appears; 4 s later the camera goes. The fault library, with no fault, logs
# every buffer the camera delivered: the file must span them. (The file appears with the encoder's
# first packet, which on a busy guest comes a second or more after the first frame: its time is
# no measure of where the recording starts.)
shim=$(fault_shim)
rm -f "$VM_OUT/lost.log"
env LD_PRELOAD="$shim" FAULT_DQBUF_LOG=1 FAULT_LOG="$VM_OUT/lost.log" \
    "$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --preset ultrafast --json "$out/lost.mkv" \
    >"$VM_OUT/lost.out" 2>"$VM_OUT/lost.err" &
pid=$!
appeared "$out/lost.mkv" >/dev/null || true
sleep 4
v4l2-ctl -d $cam -c disconnect=1
unplugged=$(date +%s%N)
rc=0
wait $pid || rc=$?
took=$(tenths_since "$unplugged")
check_eq "C09: exit 74" 74 "$rc"
check "C09: within 3 s of the disconnect ($took tenths)" test "$took" -le 30
check "C09: stderr says the device was lost" grep -q "^Error: $cam: the device was lost" "$VM_OUT/lost.err"
check_eq "C09: one line on stderr" 1 "$(stderr_lines "$VM_OUT/lost.err")"
recorded=$(json "$VM_OUT/lost.out" 'd["duration"]')
check_eq "C09: the file reads back" 0 "$(ffprobe -v error "$out/lost.mkv" >/dev/null 2>&1; echo $?)"
dur=$(value "$out/lost.mkv" format=duration)
check "C09: its duration is what the summary says ($dur s, summary $recorded s)" near "$dur" "$recorded" 0.1
# From the first buffer's timestamp to the end of the last one's frame interval.
spanned=$(awk '/ dqbuf [0-9]+ ok / { if (!n++) first = $6; last = $6 } END { printf "%.3f", (last - first) / 1e6 + 1 / 30 }' \
    "$VM_OUT/lost.log")
check "C09: DUR spans what the camera delivered, +- 2 frames ($dur s, delivered $spanned s)" near "$dur" "$spanned" 0.07
ran_to=$(awk '/ dqbuf [0-9]+ ok / { last = $1 } END { print last }' "$VM_OUT/lost.log")
check "C09: the camera delivered until the disconnect (its last buffer $(((unplugged - ran_to) / 1000000)) ms before)" \
    test $((unplugged - ran_to)) -le 1000000000
check "C09: decodes without a message" clean "$out/lost.mkv"
check "C09: the node is free again" v4l2-ctl -d $cam --stream-mmap --stream-count=3

# A stall: vivid drops every buffer, so the reader blocks and nothing arrives.
"$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --preset ultrafast --stall-timeout 2 \
    "$out/stall.mkv" >"$VM_OUT/stall.out" 2>"$VM_OUT/stall.err" &
pid=$!
appeared "$out/stall.mkv" >/dev/null || true
sleep 2
v4l2-ctl -d $cam -c percentage_of_dropped_buffers=100
stalled=$(date +%s%N)
rc=0
wait $pid || rc=$?
took=$(tenths_since "$stalled")
v4l2-ctl -d $cam -c percentage_of_dropped_buffers=0
check_eq "stall: exit 74" 74 "$rc"
check "stall: within the stall timeout + 3 s ($took tenths)" test "$took" -le 50
check "stall: stderr says the device stalled" grep -q "^Error: $cam: no data for 2 s; the device stalled" "$VM_OUT/stall.err"
check "stall: the file reads back with what came before" test "$(value "$out/stall.mkv" format=duration | cut -d. -f1)" -ge 1
check "stall: the node is free again" v4l2-ctl -d $cam --stream-mmap --stream-count=3

# SIGINT while the camera stalls (a long stall timeout, so only the signal can end it): the
# recorder does not wait for the blocked read; it finalizes what it has and exits 0.
"$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --preset ultrafast --stall-timeout 60 \
    "$out/stall-int.mkv" >"$VM_OUT/stall-int.out" 2>"$VM_OUT/stall-int.err" &
pid=$!
appeared "$out/stall-int.mkv" >/dev/null || true
sleep 2
v4l2-ctl -d $cam -c percentage_of_dropped_buffers=100
sleep 2
kill -INT $pid
signalled=$(date +%s%N)
rc=0
wait $pid || rc=$?
took=$(tenths_since "$signalled")
v4l2-ctl -d $cam -c percentage_of_dropped_buffers=0
check_eq "SIGINT during a stall: exit 0" 0 "$rc"
check "SIGINT during a stall: within 3 s ($took tenths)" test "$took" -le 30
check_eq "SIGINT during a stall: the file reads back" 0 "$(ffprobe -v error "$out/stall-int.mkv" >/dev/null 2>&1; echo $?)"
check "SIGINT during a stall: with what came before ($(value "$out/stall-int.mkv" format=duration) s)" \
    test "$(value "$out/stall-int.mkv" format=duration | cut -d. -f1)" -ge 1
check "SIGINT during a stall: the node is free again" v4l2-ctl -d $cam --stream-mmap --stream-count=3

rm -rf "$out"
finish
