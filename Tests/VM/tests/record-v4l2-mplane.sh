#!/usr/bin/env bash
# A camera that captures through the multiplanar API only (most ARM boards' cameras and HDMI
# bridges; FFmpeg 5.1's v4l2 input refuses them) records through capture's own V4L2 reader: raw,
# every pixel format vivid offers there that FFmpeg stores (NV12M and the other formats whose
# planes sit in separate buffers included), each picture byte for byte what v4l2-ctl
# --stream-mmap --stream-to writes for the same mode. vivid's picture is held still (no text
# overlay, no movement), so any one frame stands for all and the comparison does not depend on
# which frame either program caught. probe shows the memory planes and the buffer counts.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10 multiplanar=2
# timeout: 600
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)  # the guest's own memory: raw frames stay off the shared folder
"$CAPTURE" --version >/dev/null  # the first start under emulation is the slowest
v4l2-ctl -d $cam -c osd_text_mode=2

check_eq "probe: exit 0" 0 "$(run probe "$CAPTURE" probe --json $cam)"
# fourcc (a space in it as _) and FFmpeg name of each format capture records, one pair a line.
formats=$(json "$VM_OUT/probe.out" \
    "[f['fourcc'].replace(' ', '_') + ' ' + f['ffmpeg_name'] for f in d['camera']['formats'] if f.get('ffmpeg_name')]")
count=$(wc -l <<<"$formats")
check "probe: the recordable formats include NV12M, YUV420M and YUYV ($count in all)" \
    bash -c "grep -qx 'NM12 nv12' <<<'$formats' && grep -qx 'YM12 yuv420p' <<<'$formats' && grep -qx 'YUYV yuyv422' <<<'$formats'"

# One picture of the capture's raw file against one that v4l2-ctl wrote, planes in FFmpeg's order
# (v4l2-ctl writes the planes as the camera holds them: YVU formats have V before U, NV16 its
# chroma interleaved).
same_picture() { # FOURCC PIXFMT CAPTURED STREAMED
    "$VM_PYTHON" - "$@" <<'PY'
import sys
fourcc, pixfmt, captured, streamed = sys.argv[1:]
w, h = 320, 180
a = open(captured, 'rb').read()
b = open(streamed, 'rb').read()
size = len(a) // 4  # four pictures in each file
if size == 0 or len(b) < 4 * size:
    sys.exit(f"sizes: capture {len(a)}, v4l2-ctl {len(b)}")
a, b = a[3 * size:4 * size], b[3 * size:4 * size]
if fourcc in ('NV16', 'NM16', 'NV61', 'NM61'):
    # Semi-planar 4:2:2 is recorded as planar yuv422p (FFmpeg 5.1 converts no NV16).
    pairs = b[w * h:2 * w * h]
    u, v = (pairs[0::2], pairs[1::2]) if fourcc in ('NV16', 'NM16') else (pairs[1::2], pairs[0::2])
    b = b[:w * h] + u + v
elif fourcc in ('YV12', 'YM21', 'YM61', 'YM42'):
    chroma = {'yuv420p': w * h // 4, 'yuv422p': w * h // 2, 'yuv444p': w * h}[pixfmt]
    b = b[:w * h] + b[w * h + chroma:w * h + 2 * chroma] + b[w * h:w * h + chroma]
sys.exit(0 if a == b else f"pictures differ ({size} bytes)")
PY
}

while read -r name pixfmt; do
    [[ -n $name ]] || continue
    fourcc=${name//_/ }
    stored=$pixfmt
    rc=$(run "raw-$name" "$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 --input-format "$fourcc" \
        --codec raw --frames 4 --json "$out/$name.nut")
    if [[ $rc == 64 ]] && grep -q "files cannot hold raw $pixfmt pictures" "$VM_OUT/raw-$name.err"; then
        # No container reads these back raw (NV24, NV42): stored as 4:4:4 planar, converted alike.
        stored=yuv444p
        rc=$(run "raw-$name" "$CAPTURE" record --video $cam --video-size 320x180 --framerate 30 \
            --input-format "$fourcc" --pixel-format $stored --codec raw --frames 4 --json "$out/$name.nut")
    fi
    check_eq "$fourcc: exit 0" 0 "$rc"
    [[ $rc == 0 ]] || continue
    # The packets as stored, and what ffmpeg says of the stream.
    ffmpeg -nostdin -v info -i "$out/$name.nut" -map 0:v -c copy -f rawvideo -y "$out/$name.raw" 2>"$out/$name.info" || true
    check "$fourcc: stored as $stored 320x180 ($(grep -o 'Video: .*' "$out/$name.info" | head -1))" \
        grep -q "rawvideo.*, $stored\b.*, 320x180" "$out/$name.info"
    v4l2-ctl -d $cam -v width=320,height=180,pixelformat="$fourcc" --stream-mmap --stream-count=4 \
        --stream-to="$out/$name.v4l2" 2>/dev/null
    if [[ $stored != "$pixfmt" ]]; then
        ffmpeg -nostdin -v error -f rawvideo -pix_fmt "$pixfmt" -s 320x180 -i "$out/$name.v4l2" -pix_fmt $stored \
            -f rawvideo -y "$out/$name.v4l2.$stored"
        mv "$out/$name.v4l2.$stored" "$out/$name.v4l2"
    fi
    check "$fourcc: 4 pictures, each what v4l2-ctl streams" same_picture "$fourcc" "$stored" "$out/$name.raw" "$out/$name.v4l2"
    rm -f "$out/$name".*
done <<<"$formats"

# probe: the current format's memory planes as v4l2-ctl reports them, and the buffer counts.
v4l2-ctl -d $cam -v width=320,height=180,pixelformat=NM12
check_eq "probe NM12: exit 0" 0 "$(run probe-nm12 "$CAPTURE" probe --json $cam)"
want=$(v4l2-ctl -d $cam -V | awk '/Bytes per Line/ { b = $NF } /Size Image/ { print b, $NF }')
got=$(json "$VM_OUT/probe-nm12.out" \
    "[str(p['bytes_per_line']) + ' ' + str(p['size_image']) for p in d['camera']['current']['planes']]")
check_eq "probe NM12: two memory planes, as v4l2-ctl -V reports them" "$want" "$got"
check_eq "probe NM12: two of them" 2 "$(wc -l <<<"$got")"
fewest=$(json "$VM_OUT/probe-nm12.out" "d['camera']['buffer_count']['min']")
check_eq "probe: at most 32 buffers" 32 "$(json "$VM_OUT/probe-nm12.out" "d['camera']['buffer_count']['max']")"
check "probe: at least 1 to 4 buffers ($fewest)" test "$fewest" -ge 1 -a "$fewest" -le 4
check_eq "probe (text): exit 0" 0 "$(run probe-text "$CAPTURE" probe $cam)"
check "probe (text): two memory planes" grep -q "Memory planes *: 2 (" "$VM_OUT/probe-text.out"
check "probe (text): the buffer counts" grep -q "Buffers *: $fewest to 32" "$VM_OUT/probe-text.out"

v4l2-ctl -d $cam -c osd_text_mode=0
rm -rf "$out"
finish
