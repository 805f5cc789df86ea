#!/usr/bin/env bash
# Camera timestamps that jump (issue 10): vivid's wrap_timestamp=1 makes its buffer times wrap
# 16 s on, 2 puts them on a 32-bit clock far from any other. --duration ends on the session clock
# whatever the device's clock does: with 1, exit 0, stopped by the 22 s duration, 550 +- 5 %
# frames at 25 fps, audio and video within 0.15 s of each other; with 2 the same over 6 s. Both
# through capture's own V4L2 reader (the default) and through FFmpeg's v4l2 input.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: v4l2loopback devices=3 video_nr=30,31,32 exclusive_caps=1,1,1 card_label=loop30,loop31,loop32
# timeout: 240
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
mic=hw:CARD=Loopback,DEV=1,SUBDEV=0
out=$(mktemp -d)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

tone_start
trap 'tone_stop; v4l2-ctl -d $cam -c wrap_timestamp=0 2>/dev/null || true' EXIT

# The time from a stream's first packet to the end of its last, from the packets themselves (a
# video packet without a duration lasts one frame at 25 fps).
span() { # FILE STREAM
    ffprobe -v error -select_streams "$2" -show_entries packet=pts_time,duration_time -of csv=p=0 "$1" |
        "$VM_PYTHON" -I -S -c '
import sys
rows = [l.strip().split(",") for l in sys.stdin if l.strip()]
first, last = float(rows[0][0]), rows[-1]
dur = float(last[1]) if len(last) > 1 and last[1] not in ("", "N/A") else 0.04
print("%.3f" % (float(last[0]) + dur - first))
'
}

# Records SECONDS at 25 fps with the loopback microphone and sets wrap_timestamp=VALUE as soon as
# the recording has started (the control acts while the camera streams). Raw video and PCM audio:
# what is measured is the timestamps, not whether the one emulated CPU keeps up with an encoder.
wrapped() { # VALUE SECONDS [READER]
    local value=$1 seconds=$2 name=wrap$1${3:-} pid started took frames v a dur written
    local file=$out/$name.nut what="wrap_timestamp=$1, --duration $2${3:+, the $3 reader}"
    "$CAPTURE" record --video $cam --video-size 320x180 --framerate 25 --codec raw ${3:+--v4l2-reader "$3"} \
        --audio $mic --audio-codec pcm --duration "$seconds" --json "$file" >"$VM_OUT/$name.out" 2>"$VM_OUT/$name.err" &
    pid=$!
    for _ in $(seq 200); do
        [[ -e $file ]] && break
        sleep 0.05
    done
    v4l2-ctl -d $cam -c wrap_timestamp="$value"
    started=$(date +%s)
    # The recording, its start-up and margin; a hang is killed at the limit.
    wait_for $pid $((seconds + 23))
    took=$(($(date +%s) - started))
    v4l2-ctl -d $cam -c wrap_timestamp=0
    check_eq "$what: exit 0" 0 "$vm_status"
    [[ $vm_status == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/$name.err" | head -n 5
    # Ended by its duration on the session clock: a recording timed by the device's clock would
    # end early (the file's length below) or never (killed at the limit above, not exit 0).
    check_eq "$what: stopped by its duration (after $took s)" duration \
        "$(json "$VM_OUT/$name.out" 'd["stop_reason"]' 2>/dev/null || echo none)"
    if ! [[ -s $file ]] || ! ffprobe -v error "$file" >/dev/null 2>&1; then
        check "$what: the file reads back" false
        return 0
    fi
    frames=$(packets "$file")
    check "$what: $((seconds * 25)) +- 5 % frames ($frames)" near "$frames" $((seconds * 25)) "$(awk "BEGIN { print $seconds * 1.25 }")"
    v=$(span "$file" v:0 || true)
    a=$(span "$file" a:0 || true)
    check "$what: audio and video within 0.15 s (video $v, audio $a)" near "$v" "$a" 0.15
    dur=$(value "$file" format=duration)
    check "$what: $seconds s +- 0.5 ($dur)" near "$dur" "$seconds" 0.5
    if json_has "$VM_OUT/$name.out" video; then
        written=$(json "$VM_OUT/$name.out" 'd["video"]["frames_written"] + d["video"].get("frames_duplicated", 0)')
        check_eq "$what: the summary counts the frames in the file" "$frames" "$written"
    fi
}

# 1: a 64-bit wrap 16 s after the control is set.
wrapped 1 22
# 2: a 32-bit clock that starts far from any other.
wrapped 2 6
# The same through FFmpeg's v4l2 input, which converts the buffers' times as it finds them.
wrapped 1 22 ffmpeg
wrapped 2 6 ffmpeg

rm -rf "$out"
finish
