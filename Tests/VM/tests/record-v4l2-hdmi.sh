#!/usr/bin/env bash
# An HDMI grabber (vivid's HDMI input, which has DV timings) is read by capture's own V4L2
# reader, which sees its source change: a source that changes mode mid-recording ends it with
# exit 74, the file finalized and the message naming the old and new mode (as v4l2-ctl
# --query-dv-timings gives them); with segments, the segment going ends with the old mode's last
# frame and the next starts at the new mode, and the recording goes on, there and back, also
# when the signal comes back in another mode with --reconnect; a source change event
# that leaves the mode as it was is no
# change; a lost signal ends it with 74, or with --reconnect is waited for like a lost device;
# no signal at the start is exit 69. vivid's "DV Timings Signal Mode" and "DV Timings" controls
# change what VIDIOC_QUERY_DV_TIMINGS answers and send the event.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10 num_inputs=1 input_types=0x3
# timeout: 300
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

# vivid's signal modes (its "DV Timings Signal Mode" menu).
current=0 no_signal=1 selected=4

# The mode the source sends now, as capture names it, from v4l2-ctl's own report.
query_mode() {
    v4l2-ctl -d $cam --query-dv-timings | "$VM_PYTHON" -I -S -c '
import re, sys
t = sys.stdin.read()
w = re.search(r"Active width: (\d+)", t).group(1)
h = re.search(r"Active height: (\d+)", t).group(1)
fps = float(re.search(r"\(([\d.]+) frames per second\)", t).group(1))
scan = " interlaced" if "Frame format: interlaced" in t else ""
print(f"{w}x{h}{scan} at {round(fps, 2):g} fps")'
}

# The index of a "DV Timings" menu entry: 1920x1080p30 when vivid has it, else the first that
# is not the 720p60 the input starts with.
other_timings() {
    v4l2-ctl -d $cam --list-ctrls-menus | "$VM_PYTHON" -I -S -c '
import re, sys
entries, inside = [], False
for line in sys.stdin:
    if re.match(r"\s*dv_timings\s", line):
        inside = True
        continue
    m = re.match(r"\s+(\d+): (\S+)$", line)
    if inside and m:
        entries.append((m.group(1), m.group(2)))
    elif inside and entries:
        break
pick = [i for i, n in entries if n == "1920x1080p30"] or [i for i, n in entries if not n.startswith("1280x720p60")]
print(pick[0])'
}

reset_signal() { v4l2-ctl -d $cam -c dv_timings_signal_mode=$current; }

# The index of the first "DV Timings" menu entry whose name starts with NAME.
timings_index() { # NAME
    v4l2-ctl -d $cam --list-ctrls-menus |
        awk -v name="$1" '/dv_timings /{ f = 1; next } f && index($2, name) == 1 { sub(":", "", $1); print $1; exit }'
}

# Gives the input 720p60 again after capture set it to another mode it followed: the source sends
# 720p60 (the menu's entry, "selected" mode), the input takes it, and sends its current timings.
restore_timings() {
    v4l2-ctl -d $cam -c dv_timings="$(timings_index 1280x720p60)",dv_timings_signal_mode=$selected
    v4l2-ctl -d $cam --set-dv-bt-timings query >/dev/null
    v4l2-ctl -d $cam -c dv_timings="$index",dv_timings_signal_mode=$current
}

check_eq "probe: the input has DV timings" true "$("$CAPTURE" probe $cam --json | json /dev/stdin 'd["camera"]["input"].get("dv_timings")')"
check "probe: its text says so" grep -q "Input .*: 0 (HDMI 0), DV timings" <("$CAPTURE" probe $cam)
before=$(query_mode)
check_eq "the source sends 720p60" "1280x720 at 60 fps" "$before"
index=$(other_timings)

# Records 320x180 raw into $out/NAME.mkv (stdout, stderr in $VM_OUT/NAME.out, .err) for up to
# 20 s with ARGS; the file's appearance time goes to $VM_OUT/NAME.start.
record() { # NAME ARGS...
    local name=$1
    shift
    "$CAPTURE" record --video $cam --video-size 320x180 --codec raw --json "$@" "$out/$name.mkv" \
        >"$VM_OUT/$name.out" 2>"$VM_OUT/$name.err" &
    pid=$!
    appeared "$out/$name.mkv" >/dev/null || true
}

