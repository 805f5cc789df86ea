#!/usr/bin/env bash
# A multiplanar-only camera read by capture's own V4L2 reader, lost and found again: with
# --reconnect it is recorded on from where it comes back, and the frames missed while it was away
# (which no sequence number spans) are the summary's gaps beside the device's own losses; a camera
# that stops delivering ends the recording after the stall timeout with exit 74.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10 multiplanar=2
# timeout: 300
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

# vivid's disconnect control 3 s in; the node comes back once every handle is closed.
"$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --input-format NM12 --preset ultrafast \
    --duration 10 --reconnect --json "$out/disc.mkv" >"$VM_OUT/disc.out" 2>"$VM_OUT/disc.err" &
pid=$!
appeared "$out/disc.mkv" >/dev/null || true
sleep 3
v4l2-ctl -d $cam -c disconnect=1
rc=0
wait $pid || rc=$?
check_eq "disconnect with --reconnect: exit 0" 0 "$rc"
dur=$(value "$out/disc.mkv" format=duration)
check "disconnect with --reconnect: the file lasts 10 +- 0.5 s ($dur)" near "$dur" 10 0.5
check_eq "disconnect with --reconnect: 1 reconnect" 1 "$(json "$VM_OUT/disc.out" 'd["video"]["reconnects"]')"
missing=$(json "$VM_OUT/disc.out" '[e["frames_missing"] for e in events if e["event"] == "device_back"][0]')
check "disconnect with --reconnect: at least the half second before the camera opens again ($missing)" \
    test "$missing" -ge 13
check_eq "disconnect with --reconnect: the summary's gaps are the frames missed while away" "$missing" \
    "$(json "$VM_OUT/disc.out" 'd["video"]["frames_dropped"]["gaps"]')"
check "disconnect with --reconnect: the device's own losses are counted beside them" \
    test "$(json "$VM_OUT/disc.out" 'int("device" in d["video"]["frames_dropped"])')" = 1
check "disconnect with --reconnect: decodes without a message" clean "$out/disc.mkv"
check "disconnect with --reconnect: the node is free again" v4l2-ctl -d $cam --stream-mmap --stream-count=3

# A stall: vivid drops every buffer, so nothing arrives.
"$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --input-format NM12 --preset ultrafast \
    --stall-timeout 2 "$out/stall.mkv" >"$VM_OUT/stall.out" 2>"$VM_OUT/stall.err" &
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

rm -rf "$out"
finish
