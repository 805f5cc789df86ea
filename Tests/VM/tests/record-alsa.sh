#!/usr/bin/env bash
# capture record from ALSA microphones: the loopback card carrying a tone, alone and with
# vivid's camera (C03: both start and end together although V4L2 stamps with the monotonic
# clock and ALSA with the wall clock); a PCM another program holds is refused naming it.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# timeout: 240
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

mic=hw:CARD=Loopback,DEV=1,SUBDEV=0
out=$(mktemp -d)

# A 1 kHz tone played into the loopback's playback side comes out of its capture side.
tone_start
trap tone_stop EXIT
sleep 3

check_eq "tone to .wav: exit 0" 0 "$(run wav "$CAPTURE" record --audio $mic --duration 3 "$out/tone.wav")"
check_eq "tone to .wav: pcm_s16le 48000 Hz 2 channels" $'pcm_s16le\n48000\n2' \
    "$(value "$out/tone.wav" stream=codec_name,sample_rate,channels)"
duration=$(value "$out/tone.wav" format=duration)
check "tone to .wav: 3 s +- 0.2 ($duration)" near "$duration" 3 0.2
level=$(ffmpeg -nostdin -i "$out/tone.wav" -af volumedetect -f null - 2>&1 | sed -n 's/.*mean_volume: \(.*\) dB/\1/p')
# lavfi's sine has an amplitude of 1/8: about -21 dB mean; silence would be about -91 dB.
check "tone to .wav: the tone is there (mean $level dB)" near "$level" -21 6

# C03: camera and microphone on one clock, to .mp4 and to .mkv, with each container's default
# codecs and preset (H.264 veryfast with AAC, and with PCM). FFmpeg's AAC encoder alone takes most
# of the guest's one emulated CPU: the recorder runs behind the devices, which must never look
# like a stall, cost audio, or move the streams apart.
for ext in mp4 mkv; do
    check_eq "C03 .$ext: exit 0" 0 "$(run c03$ext "$CAPTURE" record --video /dev/video10 --video-size 320x180 \
        --framerate 30 --audio $mic --duration 10 --json "$out/c03.$ext")"
    v_start=$(value "$out/c03.$ext" stream=start_time v:0)
    a_start=$(value "$out/c03.$ext" stream=start_time a:0)
    check "C03 .$ext: starts within 0.1 s (video $v_start, audio $a_start)" near "$v_start" "$a_start" 0.1
    if [[ $ext == mp4 ]]; then
        v_duration=$(value "$out/c03.$ext" stream=duration v:0)
        a_duration=$(value "$out/c03.$ext" stream=duration a:0)
        check "C03 .$ext: durations within 0.15 s (video $v_duration, audio $a_duration)" \
            near "$v_duration" "$a_duration" 0.15
    fi
    duration=$(value "$out/c03.$ext" format=duration)
    check "C03 .$ext: 10 s +- 0.5 ($duration)" near "$duration" 10 0.5
    offset=$(json "$VM_OUT/c03$ext.out" 'd["start_offset"]')
    check "C03 .$ext: the summary reports the devices' start offset ($offset s)" near "$offset" 0 1
done

# A PCM held by another program: refused at once, naming the holder; nothing written.
arecord -q -D $mic -f S16_LE -r 48000 -c 2 /dev/null &
holder=$!
sleep 2
check_eq "busy PCM: exit 75" 75 "$(run busy "$CAPTURE" record --audio $mic --duration 1 "$out/busy.wav")"
check "busy PCM: stderr names the holder" grep -q "busy (in use by arecord (pid $holder))" "$VM_OUT/busy.err"
check "busy PCM: no file" test ! -e "$out/busy.wav"
kill $holder
wait $holder 2>/dev/null || true

rm -rf "$out"
finish
