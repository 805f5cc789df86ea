#!/usr/bin/env bash
# A microphone whose reads fail for good (ALSA's reads fail and FFmpeg's alsa input gives EIO, as
# for a USB sound card pulled) ends the recording with 74, and the file holds every sample read
# before the failure, the last part of a block included. The failure comes from lib.sh's
# fault_shim (LD_PRELOAD), which logs the frames each good read returned: the oracle.
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# timeout: 120
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

mic=hw:CARD=Loopback,DEV=1,SUBDEV=0
out=$(mktemp -d)
shim=$(fault_shim)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest
tone_start
trap tone_stop EXIT
sleep 2

log=$VM_OUT/readi.log
rc=$(run_for gone 60 env LD_PRELOAD="$shim" FAULT_LOG="$log" FAULT_READI_FROM=200 \
    "$CAPTURE" record --audio $mic --duration 10 --json "$out/gone.wav")
read_frames=$(awk '/ readi [0-9]+ ok / { n += $5 } END { print n + 0 }' "$log")
check_eq "reads failing for good: exit 74" 74 "$rc"
check "reads failing for good: stderr names the microphone and the error" \
    grep -q "^Error: $mic: reading the device failed: Input/output error" "$VM_OUT/gone.err"
check_eq "reads failing for good: the file reads back" 0 "$(ffprobe -v error "$out/gone.wav" >/dev/null 2>&1; echo $?)"
# The recorder follows the device's clock by resampling, which moves the count by a few samples:
# within 5 ms (240 samples at 48 kHz). The last block the recorder gathers is 1024 samples; at
# 128-frame periods, 199 reads leave 896 of them in it.
samples=$(value "$out/gone.wav" stream=duration_ts a:0)
check "reads failing for good: the file holds every sample read before the failure ($samples of $read_frames)" \
    near "$samples" "$read_frames" 240
check_eq "reads failing for good: the summary counts what the file holds" "$samples" \
    "$(json "$VM_OUT/gone.out" 'd["audio"]["samples"]')"

rm -rf "$out"
finish
