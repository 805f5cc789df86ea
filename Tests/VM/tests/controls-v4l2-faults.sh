#!/usr/bin/env bash
# A camera that takes some controls of a set and then fails the rest with EIO (VIDIOC_S_EXT_CTRLS
# applying part of a batch, error_idx = count: "cannot say which"): capture puts back what the set
# changed, reads every control of it back, says in one line what holds, and exits 74 (an I/O error
# with the device). The same for a profile with a set on top, for record --control (before any
# file exists), and for the restore at the end of a recording, which says what it could not put
# back. The faults come from lib.sh's fault_shim (LD_PRELOAD); v4l2-ctl, run without it, is the
# oracle for what the camera holds.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# timeout: 180
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)
shim=$(fault_shim)
contrast=0x00980901 # V4L2_CID_CONTRAST

# Leave the camera as it was found, for the tests that share this boot.
"$CAPTURE" controls $cam --save "$out/initial.json" >/dev/null
trap '"$CAPTURE" controls $cam --load "$out/initial.json" >/dev/null' EXIT

# Runs capture with the fault library: faulty NAME SETTINGS... -- ARGS...; prints the status.
faulty() {
    local name=$1 settings=()
    shift
    while [[ $1 != -- ]]; do settings+=("$1"); shift; done
    shift
    run_for "$name" 60 env LD_PRELOAD="$shim" FAULT_LOG="$VM_OUT/$name.log" "${settings[@]}" "$CAPTURE" "$@"
}
holds() { v4l2-ctl -d $cam -C "$1" | tr '\n' ' ' | sed 's/ $//'; }

# (1) brightness goes in, contrast fails: brightness is put back.
v4l2-ctl -d $cam -c brightness=0,contrast=32
rc=$(faulty partial FAULT_CTRL_ID=$contrast -- controls $cam --set brightness=100 --set contrast=50)
check_eq "partial set: exit 74 (an I/O error with the device)" 74 "$rc"
check "partial set: the library applied brightness and failed the batch" \
    grep -q "s_ext_ctrls applied 1 of 2, eio" "$VM_OUT/partial.log"
check_eq "partial set: brightness is back at 0, contrast at 32 (v4l2-ctl)" "brightness: 0 contrast: 32" \
    "$(holds brightness,contrast)"
check_eq "partial set: one line says what failed and that brightness was put back" \
    "Error: $cam: VIDIOC_S_EXT_CTRLS failed for brightness=100, contrast=50: Input/output error; brightness was put back to 0" \
    "$(cat "$VM_OUT/partial.err")"

# (2) The camera takes no write after the failure: nothing goes back, and the line says what holds.
rc=$(faulty stuck FAULT_CTRL_ID=$contrast FAULT_CTRL_STUCK=1 -- controls $cam --set brightness=100 --set contrast=50)
check_eq "put back refused: exit 74" 74 "$rc"
check_eq "put back refused: brightness holds 100, contrast 32 (v4l2-ctl)" "brightness: 100 contrast: 32" \
    "$(holds brightness,contrast)"
check_eq "put back refused: the line says brightness holds 100" \
    "Error: $cam: VIDIOC_S_EXT_CTRLS failed for brightness=100, contrast=50: Input/output error; brightness holds 100 (it was 0)" \
    "$(cat "$VM_OUT/stuck.err")"
v4l2-ctl -d $cam -c brightness=0

# (3) A profile (saturation 3, contrast left out) with a set on top that fails: the profile's
# change goes back with it.
"$CAPTURE" controls $cam --set saturation=3 --save "$out/profile.json" >/dev/null
v4l2-ctl -d $cam -c saturation=128
"$VM_PYTHON" -I -S -c '
import json, sys
p = json.load(open(sys.argv[1]))
p["controls"] = [c for c in p["controls"] if c["name"] != "contrast"]
json.dump(p, open(sys.argv[1], "w"))' "$out/profile.json"
rc=$(faulty load FAULT_CTRL_ID=$contrast -- controls $cam --load "$out/profile.json" --set brightness=100 --set contrast=50)
check_eq "profile and set: exit 74" 74 "$rc"
check_eq "profile and set: saturation, brightness and contrast as before (v4l2-ctl)" \
    "brightness: 0 contrast: 32 saturation: 128" "$(holds brightness,contrast,saturation)"
check "profile and set: the line says both went back" \
    grep -qx "Error: $cam: VIDIOC_S_EXT_CTRLS failed for brightness=100, contrast=50: Input/output error; brightness was put back to 0, saturation was put back to 128" \
    "$VM_OUT/load.err"

# (4) A value the driver refuses is still 69, and says the set left nothing behind.
rc=$(faulty refused -- controls $cam --set brightness=100 --set contrast=500)
check_eq "a value out of range: exit 69" 69 "$rc"
check "a value out of range: nothing was set" grep -q "nothing was set$" "$VM_OUT/refused.err"
check_eq "a value out of range: brightness untouched (v4l2-ctl)" "brightness: 0" "$(holds brightness)"

# (5) record --control: the same failure ends it before any file exists, brightness put back.
rc=$(faulty record FAULT_CTRL_ID=$contrast -- record --video $cam --video-size 320x180 --codec raw --frames 5 \
    --control brightness=100 --control contrast=50 "$out/r.nut")
check_eq "record --control: exit 74" 74 "$rc"
check "record --control: no file" test ! -e "$out/r.nut"
check_eq "record --control: brightness back at 0 (v4l2-ctl)" "brightness: 0 contrast: 32" "$(holds brightness,contrast)"
check "record --control: the line says brightness was put back" \
    grep -qx "Error: $cam: VIDIOC_S_EXT_CTRLS failed for brightness=100, contrast=50: Input/output error; brightness was put back to 0" \
    "$VM_OUT/record.err"

# (6) --restore-controls when the camera refuses the restore: the recording is kept (exit 0) and a
# warning says what the camera holds.
rc=$(faulty restore FAULT_CTRL_FROM=2 -- record --video $cam --video-size 320x180 --codec raw --frames 5 \
    --control brightness=60 --restore-controls "$out/restore.nut")
check_eq "restore refused: exit 0, the recording kept" 0 "$rc"
check_eq "restore refused: brightness holds 60 (v4l2-ctl)" "brightness: 60" "$(holds brightness)"
check "restore refused: a warning says brightness holds 60, not 0" \
    grep -qx "Warning: restoring the controls: brightness holds 60, not 0 (VIDIOC_S_EXT_CTRLS: Input/output error)" \
    "$VM_OUT/restore.err"
check_eq "restore refused: the file reads back" 0 "$(ffprobe -v error "$out/restore.nut" >/dev/null 2>&1; echo $?)"

finish
