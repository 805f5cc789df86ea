#!/usr/bin/env bash
# The H.264 encoder choice (issue 28) on a machine that has a DRM render node but no VA-API driver
# for it: vgem, the kernel's virtual GEM device, gives /dev/dri/renderD128. --encoder auto tries
# VA-API and Quick Sync there, says in one warning why neither opened, and records with x264, as
# the summary says; --encoder vaapi exits 69 naming the node and FFmpeg's reason, with no file;
# --encoder x264 tries nothing else and says nothing. The hardware encoders themselves need their
# hardware, which no guest has.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: vgem
# timeout: 150
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

check "vgem gives a render node" test -c /dev/dri/renderD128

options=(--video $cam --video-size 320x180 --framerate 30 --duration 2 --json)
check_eq "auto: exit 0" 0 "$(run_for auto 60 "$CAPTURE" record "${options[@]}" "$out/auto.mp4")"
check "auto: one warning names the node VA-API did not open on, and x264" \
    grep -qE "^Warning: $cam: h264_vaapi does not open on /dev/dri/renderD128 \(.*; recording with libx264$" \
    "$VM_OUT/auto.err"
check_eq "auto: one such warning" 1 "$(grep -c 'recording with libx264' "$VM_OUT/auto.err" || true)"
check_eq "auto: the summary names libx264" libx264 "$(json "$VM_OUT/auto.out" 'd["video"]["codec"]')"
check_eq "auto: H.264 320x180 in the file" $'h264\n320\n180' "$(value "$out/auto.mp4" stream=codec_name,width,height v:0)"
check "auto: decodes cleanly" clean "$out/auto.mp4"

check_eq "vaapi: exit 69" 69 "$(run_for vaapi 60 "$CAPTURE" record "${options[@]}" --encoder vaapi "$out/vaapi.mp4")"
check "vaapi: stderr names the encoder, the node and the way out" \
    grep -qE "^Error: h264_vaapi: does not open on /dev/dri/renderD128 \(.*\); --encoder x264 encodes in software$" \
    "$VM_OUT/vaapi.err"
check "vaapi: no file" test ! -e "$out/vaapi.mp4"

check_eq "x264: exit 0" 0 "$(run_for x264 60 "$CAPTURE" record "${options[@]}" --encoder x264 "$out/x264.mp4")"
check "x264: no word of other encoders" bash -c "! grep -q 'vaapi\|qsv' '$VM_OUT/x264.err'"
check_eq "x264: the summary names libx264" libx264 "$(json "$VM_OUT/x264.out" 'd["video"]["codec"]')"

finish
