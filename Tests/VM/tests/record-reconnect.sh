#!/usr/bin/env bash
# record --reconnect (issue 14): a camera or microphone lost mid-recording is waited for and
# recorded on from where it comes back, in the same file on the session clock: the gap is
# missing frames (counted as gaps) and silence, the other device records on, the file lasts as
# long as asked. With --reconnect-timeout a device that stays away ends the recording with 74.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0
# timeout: 400
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
mic=hw:CARD=Loopback,DEV=1,SUBDEV=0
vivid=/sys/bus/platform/drivers/vivid
out=$(mktemp -d)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

# What every camera case records: vivid's node at a small mode the emulated guest keeps up with.
camera=(--video $cam --video-size 320x180 --framerate 30 --preset ultrafast)

# Starts `capture record ARGS... --reconnect --json` into $out/FILE in the background ($pid), its
# stdout and stderr in $VM_OUT/NAME.out and .err (NAME: FILE without its extension), and waits
# until the file appears.
start_recording() { # FILE ARGS...
    local file=$1 name=${1%.*}
    shift
    "$CAPTURE" record "$@" --reconnect --json "$out/$file" >"$VM_OUT/$name.out" 2>"$VM_OUT/$name.err" &
    pid=$!
    appeared "$out/$file" >/dev/null || true
}

# The end of a stream's last packet in a Matroska file (which keeps no per-stream duration).
stream_end() { # FILE STREAM
    ffprobe -v error -select_streams "$2" -show_entries packet=pts_time,duration_time -of csv=p=0 "$1" |
        "$VM_PYTHON" -I -S -c 'import sys; rows = [l.split(",") for l in sys.stdin if l.strip()]; print(float(rows[-1][0]) + float(rows[-1][1] or 0))'
}

# The checks every camera reconnect shares: NAME, the file, its summary and stderr.
check_reconnected() { # NAME FILE OUT ERR
    local dur
    check_eq "$1: the file reads back" 0 "$(ffprobe -v error "$2" >/dev/null 2>&1; echo $?)"
    dur=$(value "$2" format=duration)
    check "$1: the file lasts 10 +- 0.5 s ($dur)" near "$dur" 10 0.5
    check_eq "$1: the summary reports 1 reconnect" 1 "$(json "$3" 'd["video"]["reconnects"]')"
    check "$1: seconds disconnected > 0 ($(json "$3" 'd["video"]["seconds_disconnected"]'))" \
        test "$(json "$3" 'int(d["video"]["seconds_disconnected"] > 0)')" = 1
    check "$1: stderr says the camera was lost" \
        grep -q "^Warning: $cam: the device was lost (.*); waiting for it to come back" "$4"
    check "$1: stderr says it is back and how many frames are missing" \
        grep -qE "^Warning: $cam is back after [0-9.]+ s; [0-9]+ frames? missing" "$4"
    check_eq "$1: JSON events: the camera lost, then back" "device_lost device_back" \
        "$(json "$3" '" ".join(e["event"] for e in events if e.get("device") == "'"$cam"'")')"
    # The frames the absence left empty, against the file: its longest step between frames skips
    # them, and any frames dropped late beside the gap (counted late, not missing). The summary's
    # gaps may hold a few more from elsewhere. The reader waits half a second before it opens the
    # camera again, so at least 15 intervals pass, less one either side for rounding into slots.
    local missing gaps late skipped
    missing=$(json "$3" '[e["frames_missing"] for e in events if e["event"] == "device_back"][0]')
    gaps=$(json "$3" 'd["video"]["frames_dropped"]["gaps"]')
    late=$(json "$3" 'd["video"]["frames_dropped"]["late"]')
    skipped=$(ffprobe -v error -select_streams v:0 -show_entries packet=pts_time -of csv=p=0 "$2" |
        "$VM_PYTHON" -I -S -c 'import sys; t = sorted(float(l) for l in sys.stdin if l.strip()); print(round(max(b - a for a, b in zip(t, t[1:])) * 30) - 1)')
    check "$1: the back event's frames missing ($missing) are the file's longest skip ($skipped), less frames dropped late ($late)" \
        test "$missing" -le "$skipped" -a "$missing" -ge $((skipped - late))
    check "$1: at least the half second before the camera is opened again ($missing frames)" test "$missing" -ge 13
    check "$1: the summary's gaps ($gaps) hold the frames missing ($missing)" test "$missing" -le "$gaps"
    check "$1: decodes without a message" clean "$2"
    check "$1: the node is free again" v4l2-ctl -d $cam --stream-mmap --stream-count=3
}

