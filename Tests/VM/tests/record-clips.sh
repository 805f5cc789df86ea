#!/usr/bin/env bash
# Event clips and audio levels on real drivers (issue 25), as an ordinary user in the video and
# audio groups: snd-aloop's microphone carries a sine at half of full scale on the left (-6.02
# dBFS peak, -9.03 RMS) and a quarter on the right (-12.04, -15.05), which `capture meter` and a
# recording's summary read; vivid's camera and that microphone kept in a pre-roll, and a clip on
# SIGUSR1 that starts at a keyframe at most a second before the trigger less the pre-roll, lasts
# to the post-roll (its video by decoding order, a few frames more), and has its sound throughout.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# timeout: 300
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
mic=hw:CARD=Loopback,DEV=1,SUBDEV=0
out=$(mktemp -d)
chmod 777 "$out"

# Without udev every node is root's with mode 600: give them to the groups a desktop gives them
# to, and run capture as nobody in those groups (a copy it may run, as list-permissions does).
video=$(getent group video | cut -d: -f3)
audio=$(getent group audio | cut -d: -f3)
keep_modes $cam /dev/snd/*
trap 'tone_stop; restore_modes' EXIT
chgrp "${video:-44}" $cam
chmod 660 $cam
chgrp "${audio:-29}" /dev/snd/*
chmod 660 /dev/snd/*
bin=$(mktemp -d)
chmod 755 "$bin"
cp "$CAPTURE" "$bin/capture"
chmod 755 "$bin/capture"
as_user() { setpriv --reuid=65534 --regid=65534 --groups="${video:-44},${audio:-29}" env HOME=/nonexistent "$@"; }
as_user "$bin/capture" --version >/dev/null # the first start under emulation is the slowest

# The end of a stream's last packet in a Matroska file (which keeps no per-stream duration); a
# packet without a duration (N/A) ends where it starts.
stream_end() { # FILE STREAM
    ffprobe -v error -select_streams "$2" -show_entries packet=pts_time,duration_time -of csv=p=0 "$1" |
        "$VM_PYTHON" -I -S -c 'import sys; n = lambda x: 0.0 if x.strip() in ("", "N/A") else float(x); rows = [l.split(",") for l in sys.stdin if l.strip()]; print(max(n(r[0]) + n(r[1]) for r in rows))'
}

tone_start "aevalsrc=0.5*sin(2*PI*1000*t)|0.25*sin(2*PI*1000*t):s=48000"
sleep 2

# capture meter: the tone's level in each channel, from the driver's samples.
rc=0
as_user "$bin/capture" meter $mic --duration 2 --interval 1 --json >"$VM_OUT/meter.out" 2>"$VM_OUT/meter.err" || rc=$?
check_eq "meter: exit 0" 0 "$rc"
peaks=(-6.02 -12.04)
for channel in 0 1; do
    for reading in 0 1; do
        peak=$(json "$VM_OUT/meter.out" "events[$reading]['channels'][$channel]['peak']")
        rms=$(json "$VM_OUT/meter.out" "events[$reading]['channels'][$channel]['rms']")
        want=${peaks[$channel]}
        check "meter: reading $reading channel $channel peaks at $want dBFS ($peak)" near "$peak" "$want" 0.05
        check "meter: reading $reading channel $channel has an RMS 3.01 dB below ($rms)" \
            near "$rms" "$("$VM_PYTHON" -c "print($want - 3.01)")" 0.05
    done
done
check_eq "meter: measured 2 s" 2 "$(json "$VM_OUT/meter.out" 'd["duration"]')"

# A clip on SIGUSR1 five seconds in, with a pre-roll and a post-roll of 2 s; into Matroska with
# PCM, which the one emulated CPU keeps up with (AAC alone takes most of it).
rc=0
# exec: $! is capture itself (setpriv and env exec it), which the signal must reach.
(exec setpriv --reuid=65534 --regid=65534 --groups="${video:-44},${audio:-29}" env HOME=/nonexistent \
    "$bin/capture" record --video $cam --video-size 320x180 --framerate 30 --audio $mic --pre-roll 2 \
    --post-roll 2 --duration 12 --json "$out/clip-%n.mkv" >"$VM_OUT/clip.out" 2>"$VM_OUT/clip.err") &
pid=$!
# Triggered once it records (both devices open), five seconds on: the pre-roll is full by then.
for _ in $(seq 300); do
    ls -l /proc/$pid/fd 2>/dev/null | grep -q "$cam" && ls -l /proc/$pid/fd 2>/dev/null | grep -q pcmC0D1c && break
    sleep 0.1
done
sleep 5
kill -USR1 $pid
wait $pid || rc=$?
check_eq "clip: exit 0" 0 "$rc"
check_eq "clip: one trigger, one clip opened and closed" "trigger clip_opened clip_closed" \
    "$(json "$VM_OUT/clip.out" '" ".join(e["event"] for e in events)')"
trigger=$(json "$VM_OUT/clip.out" '[e["start"] for e in events if e["event"] == "trigger"][0]')
start=$(json "$VM_OUT/clip.out" '[e["start"] for e in events if e["event"] == "clip_opened"][0]')
check "clip: starts at or before the trigger ($trigger s) less the pre-roll ($start s)" \
    test "$("$VM_PYTHON" -c "print(int($start <= $trigger - 2 + 0.001 and $start >= $trigger - 3.034))")" = 1
file=$out/clip-0001.mkv
check "clip: the file reads back" test "$(value "$file" format=duration)" != none
check_eq "clip: its first frame is a keyframe" 1 \
    "$(ffprobe -v error -select_streams v:0 -read_intervals %+#1 -show_entries frame=key_frame -of csv=p=0 "$file")"
expected=$("$VM_PYTHON" -c "print($trigger + 2 - $start)")
video_length=$(stream_end "$file" v:0)
audio_length=$(stream_end "$file" a:0)
check "clip: video lasts the pre-roll to the post-roll ($video_length s, $expected expected)" \
    test "$("$VM_PYTHON" -c "print(int($expected - 0.05 <= $video_length <= $expected + 0.25))")" = 1
check "clip: audio lasts as long as the video ($audio_length s)" near "$audio_length" "$video_length" 0.045
check_eq "clip: both start at 0" $'0.000000\n0.000000' \
    "$(value "$file" stream=start_time v:0; value "$file" stream=start_time a:0)"
level=$(json "$VM_OUT/clip.out" 'd["audio"]["levels"]["peak"]')
check "clip: the summary's peak is the tone's ($level dBFS)" near "$level" -6.02 0.05
check "clip: decodes without a message" clean "$file"
check_eq "clip: nothing else on disk" "clip-0001.mkv" "$(ls "$out")"
finish
