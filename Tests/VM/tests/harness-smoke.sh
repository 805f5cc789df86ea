#!/usr/bin/env bash
# The harness itself: the guest has the drivers loaded and the host's tools see them.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

check "running inside the guest" test "${CAPTURE_VM_GUEST:-}" = 1
check "VM_OUT is a writable shared folder" touch "$VM_OUT/written-in-guest"

devices=$(v4l2-ctl --list-devices 2>&1 || true)
check "v4l2-ctl sees the vivid card" grep -q '^vivid (platform:vivid-000)' <<<"$devices"
check "vivid's capture node is /dev/video10" test -c /dev/video10

cards=$(arecord -l 2>&1 || true)
check "arecord sees the Loopback card" grep -q '^card 0: Loopback \[Loopback\]' <<<"$cards"

# Loopback: what plays into device 0 comes back on device 1.
check "audio flows through the loopback card" bash -c '
    ffmpeg -v error -f lavfi -i sine=f=1000:r=48000:d=4 -ac 2 -f alsa hw:CARD=Loopback,DEV=0 &
    feeder=$!
    # The first start of ffmpeg in the guest takes seconds: wait until it really plays.
    for _ in $(seq 150); do
        grep -q RUNNING /proc/asound/Loopback/pcm0p/sub0/status 2>/dev/null && break
        sleep 0.1
    done
    level=$(arecord -q -D hw:CARD=Loopback,DEV=1 -f S16_LE -c 2 -r 48000 -d 1 -t raw |
        od -An -v -td2 -w2 | awk "{ v = \$1 < 0 ? -\$1 : \$1; if (v > m) m = v } END { print m + 0 }")
    wait $feeder
    echo "peak $level" >&2
    [ "$level" -gt 1000 ]'

finish