# (1) vivid's disconnect control 3 s in; the node comes back once every handle is closed, the
# one capture holds to set a control included.
rc=0
start_recording disc.mkv "${camera[@]}" --duration 10 --control brightness=200 --restore-controls
sleep 3
v4l2-ctl -d $cam -c disconnect=1
wait $pid || rc=$?
check_eq "disconnect: exit 0" 0 "$rc"
check_eq "disconnect: the control is restored at the end" 128 "$(v4l2-ctl -d $cam -C brightness | awk '{ print $2 }')"
check_reconnected disconnect "$out/disc.mkv" "$VM_OUT/disc.out" "$VM_OUT/disc.err"

# (2) The driver unbound in sysfs 3 s in (the node goes away), bound again 2 s later. The camera
# comes back with its default controls; the one asked is set again.
rc=0
start_recording unbind.mkv "${camera[@]}" --duration 10 --control brightness=200 --restore-controls
sleep 3
echo vivid.0 >$vivid/unbind
sleep 2
check "unbind: the node is gone meanwhile" test ! -e $cam
echo vivid.0 >$vivid/bind
sleep 2
brightness=$(v4l2-ctl -d $cam -C brightness | awk '{ print $2 }')
wait $pid || rc=$?
check_eq "unbind: exit 0" 0 "$rc"
check_eq "unbind: the control is set again on the camera that came back" 200 "$brightness"
check_eq "unbind: and restored at the end" 128 "$(v4l2-ctl -d $cam -C brightness | awk '{ print $2 }')"
check_reconnected unbind "$out/unbind.mkv" "$VM_OUT/unbind.out" "$VM_OUT/unbind.err"
check "unbind: away about 2 s ($(json "$VM_OUT/unbind.out" 'd["video"]["seconds_disconnected"]'))" \
    near "$(json "$VM_OUT/unbind.out" 'd["video"]["seconds_disconnected"]')" 2 1

# (3) A camera with a microphone: the microphone records on through the camera's gap, and the
# audio lasts as long as the video.
tone_start
trap tone_stop EXIT
sleep 2
rc=0
start_recording av.mkv "${camera[@]}" --audio $mic --duration 10
sleep 3
v4l2-ctl -d $cam -c disconnect=1
wait $pid || rc=$?
tone_stop
check_eq "camera + microphone: exit 0" 0 "$rc"
check_reconnected "camera + microphone" "$out/av.mkv" "$VM_OUT/av.out" "$VM_OUT/av.err"
video_end=$(stream_end "$out/av.mkv" v:0)
audio_end=$(stream_end "$out/av.mkv" a:0)
check "camera + microphone: audio lasts as long as the video +- 0.2 s (audio $audio_end, video $video_end)" \
    near "$audio_end" "$video_end" 0.2
samples=$(json "$VM_OUT/av.out" 'd["audio"]["samples"]')
check "camera + microphone: the microphone was recorded through the gap ($samples samples)" \
    near "$samples" 480000 9600
check_eq "camera + microphone: the microphone was never lost" 0 "$(json "$VM_OUT/av.out" 'd["audio"]["reconnects"]')"

# (5) --reconnect-timeout bounds the wait: the driver unbound for good ends it with 74.
rc=0
start_recording gone.mkv "${camera[@]}" --reconnect-timeout 2
sleep 3
echo vivid.0 >$vivid/unbind
unbound=$(date +%s%N)
wait $pid || rc=$?
took=$(tenths_since "$unbound")
echo vivid.0 >$vivid/bind
check_eq "gone for good: exit 74" 74 "$rc"
check "gone for good: within 3.5 s of the loss ($took tenths)" test "$took" -le 35
check "gone for good: stderr says it did not come back within 2 s" \
    grep -q "^Error: $cam: the device was lost (.*) and did not come back within 2 s" "$VM_OUT/gone.err"
check_eq "gone for good: the file reads back" 0 "$(ffprobe -v error "$out/gone.mkv" >/dev/null 2>&1; echo $?)"
dur=$(value "$out/gone.mkv" format=duration)
check "gone for good: with what came before ($dur s)" test "${dur%.*}" -ge 2
for _ in $(seq 50); do [[ -e $cam ]] && break; sleep 0.1; done
check "gone for good: the camera is back for what follows" v4l2-ctl -d $cam --stream-mmap --stream-count=3