finished() { # NAME: the file reads back and decodes cleanly; its frames are the summary's
    local name=$1
    check "$name: the file decodes cleanly" clean "$out/$name.mkv"
    if json_has "$VM_OUT/$name.out" video; then
        check_eq "$name: the file holds the frames written" \
            "$(json "$VM_OUT/$name.out" 'd["video"]["frames_written"]')" "$(packets "$out/$name.mkv")"
    else
        check "$name: a JSON summary" false
    fi
}

# A source change event with the mode unchanged (the "DV Timings" menu moves while the input
# still reports its current timings): the recording goes on to its end. v4l2-ctl, subscribed on
# a handle of its own, shows that the event was sent.
record same --duration 4
timeout 10 v4l2-ctl -d $cam --wait-for-event=source_change=0 >"$VM_OUT/same-event.txt" 2>&1 &
waiter=$!
sleep 1.5
v4l2-ctl -d $cam -c dv_timings="$index"
rc=0
wait $pid || rc=$?
check_eq "same mode: exit 0" 0 "$rc"
event=0
wait $waiter || event=$?
check_eq "same mode: the driver sent the source change event (v4l2-ctl --wait-for-event)" 0 "$event"
[[ $event == 0 ]] || sed 's/^/  v4l2-ctl: /' "$VM_OUT/same-event.txt"
dur=$(value "$out/same.mkv" format=duration)
check "same mode: the file lasts 4 +- 0.2 s ($dur)" near "$dur" 4 0.2
finished same

# The source changes mode: exit 74 soon after, naming both modes.
record change --duration 20
sleep 2
v4l2-ctl -d $cam -c dv_timings_signal_mode=$selected
changed=$(date +%s%N)
after=$(query_mode)
rc=0
wait $pid || rc=$?
reset_signal
check "the new mode differs ($after)" test "$after" != "$before"
check_eq "source change: exit 74" 74 "$rc"
check "source change: within 2 s ($(tenths_since "$changed") tenths)" test "$(tenths_since "$changed")" -le 20
check "source change: stderr names both modes" \
    grep -qF "$cam: its source changed from $before to $after" "$VM_OUT/change.err"
check_eq "source change: one line on stderr" 1 "$(stderr_lines "$VM_OUT/change.err")"
dur=$(value "$out/change.mkv" format=duration)
check "source change: the file lasts at least 1.5 s ($dur)" test "${dur%%.*}" -ge 1
finished change

# With segments the recording follows the source, there and back: each change ends the segment
# going with the old mode's last frame, and the next starts with the new mode's first (the new
# timings' rate; the frame size asked for, which vivid scales to); the recording runs to its end.
# The microphone (the test tone) records on across the changes, its samples split between files.
mkdir "$out/series"
"$CAPTURE" record --video $cam --video-size 320x180 --codec raw --audio test --json --duration 7 \
    --segment-time 60 "$out/series/part-%n.mkv" >"$VM_OUT/series.out" 2>"$VM_OUT/series.err" &
pid=$!
appeared "$out/series/part-0001.mkv" >/dev/null || true
sleep 1.5
v4l2-ctl -d $cam -c dv_timings_signal_mode=$selected
after=$(query_mode)
sleep 2
# Back: the source sends 720p60 again (the input's current timings are now capture's new mode).
v4l2-ctl -d $cam -c dv_timings="$(timings_index 1280x720p60)"
rc=0
wait $pid || rc=$?
restore_timings
check_eq "the input is back at 720p60" "$before" "$(query_mode)"
check_eq "segments: exit 0" 0 "$rc"
check "segments: stderr says the next segment records the new mode" \
    grep -qF "$cam: its source changed from $before to $after; the next segment records the new mode" \
    "$VM_OUT/series.err"
check "segments: and again on the way back" \
    grep -qF "$cam: its source changed from $after to $before; the next segment records the new mode" \
    "$VM_OUT/series.err"
check_eq "segments: the changes are events" "its source changed from $before to $after
its source changed from $after to $before" \
    "$(json "$VM_OUT/series.out" '[e["reason"] for e in events if e["event"] == "source_changed"]')"
check_eq "segments: three files" "part-0001.mkv part-0002.mkv part-0003.mkv" "$(cd "$out/series" && echo *)"
rates=()
in_files=0
for part in 1 2 3; do
    file=$out/series/part-000$part.mkv
    check "segments: part $part decodes cleanly" clean "$file"
    check_eq "segments: part $part is 320x180" "320,180" "$(value "$file" stream=width,height v:0 | paste -sd,)"
    rates+=("$(value "$file" stream=r_frame_rate v:0 | awk -F/ '{ printf "%g fps", $1 / $2 }')")
    in_files=$((in_files + $(packets "$file")))
