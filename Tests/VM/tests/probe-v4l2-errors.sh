#!/usr/bin/env bash
# capture probe on bad input: an unknown path exits 66 listing the cameras; a node that is not
# a camera exits 69 saying what it is; a camera the user may not open exits 77 naming the
# group to join. An index from `capture list` probes that camera.
# module: vivid n_devs=2 node_types=0xe1d3d,0x1 multiplanar=1,2 vid_cap_nr=10,20
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

check_eq "unknown path: exit 66" 66 "$(run missing "$CAPTURE" probe /dev/video99)"
check "unknown path: stderr lists the cameras" grep -q '/dev/video10, /dev/video20' "$VM_OUT/missing.err"

# The node of each role other than camera, as v4l2-ctl's device caps say.
for role in "Metadata Capture:metadata capture node" "VBI Capture:VBI capture node" "Touch Device:touch sensor node" \
    "Video Output:video output node"; do
    caps=${role%%:*} words=${role#*:}
    node=
    for n in /dev/video* /dev/vbi* /dev/v4l-touch*; do
        if v4l2-ctl -d "$n" -D 2>/dev/null | sed -n '/Device Caps/,$p' | grep -q $'^\t\t'"$caps\$"; then
            node=$n
            break
        fi
    done
    check "$words: v4l2-ctl finds one ($node)" test -n "$node"
    [[ -n $node ]] || continue
    check_eq "$words $node: exit 69" 69 "$(run notcamera "$CAPTURE" probe "$node")"
    check "$words $node: stderr says it is a $words" grep -q "it is a $words" "$VM_OUT/notcamera.err"
done

check_eq "index 1: exit 0" 0 "$(run index "$CAPTURE" probe 1 --json)"
check_eq "index 1 is the second camera" /dev/video20 "$(json "$VM_OUT/index.out" 'd["camera"]["path"]')"

# Permission denied: the node root's with mode 600, probed by nobody.
node=/dev/video10
keep_modes "$node"
trap restore_modes EXIT
chown 0:0 "$node"
chmod 600 "$node"
bin=$(mktemp -d)
chmod 755 "$bin"
cp "$CAPTURE" "$bin/capture"
chmod 755 "$bin/capture"
check_eq "denied: exit 77" 77 \
    "$(run denied setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "$bin/capture" probe "$node")"
check "denied: stderr names the node and the video group" grep -q "^Error: $node: permission denied.*'video' group" "$VM_OUT/denied.err"

finish
