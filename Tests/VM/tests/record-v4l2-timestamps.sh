#!/usr/bin/env bash
# Camera timestamps that jump (issue 10): vivid's wrap_timestamp=1 makes its buffer times wrap
# 16 s after STREAMON. --duration ends on the session clock whatever the device's clock does:
# exit 0 at 22 s, 550 +- 5 % frames at 25 fps, audio and video within 0.15 s of each other.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: v4l2loopback devices=3 video_nr=30,31,32 exclusive_caps=1,1,1 card_label=loop30,loop31,loop32
# timeout: 120
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
mic=hw:CARD=Loopback,DEV=1,SUBDEV=0
out=$(mktemp -d)
value() { # FILE ENTRY [STREAM]: one ffprobe value (nothing for a file that does not read back)
    ffprobe -v error ${3:+-select_streams "$3"} -show_entries "$2" -of default=noprint_wrappers=1:nokey=1 "$1" 2>/dev/null || true
}
near() { # A B TOLERANCE: |A - B| <= TOLERANCE
    "$VM_PYTHON" -I -S -c "import sys; sys.exit(abs(float('$1') - float('$2')) > float('$3'))"
}
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

ffmpeg -nostdin -v error -re -f lavfi -i sine=f=1000:r=48000 -ac 2 -f alsa hw:CARD=Loopback,DEV=0,SUBDEV=0 &
feeder=$!
trap 'kill $feeder 2>/dev/null || true; v4l2-ctl -d $cam -c wrap_timestamp=0 2>/dev/null || true' EXIT

# The control only acts while the camera streams: set it as soon as the recording has started.
# Opus, as in C03: the AAC encoder alone takes most of the guest's CPU.
"$CAPTURE" record --video $cam --video-size 320x180 --framerate 25 --preset ultrafast \
    --audio $mic --audio-codec opus --duration 22 --json "$out/wrap.mp4" >"$VM_OUT/wrap.out" 2>"$VM_OUT/wrap.err" &
pid=$!
for _ in $(seq 200); do
    [[ -e $out/wrap.mp4 ]] && break
    sleep 0.05
done
v4l2-ctl -d $cam -c wrap_timestamp=1
started=$(date +%s)
# 22 s from the first frame, the start-up before it, and margin; a hang is killed at the limit.
wait_for $pid 45
took=$(($(date +%s) - started))
v4l2-ctl -d $cam -c wrap_timestamp=0
check_eq "wrap_timestamp=1, --duration 22: exit 0" 0 "$vm_status"
[[ $vm_status == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/wrap.err" | head -n 5
check "wrap_timestamp=1: ends near 22 s after the recording started ($took s)" test "$took" -le 30
if [[ -s $out/wrap.mp4 ]] && ffprobe -v error "$out/wrap.mp4" >/dev/null 2>&1; then
    frames=$(ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets \
        -of default=noprint_wrappers=1:nokey=1 "$out/wrap.mp4")
    check "wrap_timestamp=1: 550 +- 5 % frames ($frames)" near "$frames" 550 27.5
    v=$(value "$out/wrap.mp4" stream=duration v:0)
    a=$(value "$out/wrap.mp4" stream=duration a:0)
    check "wrap_timestamp=1: audio and video within 0.15 s (video $v, audio $a)" near "$v" "$a" 0.15
    dur=$(value "$out/wrap.mp4" format=duration)
    check "wrap_timestamp=1: 22 s +- 0.5 ($dur)" near "$dur" 22 0.5
    written=$(json "$VM_OUT/wrap.out" 'd["video"]["frames_written"]')
    check_eq "wrap_timestamp=1: the summary counts the frames in the file" "$frames" "$written"
else
    check "wrap_timestamp=1: the file reads back" false
fi

rm -rf "$out"
finish