done
check_eq "segments: at 60 fps, then the new mode's rate, then 60 fps again" "60 fps ${after##* at } 60 fps" \
    "${rates[*]}"
check_eq "segments: the files hold the frames written" "$(json "$VM_OUT/series.out" 'd["video"]["frames_written"]')" \
    "$in_files"
audio_seconds() { # FILE: the seconds its audio packets last
    ffprobe -v error -select_streams a:0 -show_entries packet=duration_time -of csv=p=0 "$1" |
        awk '{ s += $1 } END { printf "%.3f", s }'
}
sound=0
for part in 1 2 3; do sound=$sound+$(audio_seconds "$out/series/part-000$part.mkv"); done
samples=$(json "$VM_OUT/series.out" 'd["audio"]["samples"] / d["audio"]["sample_rate"]')
check "segments: the audio in the files is the summary's ($sound s, $samples s) and lasts 7 +- 0.1 s" \
    "$VM_PYTHON" -c "import sys; s = $sound; sys.exit(0 if abs(s - $samples) < 0.05 and abs(s - 7) <= 0.1 else 1)"

# The signal goes away: exit 74.
record lost --duration 20
sleep 2
v4l2-ctl -d $cam -c dv_timings_signal_mode=$no_signal
rc=0
wait $pid || rc=$?
reset_signal
check_eq "signal lost: exit 74" 74 "$rc"
check "signal lost: stderr says so" grep -qF "$cam: its input signal was lost (no signal)" "$VM_OUT/lost.err"
finished lost

# With --reconnect the signal is waited for: 3 s without, then the recording goes on to its end,
# the time without a hole in the file.
record back --duration 10 --reconnect
sleep 2
v4l2-ctl -d $cam -c dv_timings_signal_mode=$no_signal
sleep 3
reset_signal
rc=0
wait $pid || rc=$?
check_eq "signal lost, --reconnect: exit 0" 0 "$rc"
check_eq "signal lost, --reconnect: back once" 1 "$(json "$VM_OUT/back.out" 'd["video"]["reconnects"]')"
dur=$(value "$out/back.mkv" format=duration)
check "signal lost, --reconnect: the file lasts 10 +- 0.5 s ($dur)" near "$dur" 10 0.5
hole=$(ffprobe -v error -select_streams v:0 -show_entries packet=pts_time -of csv=p=0 "$out/back.mkv" |
    "$VM_PYTHON" -I -S -c 'import sys; t = sorted(float(l) for l in sys.stdin if l.strip()); print(int(max(b - a for a, b in zip(t, t[1:])) * 10))')
check "signal lost, --reconnect: the file has the hole (${hole} tenths)" test "$hole" -ge 25
finished back

# With segments and --reconnect, a signal that comes back in another mode is followed as a
# change: the next segment records it, and the recording runs to its end.
mkdir "$out/back-series"
"$CAPTURE" record --video $cam --video-size 320x180 --codec raw --json --duration 7 --reconnect --segment-time 60 \
    "$out/back-series/part-%n.mkv" >"$VM_OUT/back-series.out" 2>"$VM_OUT/back-series.err" &
pid=$!
appeared "$out/back-series/part-0001.mkv" >/dev/null || true
sleep 1.5
v4l2-ctl -d $cam -c dv_timings_signal_mode=$no_signal
sleep 1.5
v4l2-ctl -d $cam -c dv_timings_signal_mode=$selected
rc=0
wait $pid || rc=$?
restore_timings
check_eq "back in another mode, segments: exit 0" 0 "$rc"
check_eq "back in another mode, segments: two files" "part-0001.mkv part-0002.mkv" \
    "$(cd "$out/back-series" && echo *)"
check_eq "back in another mode, segments: the second at the new mode's rate" "${after##* at }" \
    "$(value "$out/back-series/part-0002.mkv" stream=r_frame_rate v:0 | awk -F/ '{ printf "%g fps", $1 / $2 }')"
for part in 1 2; do
    check "back in another mode, segments: part $part decodes cleanly" clean "$out/back-series/part-000$part.mkv"
done

# No signal at the start: nothing to record.
v4l2-ctl -d $cam -c dv_timings_signal_mode=$no_signal
rc=$(run none "$CAPTURE" record --video $cam --video-size 320x180 --duration 2 "$out/none.mkv")
reset_signal
check_eq "no signal: exit 69" 69 "$rc"
check "no signal: stderr says so" grep -qF "$cam: its input has no signal" "$VM_OUT/none.err"
check "no signal: no file" test ! -e "$out/none.mkv"

rm -rf "$out"
finish
