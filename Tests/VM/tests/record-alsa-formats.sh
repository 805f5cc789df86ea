#!/usr/bin/env bash
# capture record from microphones that cannot do what is asked natively: the device is opened
# in a format, rate and channel count it has, and the request is converted, never refused or
# relabelled. C04: snd-dummy in ac97 mode is S16_LE stereo 48 kHz only; C05: an asoundrc PCM
# over the loopback takes only packed 24-bit mono (ffmpeg fails with "cannot set sample format").
# Issue 11: a 4-channel S32_LE array and that 24-bit PCM, fed with tones whose -100 dB part lives
# in the low bits, keep every bit in .wav (a 16-bit path leaves the low bits zero).
# module: snd-aloop index=0 id=Loopback pcm_substreams=1
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0 model=ac97
# timeout: 240
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

# mono24 and array4: no rate in a type hw definition.
loopback_asoundrc
out=$(mktemp -d)
dummy=hw:CARD=Dummy,DEV=0

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
check "C05 mono24: decodes cleanly" clean "$out/c05.wav"
check_eq "C05 mono24: opened as packed 24-bit" pcm_s24le "$(json "$VM_OUT/c05.out" 'd["audio"]["input"].split()[0]')"

# Issue 11: the bits a microphone delivers survive. The feeder plays a 997 Hz tone with a 3001 Hz
# part 100 dB below full scale into the loopback; while it plays, the capture side has its format.
tone="0.5*sin(2*PI*997*t)+0.00001*sin(2*PI*3001*t)"
feed() { # FORMAT CHANNELS RATE CODEC: plays the tone into the loopback until tone_stop
    local graph=$tone
    for ((i = 1; i < $2; i++)); do graph="$graph|$tone"; done
    tone_start "aevalsrc=$graph:s=$3,aformat=sample_fmts=s32" -c:a "$4"
    sleep 1
}
bits() { # FILE MASK: "SOUNDING WITHOUT" - samples (decoded to s32) that are not zero, and of
    # those, how many have none of MASK's bits set
    ffmpeg -nostdin -v error -i "$1" -f s32le -c:a pcm_s32le - | "$VM_PYTHON" -I -S -c "
import struct, sys
data = sys.stdin.buffer.read()
values = [v for v in struct.unpack('<%di' % (len(data) // 4), data) if v != 0]
print(len(values), sum(1 for v in values if v & $2 == 0))"
}
few() { # SOUNDING WITHOUT: at least a second's worth sounding, under 1 % without the bits
    (($1 > 16000 && $2 * 100 < $1))
}

feed s32 4 16000 pcm_s32le
check_eq "issue 11 array4 (S32_LE, 4 channels): exit 0" 0 \
    "$(run s32 "$CAPTURE" record --audio array4 --duration 2 --json "$out/s32.wav")"
# The same microphone into AAC, whose encoder with 4 channels runs behind the device on the
# guest's CPU: what was captured up to the end is written (1.7 s of 3 were kept, before).
check_eq "array4 to .m4a: exit 0" 0 "$(run s32aac "$CAPTURE" record --audio array4 --duration 3 --json "$out/s32.m4a")"
check_eq "array4 to .m4a: aac, 4 channels at 16000 Hz" $'aac\n16000\n4' \
    "$(value "$out/s32.m4a" stream=codec_name,sample_rate,channels)"
duration=$(value "$out/s32.m4a" format=duration)
check "array4 to .m4a: 3 s +- 0.1 ($duration)" near "$duration" 3 0.1
level=$(ffmpeg -nostdin -i "$out/s32.m4a" -af volumedetect -f null - 2>&1 | sed -n 's/.*mean_volume: \(.*\) dB/\1/p')
# The 997 Hz tone at half of full scale: about -9 dB mean; silence would be about -91 dB.
check "array4 to .m4a: the tone is there (mean $level dB)" near "$level" -9 6
tone_stop
check_eq "issue 11 array4: pcm_s32le, 4 channels at 16000 Hz" $'pcm_s32le\n16000\n4' \
    "$(value "$out/s32.wav" stream=codec_name,sample_rate,channels)"
check_eq "issue 11 array4: the summary says s32 in 4.0" "s32 4.0" \
    "$(json "$VM_OUT/s32.out" 'd["audio"]["sample_format"] + " " + d["audio"]["channel_layout"]')"
read -r sounding without <<<"$(bits "$out/s32.wav" 0xffff)"
check "issue 11 array4: the low 16 bits are kept ($without of $sounding samples without them)" few "$sounding" "$without"

feed s24 1 48000 pcm_s24le
check_eq "issue 11 mono24 (S24_3LE) with a tone: exit 0" 0 \
    "$(run s24 "$CAPTURE" record --audio mono24 --duration 2 --json "$out/s24.wav")"
tone_stop
check_eq "issue 11 mono24: pcm_s24le" pcm_s24le "$(value "$out/s24.wav" stream=codec_name)"
check_eq "issue 11 mono24: the summary says s24" s24 "$(json "$VM_OUT/s24.out" 'd["audio"]["sample_format"]')"
read -r sounding without <<<"$(bits "$out/s24.wav" 0xff00)"
check "issue 11 mono24: bits 8-15 are kept ($without of $sounding samples without them)" few "$sounding" "$without"

rm -rf "$out"
finish
