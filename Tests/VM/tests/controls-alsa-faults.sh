#!/usr/bin/env bash
# A sound card whose mixer takes part of a set and fails the rest with EIO (an element's volume
# taken, its capture switch refused): capture puts back every element the set wrote, reads the
# card back, says in one line what holds, and exits 74 (an I/O error with the device). The fault
# comes from lib.sh's fault_shim (LD_PRELOAD); amixer, run without it, is the oracle.
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0
# timeout: 120
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

mic=hw:CARD=Dummy,DEV=0
shim=$(fault_shim)
# amixer's state of the capture elements, one channel a line: "element raw dB switch".
state() {
    local element
    for element in Line Mic; do
        amixer -c Dummy sget $element | sed -n "s/^  \(Front Left\|Front Right\): \(Capture \)\?\(-\?[0-9]*\) \[[0-9]*%\] \[\([-0-9.]*dB\)\]\( Capture\)\? \[\(on\|off\)\].*/$element \3 \4 \6/p"
    done
}
# Runs capture with the fault library: faulty NAME SETTINGS... -- ARGS...; prints the status.
faulty() {
    local name=$1 settings=()
    shift
    while [[ $1 != -- ]]; do settings+=("$1"); shift; done
    shift
    run_for "$name" 60 env LD_PRELOAD="$shim" FAULT_LOG="$VM_OUT/$name.log" "${settings[@]}" "$CAPTURE" "$@"
}

# Leave the card as it was found, for the tests that share this boot.
initial_line=$(amixer -c Dummy sget Line | sed -n 's/^  Front Left: \(Capture \)\?\(-\?[0-9]*\) .*\[\(on\|off\)\].*/\2 \3/p')
initial_mic=$(amixer -c Dummy sget Mic | sed -n 's/^  Front Left: \(Capture \)\?\(-\?[0-9]*\) .*\[\(on\|off\)\].*/\2 \3/p')
put_back() {
    local words
    read -ra words <<<"$initial_line"
    amixer -q -c Dummy sset Line "${words[0]}" "$([[ ${words[1]} == on ]] && echo cap || echo nocap)"
    read -ra words <<<"$initial_mic"
    amixer -q -c Dummy sset Mic "${words[0]}" "$([[ ${words[1]} == on ]] && echo cap || echo nocap)"
}
trap put_back EXIT

# (1) Line's volume goes in, then Mic's fails: libasound writes an element's volume one channel at
# a time and its capture switch with each, so the first channel's volume is in when the switch's
# write fails. Both elements are put back.
amixer -q -c Dummy sset Line 10 nocap
amixer -q -c Dummy sset Mic 20 nocap
before=$(state)
rc=$(faulty partial "FAULT_ELEM_NAME=Mic Capture Switch" -- controls $mic --set Line=50% --set 'Mic=-6dB,on')
check_eq "partial set: exit 74 (an I/O error with the device)" 74 "$rc"
check "partial set: the library failed Mic's switch" grep -q "elem_write Mic Capture Switch eio" "$VM_OUT/partial.log"
check_eq "partial set: Line and Mic as before (amixer)" "$before" "$(state)"
mic_db=$(amixer -c Dummy sget Mic | sed -n 's/^  Front Left: .*\[\([-0-9.]*dB\)\].*/\1/p')
line_db=$(amixer -c Dummy sget Line | sed -n 's/^  Front Left: .*\[\([-0-9.]*dB\)\].*/\1/p')
check_eq "partial set: one line says both were put back" \
    "Error: $mic: Mic: writing the mixer failed: Input/output error; Line was put back to 10 [$line_db] [off], Mic was put back to 20 [$mic_db] [off]" \
    "$(cat "$VM_OUT/partial.err")"

# (2) The card takes no write after the failure: nothing goes back, and the line says what holds,
# channel by channel where they differ.
rc=$(faulty stuck "FAULT_ELEM_NAME=Mic Capture Switch" FAULT_ELEM_STUCK=1 -- controls $mic --set 'Mic=-6dB,on')
check_eq "put back refused: exit 74" 74 "$rc"
check_eq "put back refused: Mic's left channel holds -6 dB, its right one as before (amixer)" \
    "$(printf 'Mic 80 -6.00dB off\nMic 20 %s off' "$mic_db")" "$(state | grep '^Mic')"
check_eq "put back refused: the line says what each channel holds" \
    "Error: $mic: Mic: writing the mixer failed: Input/output error; Mic holds Front Left 80 [-6.00dB] [off], Front Right 20 [$mic_db] [off] (it was 20 [$mic_db] [off])" \
    "$(cat "$VM_OUT/stuck.err")"

# (3) A value the card refuses before anything is written is still 69 and changes nothing.
amixer -q -c Dummy sset Mic 20 nocap
before=$(state)
rc=$(faulty range -- controls $mic --set Line=50% --set Mic=101)
check_eq "a value out of range: exit 69" 69 "$rc"
check_eq "a value out of range: nothing changed (amixer)" "$before" "$(state)"

finish
