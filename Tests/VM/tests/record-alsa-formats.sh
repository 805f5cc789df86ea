#!/usr/bin/env bash
# capture record from microphones that cannot do what is asked natively: the device is opened
# in a format, rate and channel count it has, and the request is converted, never refused or
# relabelled. C04: snd-dummy in ac97 mode is S16_LE stereo 48 kHz only; C05: an asoundrc PCM
# over the loopback takes only packed 24-bit mono (ffmpeg fails with "cannot set sample format").
# module: snd-aloop index=0 id=Loopback pcm_substreams=1
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0 model=ac97
# timeout: 120
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

# No rate in a type hw definition: hw_params would then fail for every program.
export HOME=$VM_OUT/home
mkdir -p "$HOME"
cat >"$HOME/.asoundrc" <<'ASOUNDRC'
pcm.mono24 {
    type hw
    card Loopback
    device 1
    subdevice 0
    format S24_3LE
    channels 1
}
ASOUNDRC
out=$(mktemp -d)
dummy=hw:CARD=Dummy,DEV=0

run() { # NAME ARGS...: ARGS with stdout and stderr into $VM_OUT/NAME.*; prints the status
    local name=$1 rc=0
    shift
    "$@" >"$VM_OUT/$name.out" 2>"$VM_OUT/$name.err" || rc=$?
    echo "$rc"
}
value() { # FILE ENTRY: one ffprobe value a line
    ffprobe -v error -show_entries "$2" -of default=noprint_wrappers=1:nokey=1 "$1"
}
near() { # A B TOLERANCE: |A - B| <= TOLERANCE
    "$VM_PYTHON" -I -S -c "import sys; sys.exit(abs(float('$1') - float('$2')) > float('$3'))"
}

# C04: one channel from a stereo-only device: downmixed, three seconds long.
check_eq "C04 --channels 1: exit 0" 0 "$(run mono "$CAPTURE" record --audio $dummy --channels 1 --duration 3 "$out/mono.wav")"
check_eq "C04 --channels 1: one channel at 48000 Hz" $'48000\n1' "$(value "$out/mono.wav" stream=sample_rate,channels)"
duration=$(value "$out/mono.wav" format=duration)
check "C04 --channels 1: 3 s +- 0.2 ($duration)" near "$duration" 3 0.2

# C04: 44.1 kHz from a 48 kHz-only device: resampled, so still three seconds, not relabelled.
check_eq "C04 --sample-rate 44100: exit 0" 0 \
    "$(run rate "$CAPTURE" record --audio $dummy --sample-rate 44100 --duration 3 --json "$out/rate.wav")"
check_eq "C04 --sample-rate 44100: 44100 Hz" 44100 "$(value "$out/rate.wav" stream=sample_rate)"
duration=$(value "$out/rate.wav" format=duration)
check "C04 --sample-rate 44100: 3 s +- 0.2 ($duration)" near "$duration" 3 0.2
check_eq "C04: the summary names what the device delivered" "pcm_s16le 48000 Hz 2 channels" \
    "$(json "$VM_OUT/rate.out" 'd["audio"]["input"]')"

# C05 (and C04's mono-only PCM): packed 24-bit mono, recorded by default as it is, 48 kHz mono.
check_eq "C05 mono24: exit 0" 0 "$(run c05 "$CAPTURE" record --audio mono24 --duration 3 --json "$out/c05.wav")"
check_eq "C05 mono24: 48000 Hz, one channel" $'48000\n1' "$(value "$out/c05.wav" stream=sample_rate,channels)"
duration=$(value "$out/c05.wav" format=duration)
check "C05 mono24: 3 s +- 0.2 ($duration)" near "$duration" 3 0.2
check "C05 mono24: decodes cleanly" test -z "$(ffmpeg -nostdin -v error -i "$out/c05.wav" -f null - 2>&1)"
check_eq "C05 mono24: opened as packed 24-bit" pcm_s24le "$(json "$VM_OUT/c05.out" 'd["audio"]["input"].split()[0]')"

rm -rf "$out"
finish
