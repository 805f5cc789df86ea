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
# fourcc (a space in it as _), FFmpeg name and code of each format capture records, one a line.
formats=$(json "$VM_OUT/probe.out" \
    "[f['fourcc'].replace(' ', '_') + ' ' + f['ffmpeg_name'] + ' ' + str(f['code']) for f in d['camera']['formats'] if f.get('ffmpeg_name')]")
count=$(wc -l <<<"$formats")
check "probe: the recordable formats include NV12M, YUV420M and YUYV ($count in all)" \
    bash -c "grep -q '^NM12 nv12 ' <<<'$formats' && grep -q '^YM12 yuv420p ' <<<'$formats' && grep -q '^YUYV yuyv422 ' <<<'$formats'"

record_formats $cam "$out" "$formats"

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