# Ctrl-C while the camera is away and waited for (no timeout): the file is finalized with what
# came before, exit 0, at once.
rc=0
start_recording int.mkv "${camera[@]}"
sleep 2
echo vivid.0 >$vivid/unbind
sleep 1.5
kill -INT $pid
signalled=$(date +%s%N)
wait $pid || rc=$?
took=$(tenths_since "$signalled")
echo vivid.0 >$vivid/bind
check_eq "Ctrl-C while waiting: exit 0" 0 "$rc"
check "Ctrl-C while waiting: within 3 s ($took tenths)" test "$took" -le 30
check_eq "Ctrl-C while waiting: the file reads back" 0 "$(ffprobe -v error "$out/int.mkv" >/dev/null 2>&1; echo $?)"
check "Ctrl-C while waiting: with what came before ($(value "$out/int.mkv" format=duration) s)" \
    test "$(value "$out/int.mkv" format=duration | cut -d. -f1)" -ge 1
check_eq "Ctrl-C while waiting: the summary has no reconnect" 0 "$(json "$VM_OUT/int.out" 'd["video"]["reconnects"]')"
for _ in $(seq 50); do [[ -e $cam ]] && break; sleep 0.1; done

# A camera that stalls: vivid drops every buffer from 3 s to 6 s, so the read blocks in the
# driver. With --reconnect the stalled camera is let go of (its streaming stopped), opened again
# and recorded on once it delivers; the file lasts as asked.
rc=0
start_recording stall.mkv "${camera[@]}" --duration 10 --stall-timeout 1
sleep 3
v4l2-ctl -d $cam -c percentage_of_dropped_buffers=100
sleep 3
v4l2-ctl -d $cam -c percentage_of_dropped_buffers=0
wait $pid || rc=$?
check_eq "stall: exit 0" 0 "$rc"
dur=$(value "$out/stall.mkv" format=duration)
check "stall: the file lasts 10 +- 0.5 s ($dur)" near "$dur" 10 0.5
check "stall: reconnected at least once ($(json "$VM_OUT/stall.out" 'd["video"]["reconnects"]'))" \
    test "$(json "$VM_OUT/stall.out" 'd["video"]["reconnects"]')" -ge 1
check "stall: stderr says the camera stalled and is waited for" \
    grep -q "^Warning: $cam: the device was lost (no data for 1 s; the device stalled); waiting for it to come back" \
    "$VM_OUT/stall.err"
check "stall: decodes without a message" clean "$out/stall.mkv"
check "stall: the node is free again" v4l2-ctl -d $cam --stream-mmap --stream-count=3

# A microphone lost and back: snd-dummy's card unbound 2 s in, bound again 2 s later; the gap is
# silence and the file lasts as asked.
card=$(grep -l '^Dummy$' /sys/class/sound/card*/id | head -n 1)
device=$(basename "$(readlink -f "$(dirname "$card")/device")")
driver=$(basename "$(readlink -f "$(dirname "$card")/device/driver")")
rc=0
start_recording mic.wav --audio hw:CARD=Dummy,DEV=0 --duration 8
sleep 2
echo "$device" >"/sys/bus/platform/drivers/$driver/unbind"
sleep 2
echo "$device" >"/sys/bus/platform/drivers/$driver/bind"
wait $pid || rc=$?
check_eq "microphone: exit 0" 0 "$rc"
dur=$(value "$out/mic.wav" format=duration)
check "microphone: the file lasts 8 +- 0.3 s ($dur)" near "$dur" 8 0.3
check_eq "microphone: the summary reports 1 reconnect" 1 "$(json "$VM_OUT/mic.out" 'd["audio"]["reconnects"]')"
check_eq "microphone: the gap is no overrun" 0 "$(json "$VM_OUT/mic.out" 'd["audio"]["overruns"]')"
check "microphone: stderr says it was lost" grep -q "^Warning: hw:CARD=Dummy,DEV=0: the device was lost" "$VM_OUT/mic.err"
check "microphone: stderr says it is back" grep -qE "^Warning: hw:CARD=Dummy,DEV=0 is back after [0-9.]+ s" "$VM_OUT/mic.err"

rm -rf "$out"
finish
