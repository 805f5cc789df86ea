#!/usr/bin/env bash
# A single-planar camera in a pixel format FFmpeg 5.1's v4l2 input cannot capture (its
# -list_formats says "Unsupported": NV21, YVYU, NV16, big-endian Y16, 16-bit Bayer, RGB with an
# alpha bit) records through capture's own V4L2 reader: raw, each picture byte for byte what
# v4l2-ctl --stream-mmap --stream-to writes for the same mode. A format neither reader captures
# (VYUY: FFmpeg has no pixel format for it) is exit 69 naming both; one only the own reader
# captures is exit 69 with --v4l2-reader ffmpeg.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# timeout: 600
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d) # the guest's own memory: raw frames stay off the shared folder
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest
v4l2-ctl -d $cam -c osd_text_mode=2
# Tests in the same boot share the camera: its format goes back as it was found.
camera_format() { # as v4l2-ctl -v takes it
    v4l2-ctl -d $cam -V | awk -F"[:/']+" '/Width\/Height/ { w = $3 + 0; h = $4 + 0 } /Pixel Format/ { f = $3 }
        END { printf "width=%d,height=%d,pixelformat=%s", w, h, f }'
}
found=$(camera_format)

check_eq "probe: exit 0" 0 "$(run probe "$CAPTURE" probe --json $cam)"
# The driver's descriptions of the formats ffmpeg's v4l2 input cannot capture.
ffmpeg -hide_banner -f v4l2 -list_formats raw -i $cam 2>&1 |
    awk -F' : ' '$1 ~ /Raw *$/ { gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); if ($2 == "Unsupported") print $3 }' \
        >"$out/unsupported" || true
check "ffmpeg -list_formats: some formats unsupported ($(wc -l <"$out/unsupported"))" test -s "$out/unsupported"
# Of those, the ones capture records: fourcc (a space in it as _), FFmpeg name and code, one a line.
formats=$(json "$VM_OUT/probe.out" \
    "[f['fourcc'].replace(' ', '_') + ' ' + f['ffmpeg_name'] + ' ' + str(f['code']) for f in d['camera']['formats'] if f.get('ffmpeg_name') and f['description'] in open('$out/unsupported').read().splitlines()]")
count=$(wc -l <<<"$formats")
check "probe: they include NV21, YVYU, NV16, big-endian Y16 and BGGR16 ($count in all)" \
    bash -c "grep -q '^NV21 nv21 ' <<<'$formats' && grep -q '^YVYU yvyu422 ' <<<'$formats' \
        && grep -q '^NV16 yuv422p ' <<<'$formats' && grep -q '^Y16_-BE gray16be ' <<<'$formats' \
        && grep -q '^BYR2 bayer_bggr16le ' <<<'$formats'"

record_formats $cam "$out" "$formats"

rc=$(run vyuy "$CAPTURE" record --video $cam --input-format VYUY --frames 2 "$out/vyuy.nut")
check_eq "VYUY: exit 69" 69 "$rc"
check "VYUY: neither reader captures it" \
    grep -qF "$cam: neither capture's own V4L2 reader nor FFmpeg's v4l2 input can capture VYUY" "$VM_OUT/vyuy.err"
rc=$(run yvyu-ffmpeg "$CAPTURE" record --video $cam --input-format YVYU --v4l2-reader ffmpeg --frames 2 "$out/y.nut")
check_eq "YVYU through FFmpeg's reader: exit 69" 69 "$rc"
check "YVYU through FFmpeg's reader: it cannot capture it" \
    grep -qF "$cam: FFmpeg's v4l2 input cannot capture YVYU" "$VM_OUT/yvyu-ffmpeg.err"
check "no file" test ! -e "$out/vyuy.nut" -a ! -e "$out/y.nut"

v4l2-ctl -d $cam -c osd_text_mode=0
v4l2-ctl -d $cam -v "$found"
check_eq "the camera's format is as found" "$found" "$(camera_format)"
rm -rf "$out"
finish
