#!/usr/bin/env bash
# A camera whose VIDIOC_DQBUF fails with EIO a few times and then streams on (uvcvideo on a flaky
# cable or hub) is read again in place: the recording lasts as asked, exit 0, and the frames lost
# meanwhile are counted as lost by the device (their sequence numbers skipped); with --reconnect it is not taken for a lost camera. Only reads
# that keep failing for the stall timeout end it: exit 74 with a file holding every frame that
# came before, or with --reconnect the camera let go of and opened again. `capture snapshot` reads
# on through the same failures. The faults come from lib.sh's fault_shim (LD_PRELOAD, ioctl
# wrapped), which logs each buffer it swallowed; vivid is the camera.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# timeout: 300
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)
shim=$(fault_shim)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest
camera=(--video $cam --video-size 320x180 --framerate 30 --preset ultrafast)

# Runs capture with the fault library and FAULT_* settings: faulty NAME SETTINGS... -- ARGS...
# Output in VM_OUT/NAME.out and .err, the library's log in VM_OUT/NAME.log; prints the status.
faulty() {
    local name=$1 settings=()
    shift
    while [[ $1 != -- ]]; do settings+=("$1"); shift; done
    shift
    rm -f "$VM_OUT/$name.log"
    run_for "$name" 60 env LD_PRELOAD="$shim" FAULT_LOG="$VM_OUT/$name.log" "${settings[@]}" "$CAPTURE" "$@"
}
# What the log counts: failed DQBUFs, and good ones before the first failure.
swallowed() { grep -c ' dqbuf [0-9]* eio ' "$1" || true; }
delivered_before() { awk '/ dqbuf [0-9]+ eio / { exit } / dqbuf [0-9]+ ok / { n++ } END { print n + 0 }' "$1"; }
first_failure() { awk '/ dqbuf [0-9]+ eio / { print $1; exit }' "$1"; }
# Frames the camera did not deliver among the SLOTS frames from its first delivered one: the
# sequence numbers in that span that no good DQBUF returned (swallowed ones, and any the driver
# itself dropped while the reader was held up). missing LOG SLOTS
missing() {
    awk -v slots="$2" '/ dqbuf [0-9]+ ok / { if (first == "") first = $5; seen[$5] = 1 }
        END { for (s = first; s < first + slots; s++) if (!(s in seen)) n++; print n + 0 }' "$1"
}
# Checks that a 12 s recording at 30 fps counts as dropped by the device (`device`, from the
# sequence numbers the reader saw skipped; `gaps` for a camera read through FFmpeg, from
# timestamps) exactly the frames the camera did not deliver in its 360 slots (the 15 swallowed, and any the driver dropped meanwhile on a slow
# guest), give or take one for each frame the log shows off its grid (lib.sh's off_grid: a frame
# sent twice, or stamped half an interval late, which a recording placing frames by time moves
# a slot). gaps_are_undelivered LABEL NAME
gaps_are_undelivered() {
    local gaps undelivered slack
    gaps=$(json "$VM_OUT/$2.out" 'd["video"]["frames_dropped"]["gaps"] + (d["video"]["frames_dropped"].get("device") or 0)')
    undelivered=$(missing "$VM_OUT/$2.log" 360)
    slack=$(off_grid "$VM_OUT/$2.log" 30)
    check "$1: the summary counts as lost the $undelivered frames not delivered ($gaps; $slack off the grid)" \
        test $((gaps - undelivered)) -le "$slack" -a $((undelivered - gaps)) -le "$slack" -a "$gaps" -ge $((15 - slack))
}

# (1) Fifteen buffers swallowed with EIO 3.3 s in, then the camera streams on.
rc=$(faulty transient FAULT_DQBUF_FROM=100 FAULT_DQBUF_COUNT=15 -- record "${camera[@]}" --duration 12 --json \
    "$out/transient.mkv")
lost=$(swallowed "$VM_OUT/transient.log")
check_eq "transient EIO: exit 0" 0 "$rc"
check_eq "transient EIO: the library swallowed 15 buffers" 15 "$lost"
dur=$(value "$out/transient.mkv" format=duration)
check "transient EIO: the file lasts 12 +- 0.5 s ($dur)" near "$dur" 12 0.5
gaps_are_undelivered "transient EIO" transient
check "transient EIO: stderr says the reads failed and the recording went on" \
    grep -qE "^Warning: $cam: 15 reads failed \(Input/output error\) over 0\.[0-9] s; recording on" "$VM_OUT/transient.err"
check "transient EIO: decodes without a message" clean "$out/transient.mkv"

# (2) The same with --reconnect: read again in place, not lost and opened again.
rc=$(faulty reconnect FAULT_DQBUF_FROM=100 FAULT_DQBUF_COUNT=15 -- record "${camera[@]}" --duration 12 --reconnect \
    --json "$out/reconnect.mkv")
check_eq "transient EIO, --reconnect: exit 0" 0 "$rc"
dur=$(value "$out/reconnect.mkv" format=duration)
check "transient EIO, --reconnect: the file lasts 12 +- 0.5 s ($dur)" near "$dur" 12 0.5
check_eq "transient EIO, --reconnect: the camera was never lost" "0 none" \
    "$(json "$VM_OUT/reconnect.out" '"%d %s" % (d["video"]["reconnects"], " ".join(e["event"] for e in events) or "none")')"
