#!/usr/bin/env bash
# record --wait for a sound card that comes 3 s after the start (issue 14): snd-dummy's card is
# unbound through sysfs, capture waits for hw:CARD=Dummy and records once the card is bound again;
# an ALSA card that never comes ends with 66 after the timeout.
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0
# timeout: 120
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

out=$(mktemp -d)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

device=$(basename "$(readlink -f /sys/class/sound/card1/device)")
driver=$(basename "$(readlink -f /sys/class/sound/card1/device/driver)")
echo "$device" >"/sys/bus/platform/drivers/$driver/unbind"
check "snd-dummy unbound: no card 1" test ! -e /proc/asound/card1

"$CAPTURE" record --audio hw:CARD=Dummy,DEV=0 --wait 60 --duration 1 --json "$out/a.wav" \
    >"$VM_OUT/wait.out" 2>"$VM_OUT/wait.err" &
waiter=$!
for _ in $(seq 300); do
    grep -q "Waiting for microphone" "$VM_OUT/wait.err" 2>/dev/null && break
    sleep 0.1
done
sleep 3
check "still waiting after 3 s" kill -0 $waiter
echo "$device" >"/sys/bus/platform/drivers/$driver/bind"
wait_for $waiter 60
check_eq "--wait: exit 0 once the card is there" 0 "$vm_status"
[[ $vm_status == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/wait.err"
check "--wait: said what it waited for" grep -q "Waiting for microphone hw:CARD=Dummy,DEV=0" "$VM_OUT/wait.err"
check "--wait: said when it came" grep -q "microphone hw:CARD=Dummy,DEV=0 is there" "$VM_OUT/wait.err"
dur=$(ffprobe -v error -show_entries format=duration -of default=noprint_wrappers=1:nokey=1 "$out/a.wav" 2>/dev/null || true)
check "--wait: one second recorded ($dur s)" "$VM_PYTHON" -I -S -c "import sys; sys.exit(abs(float('${dur:-0}') - 1) > 0.2)"

rc=$(run_for never 30 "$CAPTURE" record --audio hw:CARD=Never --wait 2 "$out/never.wav")
check_eq "a card that never comes: exit 66" 66 "$rc"
check "a card that never comes: said after the timeout" grep -q "still not there after waiting 2 s" "$VM_OUT/never.err"
finish
