#!/usr/bin/env bash
# A multiplanar-only camera read by capture's own V4L2 reader: H.264 from the formats whose
# planes sit in separate buffers, with the right duration and frame count; frames the device
# loses counted exactly from its buffers' sequence numbers (frames_dropped.device), a wrapping
# sequence counter no loss; a buffer flagged V4L2_BUF_FLAG_ERROR counted corrupt, once; an
# unplugged camera ends the recording with exit 74 and a file that reads back; snapshot and
# controls work on it.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10 multiplanar=2
# timeout: 600
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)
"$CAPTURE" --version >/dev/null  # the first start under emulation is the slowest
shim=$(fault_shim)

# H.264: 2 s at 30 fps is 60 frames, each written or counted.
for fourcc in NM12 NM21 NM16 NM61 NV16 YM12 YM21 YM16 YM61 YM24 YM42 YUYV; do
    rc=$(run "h264-$fourcc" "$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --input-format $fourcc \
        --preset ultrafast --duration 2 --json "$out/$fourcc.mkv")
    check_eq "$fourcc to H.264: exit 0" 0 "$rc"
    [[ $rc == 0 ]] || continue
    check_eq "$fourcc to H.264: h264 320x180 yuv420p" $'h264\n320\n180\nyuv420p' \
        "$(value "$out/$fourcc.mkv" stream=codec_name,width,height,pix_fmt v:0)"
    dur=$(value "$out/$fourcc.mkv" format=duration)
    check "$fourcc to H.264: 2 s +- 0.1 ($dur)" near "$dur" 2 0.1
    written=$(json "$VM_OUT/h264-$fourcc.out" 'd["video"]["frames_written"]')
    dropped=$(json "$VM_OUT/h264-$fourcc.out" 'sum(d["video"]["frames_dropped"].values())')
    check_eq "$fourcc to H.264: the file holds the frames written" "$written" "$(packets "$out/$fourcc.mkv")"
    check "$fourcc to H.264: written + dropped is 60 +- 1 ($written + $dropped)" near $((written + dropped)) 60 1
    check "$fourcc to H.264: decodes cleanly" clean "$out/$fourcc.mkv"
    rm -f "$out/$fourcc.mkv"
done

# A buffer count of the user's: the fewest that stream (2, one with the driver, one with the
# recorder) still record every frame at this size; a count past the kernel's limit is a usage error.
rc=$(run buffers "$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --input-format NM12 --buffers 2 \
    --codec raw --duration 2 --json "$out/buffers.nut")
check_eq "--buffers 2: exit 0" 0 "$rc"
check "--buffers 2: written + dropped is 60 +- 1" near \
    "$(json "$VM_OUT/buffers.out" 'd["video"]["frames_written"] + sum(d["video"]["frames_dropped"].values())')" 60 1
check_eq "--buffers 33: exit 64" 64 "$(run buffers33 "$CAPTURE" record --video $cam --buffers 33 "$out/b33.nut")"
rm -f "$out/buffers.nut"

# The sequence gaps of the buffers the process dequeued, as the fault shim logged them (no fault,
# only the log): the numbers skipped before each buffer, modulo 2^32. The recording of one camera
# starts at its first buffer and lasts SECONDS on the buffers' clock; the reader dequeues on a
# little past the end, and the frames lost there are not the recording's. Prints the gaps before
# the buffers a frame interval or more inside the end (all the recording's), the same with those
# up to the first buffer past the end (the recording's at most), and the wraps of the counter.
log_gaps() { # LOG SECONDS FPS
    awk -v span="$2" -v fps="$3" '/ dqbuf [0-9]+ ok / {
            s = $5 + 0; t = $6 + 0
            if (!seen) t0 = t
            else if (!past) {
                d = s - last; if (d < 0) d += 4294967296
                g = d > 1 ? d - 1 : 0
                if (s < last) wraps++
                if ((t - t0) / 1e6 <= span - 1 / fps) inside += g
                else edge += g
                if ((t - t0) / 1e6 >= span) past = 1
            }
            last = s; seen = 1
        }
        END { print inside + 0, inside + edge, wraps + 0 }' "$1"
}

# vivid drops 30 % of its frames: the summary's device count is the sequence gaps, exactly.
v4l2-ctl -d $cam -c percentage_of_dropped_buffers=30
rm -f "$VM_OUT/drops.log"
rc=$(run drops env LD_PRELOAD="$shim" FAULT_DQBUF_LOG=1 FAULT_LOG="$VM_OUT/drops.log" \
    "$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --codec raw --duration 4 --json "$out/drops.nut")
v4l2-ctl -d $cam -c percentage_of_dropped_buffers=0
check_eq "30 % dropped: exit 0" 0 "$rc"
read -r gaps most _ < <(log_gaps "$VM_OUT/drops.log" 4 30)
device=$(json "$VM_OUT/drops.out" 'd["video"]["frames_dropped"].get("device")')
check "30 % dropped: the summary's device drops are the sequence gaps within the recording ($gaps to $most: $device)" \
    test "$device" -ge "$gaps" -a "$device" -le "$most"
check "30 % dropped: some were dropped ($gaps)" test "$gaps" -gt 10
check_eq "30 % dropped: no timing gaps beside them" 0 "$(json "$VM_OUT/drops.out" 'd["video"]["frames_dropped"]["gaps"]')"
check_eq "30 % dropped: the file holds the frames written" \
    "$(json "$VM_OUT/drops.out" 'd["video"]["frames_written"]')" "$(packets "$out/drops.nut")"
rm -f "$out/drops.nut"

# vivid's sequence counter wraps a few seconds in (it starts 128 short of 2^32): no loss from that.
v4l2-ctl -d $cam -c wrap_sequence_number=1
rm -f "$VM_OUT/wrap.log"
rc=$(run wrap env LD_PRELOAD="$shim" FAULT_DQBUF_LOG=1 FAULT_LOG="$VM_OUT/wrap.log" \
    "$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --codec raw --duration 6 --json "$out/wrap.nut")
v4l2-ctl -d $cam -c wrap_sequence_number=0
check_eq "sequence wrap: exit 0" 0 "$rc"
read -r gaps most wraps < <(log_gaps "$VM_OUT/wrap.log" 6 30)
check_eq "sequence wrap: the counter wrapped once" 1 "$wraps"
device=$(json "$VM_OUT/wrap.out" 'd["video"]["frames_dropped"].get("device")')
check "sequence wrap: the device drops are the gaps around it, not 2^32 ($gaps to $most: $device)" \
    test "$device" -ge "$gaps" -a "$device" -le "$most"
rm -f "$out/wrap.nut"

# One buffer flagged V4L2_BUF_FLAG_ERROR while recording: one corrupt frame.
"$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --codec raw --duration 4 --json "$out/error.nut" \
    >"$VM_OUT/error.out" 2>"$VM_OUT/error.err" &
pid=$!
appeared "$out/error.nut" >/dev/null || true
sleep 1
v4l2-ctl -d $cam -c inject_v4l2_buf_flag_error=1
rc=0
wait $pid || rc=$?
check_eq "error flag: exit 0" 0 "$rc"
check_eq "error flag: one corrupt frame" 1 "$(json "$VM_OUT/error.out" 'd["video"]["frames_dropped"]["corrupt"]')"
rm -f "$out/error.nut"

# A still and the controls work on the multiplanar camera too.
rc=$(run_for snapshot 90 "$CAPTURE" snapshot $cam "$out/still.png" --video-size 320x180 --json)
check_eq "snapshot: exit 0" 0 "$rc"
check_eq "snapshot: a 320x180 picture" $'png\n320\n180' "$(value "$out/still.png" stream=codec_name,width,height v:0)"
check_eq "controls: set brightness" 0 "$(run setctl "$CAPTURE" controls $cam --set brightness=100)"
check_eq "controls: the driver has it" "brightness: 100" "$(v4l2-ctl -d $cam -C brightness)"
v4l2-ctl -d $cam -c brightness=128

# Unplugged mid-recording: exit 74 within 3 s, the file finalized up to there.
"$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --preset ultrafast "$out/lost.mkv" \
    >"$VM_OUT/lost.out" 2>"$VM_OUT/lost.err" &
pid=$!
appeared "$out/lost.mkv" >/dev/null || true
sleep 2
v4l2-ctl -d $cam -c disconnect=1
unplugged=$(date +%s%N)
rc=0
wait $pid || rc=$?
check_eq "disconnect: exit 74" 74 "$rc"
check "disconnect: within 3 s ($(tenths_since "$unplugged") tenths)" test "$(tenths_since "$unplugged")" -le 30
check "disconnect: stderr says the device was lost" grep -q "^Error: $cam: the device was lost" "$VM_OUT/lost.err"
check "disconnect: the file reads back" test "$(value "$out/lost.mkv" format=duration | cut -d. -f1)" -ge 1
check "disconnect: the node is free again" v4l2-ctl -d $cam --stream-mmap --stream-count=3

rm -rf "$out"
finish