gaps_are_undelivered "transient EIO, --reconnect" reconnect

# (3) Every DQBUF fails from 3.3 s on, at once and without taking a buffer (a queue the driver
# marked in error): after the stall timeout the recording ends with 74, and the file holds every
# frame delivered before the first failure.
rc=$(faulty persistent FAULT_DQBUF_FROM=100 FAULT_DQBUF_COUNT=-1 FAULT_DQBUF_KEEP=1 -- record "${camera[@]}" \
    --duration 12 --stall-timeout 2 --json "$out/persistent.mkv")
ended=$(date +%s%N)
log=$VM_OUT/persistent.log
check_eq "persistent EIO: exit 74" 74 "$rc"
took=$(((ended - $(first_failure "$log")) / 100000000))
check "persistent EIO: ended within the stall timeout + 3 s of the first failure ($took tenths)" test "$took" -le 50
check "persistent EIO: stderr says the reads kept failing" \
    grep -q "^Error: $cam: reads failing (Input/output error) for 2 s; the device stalled. The file is finalized up to there" \
    "$VM_OUT/persistent.err"
check_eq "persistent EIO: one line on stderr" 1 "$(stderr_lines "$VM_OUT/persistent.err")"
tries=$(swallowed "$log")
check "persistent EIO: tried again with pauses, not in a busy loop ($tries tries)" test "$tries" -ge 20 -a "$tries" -le 200
check_eq "persistent EIO: the file reads back" 0 "$(ffprobe -v error "$out/persistent.mkv" >/dev/null 2>&1; echo $?)"
frames=$(packets "$out/persistent.mkv")
declare -A summary=()
json_map summary "$VM_OUT/persistent.out" \
    '{"written": d["video"]["frames_written"], "skipped": d["video"]["frames_skipped_at_start"], "late": d["video"]["frames_dropped"]["late"]}'
before=$(delivered_before "$log")
check_eq "persistent EIO: the file holds the frames the summary counts" "${summary[written]}" "$frames"
check "persistent EIO: every frame delivered before the failure is in it ($frames written + ${summary[skipped]} skipped at the start + ${summary[late]} late of $before)" \
    test $((frames + summary[skipped] + summary[late])) -ge $((before - 1)) -a $((frames + summary[skipped] + summary[late])) -le "$before"
check "persistent EIO: decodes without a message" clean "$out/persistent.mkv"
check "persistent EIO: the node is free again" v4l2-ctl -d $cam --stream-mmap --stream-count=3

# (4) The same failure with --reconnect, each failing DQBUF taking a frame with it: after the
# stall timeout the camera is let go of and opened again, which clears it.
rc=$(faulty persistent-reconnect FAULT_DQBUF_FROM=100 FAULT_DQBUF_COUNT=-1 -- record "${camera[@]}" \
    --duration 12 --stall-timeout 2 --reconnect --json "$out/persistent-reconnect.mkv")
check_eq "persistent EIO, --reconnect: exit 0" 0 "$rc"
dur=$(value "$out/persistent-reconnect.mkv" format=duration)
check "persistent EIO, --reconnect: the file lasts 12 +- 0.5 s ($dur)" near "$dur" 12 0.5
check_eq "persistent EIO, --reconnect: lost once the stall timeout passed, then back" \
    "device_lost reads failing (Input/output error) for 2 s; the device stalled|device_back" \
    "$(json "$VM_OUT/persistent-reconnect.out" '"|".join(" ".join(x for x in [e["event"], e.get("reason")] if x) for e in events)')"
check "persistent EIO, --reconnect: the failing handle was closed" grep -q "the failing handle is gone" \
    "$VM_OUT/persistent-reconnect.log"
check "persistent EIO, --reconnect: the 2 s and more missing count as gaps" \
    test "$(json "$VM_OUT/persistent-reconnect.out" 'd["video"]["frames_dropped"]["gaps"]')" -ge 60
check "persistent EIO, --reconnect: decodes without a message" clean "$out/persistent-reconnect.mkv"

# (5) capture snapshot: ten buffers swallowed while it settles, then a still; reads that keep
# failing end it with 74 after the stall timeout.
rc=$(faulty snapshot FAULT_DQBUF_FROM=5 FAULT_DQBUF_COUNT=10 -- snapshot $cam "$out/still.png" --video-size 320x180)
check_eq "snapshot, transient EIO: exit 0" 0 "$rc"
check_eq "snapshot, transient EIO: the library swallowed 10 buffers" 10 "$(swallowed "$VM_OUT/snapshot.log")"
check_eq "snapshot, transient EIO: the picture reads back" "320x180" \
    "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0:s=x "$out/still.png")"
rc=$(faulty snapshot-persistent FAULT_DQBUF_FROM=5 FAULT_DQBUF_COUNT=-1 FAULT_DQBUF_KEEP=1 -- snapshot $cam \
    "$out/never.png" --video-size 320x180 --stall-timeout 2)
check_eq "snapshot, persistent EIO: exit 74" 74 "$rc"
check "snapshot, persistent EIO: stderr says the reads kept failing" \
    grep -q "^Error: $cam: reads failing (Input/output error) for 2 s; the device stalled" "$VM_OUT/snapshot-persistent.err"
check "snapshot, persistent EIO: no picture" test ! -e "$out/never.png"

rm -rf "$out"
finish
