#!/usr/bin/env bash
# C12 for capture record: ALSA names as users type them. hw:1,0 and hw:CARD=Dummy,DEV=0 are one
# device and record the same; a card that does not exist exits 66 listing the names that do; a
# PulseAudio source name given as an ALSA name exits 66 with the pulse: hint. And one plain
# recording from each driver, read back with ffprobe: .wav from snd-aloop and snd-dummy, .mkv
# from vivid.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0
# timeout: 150
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

out=$(mktemp -d)
readable() { ffprobe -v error "$1" >/dev/null 2>&1; }
"$CAPTURE" --version >/dev/null  # the first start under emulation is the slowest

# hw:1,0 is card 1 (Dummy), device 0: the same device as its CARD= form, the same recording.
audio=stream=codec_name,sample_fmt,sample_rate,channels
for name in hw:1,0 hw:CARD=Dummy,DEV=0; do
    file=$out/${name//[:,=]/_}.wav
    check_eq "C12 $name: exit 0" 0 "$(run "${name//[:,=]/_}" "$CAPTURE" record --audio "$name" --duration 2 --json "$file")"
    check "C12 $name: ffprobe reads it" readable "$file"
    duration=$(value "$file" format=duration)
    check "C12 $name: 2 s +- 0.2 ($duration)" near "$duration" 2 0.2
done
check_eq "C12: hw:1,0 and hw:CARD=Dummy,DEV=0 give the same stream" \
    "$(value "$out/hw_CARD_Dummy_DEV_0.wav" "$audio")" "$(value "$out/hw_1_0.wav" "$audio")"
check_eq "C12: and the summary says the device delivered the same" \
    "$(json "$VM_OUT/hw_CARD_Dummy_DEV_0.out" 'd["audio"]["input"]')" "$(json "$VM_OUT/hw_1_0.out" 'd["audio"]["input"]')"

# A card that is not there: 66 at once, the names that do exist listed, no file.
check_eq "C12 hw:9,0: exit 66" 66 "$(run nocard "$CAPTURE" record --audio hw:9,0 --duration 1 "$out/nocard.wav")"
for valid in hw:CARD=Loopback,DEV=1 hw:CARD=Dummy,DEV=0; do
    check "C12 hw:9,0: the error lists $valid" grep -qF "$valid" "$VM_OUT/nocard.err"
done
check "C12 hw:9,0: no file" test ! -e "$out/nocard.wav"

# A PulseAudio source name is not an ALSA name: 66 with the hint to say pulse:.
pulse=alsa_input.pci-0000_00_1f.3.analog-stereo
check_eq "C12 PulseAudio-style name: exit 66" 66 \
    "$(run pulsename "$CAPTURE" record --audio $pulse --duration 1 "$out/pulse.wav")"
check "C12 PulseAudio-style name: the hint says pulse:$pulse" grep -qF "pulse:$pulse" "$VM_OUT/pulsename.err"
check "C12 PulseAudio-style name: no file" test ! -e "$out/pulse.wav"

# One recording from each driver. snd-aloop with nothing playing captures silence at the rate
# asked; snd-dummy delivers silence; vivid's webcam, small, as H.264.
check_eq "snd-aloop .wav: exit 0" 0 \
    "$(run aloop "$CAPTURE" record --audio hw:CARD=Loopback,DEV=1 --sample-rate 44100 --channels 1 --duration 2 "$out/aloop.wav")"
check_eq "snd-aloop .wav: pcm_s16le 44100 Hz 1 channel" $'pcm_s16le\n44100\n1' \
    "$(value "$out/aloop.wav" stream=codec_name,sample_rate,channels)"
duration=$(value "$out/aloop.wav" format=duration)
check "snd-aloop .wav: 2 s +- 0.2 ($duration)" near "$duration" 2 0.2
check_eq "snd-dummy .wav: pcm_s16le, 2 channels" $'pcm_s16le\n2' \
    "$(value "$out/hw_CARD_Dummy_DEV_0.wav" stream=codec_name,channels)"
for file in aloop.wav hw_CARD_Dummy_DEV_0.wav; do
    check "$file decodes without a message" clean "$out/$file"
done

check_eq "vivid .mkv: exit 0" 0 \
    "$(run vivid "$CAPTURE" record --video /dev/video10 --video-size 320x180 --framerate 30 --preset ultrafast \
        --duration 2 --json "$out/vivid.mkv")"
check_eq "vivid .mkv: one H.264 stream, 320x180 yuv420p" $'h264\n320\n180\nyuv420p' \
    "$(value "$out/vivid.mkv" stream=codec_name,width,height,pix_fmt)"
check_eq "vivid .mkv: video only" 1 "$(value "$out/vivid.mkv" stream=index | wc -l)"
duration=$(value "$out/vivid.mkv" format=duration)
check "vivid .mkv: 2 s +- 0.2 ($duration)" near "$duration" 2 0.2
frames=$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of default=noprint_wrappers=1:nokey=1 "$out/vivid.mkv")
check_eq "vivid .mkv: the summary's frame count is ffprobe's" "$frames" "$(json "$VM_OUT/vivid.out" 'd["video"]["frames_written"] + d["video"].get("frames_duplicated", 0)')"
check "vivid .mkv: decodes without a message" clean "$out/vivid.mkv"

rm -rf "$out"
finish
