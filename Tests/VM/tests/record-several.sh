#!/usr/bin/env bash
# Several cameras and microphones in one recording (`--video A --video B --audio C --audio D`):
# two vivid webcams in different modes and formats, the loopback card carrying a tone and
# snd-dummy's microphone, 10 s into .mkv (raw video, PCM) and .mp4 (H.264 ultrafast, Opus): two
# x264 encodes and two AAC encodes take the guest's one emulated CPU several times over (FFmpeg's
# AAC encoder alone runs at about real time there), and the recorder then drops nearly every
# frame, which says nothing about the tracks. Every
# device is a track of the one file, titled with its name; every stream starts within 0.1 s of
# the others and lasts the recording; the summary's numbers per device are ffprobe's.
# module: vivid n_devs=2 node_types=0x1,0x1 vid_cap_nr=10,11
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: snd-dummy index=1 id=Dummy
# timeout: 420
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

mic=hw:CARD=Loopback,DEV=1,SUBDEV=0
dummy=hw:CARD=Dummy,DEV=0
out=$(mktemp -d)

tone_start
trap tone_stop EXIT
sleep 3

for ext in mkv mp4; do
    name=several$ext
    codec=(--codec raw)
    [[ $ext == mp4 ]] && codec=(--preset ultrafast --audio-codec opus)
    check_eq "$ext: exit 0" 0 "$(run $name "$CAPTURE" record "${codec[@]}" \
        --video /dev/video10 --video-size 640x480 --framerate 25 --input-format yuyv422 \
        --video /dev/video11 --video-size 320x180 --framerate 30 --input-format nv12 \
        --audio $mic --audio $dummy --duration 10 --json "$out/rec.$ext")"
    [[ -e $out/rec.$ext ]] || { sed 's/^/  stderr: /' "$VM_OUT/$name.err"; continue; }
    check_eq "$ext: 2 video and 2 audio streams, in the order given" $'video\nvideo\naudio\naudio' \
        "$(value "$out/rec.$ext" stream=codec_type)"
    titles=$(value "$out/rec.$ext" stream_tags=title,handler_name)
    check_eq "$ext: each track titled with its device" \
        "/dev/video10 /dev/video11 $mic $dummy" "$(grep -o '^\(/dev/video1[01]\|hw:[^ ]*\)' <<<"$titles" | tr '\n' ' ' | sed 's/ $//')"
    # A camera whose device lost its first frames (the guest's one CPU busy as the microphones
    # start: the summary counts them `device`) starts that much later in the file: each camera's
    # start less the frames its device lost, at most, is within 0.1 s of the other streams'.
    starts=$(for i in 0 1; do
        lost=$(json "$VM_OUT/$name.out" "(d['cameras'][$i]['frames_dropped'].get('device') or 0) * d['cameras'][$i]['frame_rate']['denominator'] / d['cameras'][$i]['frame_rate']['numerator']")
        "$VM_PYTHON" -I -S -c "print(round(max(0.0, $(value "$out/rec.$ext" stream=start_time "v:$i") - $lost), 6))"
    done; value "$out/rec.$ext" stream=start_time a)
    starts=$(sort -g <<<"$starts")
    first=$(head -n 1 <<<"$starts")
    last=$(tail -n 1 <<<"$starts")
    check "$ext: every stream starts within 0.1 s of the others, a camera's frames lost by its device aside ($(tr '\n' ' ' <<<"$starts"))" \
        near "$first" "$last" 0.1
    for i in 0 1; do
        rate=$([[ $i == 0 ]] && echo 25 || echo 30)
        written=$(json "$VM_OUT/$name.out" "d['cameras'][$i]['frames_written']")
        dropped=$(json "$VM_OUT/$name.out" "sum(d['cameras'][$i]['frames_dropped'].values())")
        frames=$(ffprobe -v error -count_frames -select_streams "v:$i" -show_entries stream=nb_read_frames \
            -of default=noprint_wrappers=1:nokey=1 "$out/rec.$ext")
        # A last picture repeated into the last slot (the camera's last frames were dropped) is
        # in the file as a frame, and in the summary as duplicated.
        repeated=$(json "$VM_OUT/$name.out" "d['cameras'][$i].get('frames_duplicated') or 0")
        check_eq "$ext camera $((i + 1)): the summary's frames are ffprobe's ($written + $repeated)" \
            "$frames" "$((written + repeated))"
        # Every slot of 10 s is a frame written or one counted as dropped.
        check "$ext camera $((i + 1)): written + dropped = 10 s at $rate fps +- 2 ($written + $dropped)" \
            near "$((written + dropped))" "$((rate * 10))" 2
        duration=$(value "$out/rec.$ext" stream=duration "v:$i")
        [[ $duration == N/A ]] && duration=$(value "$out/rec.$ext" format=duration)
        # Up to one frame over, or up to two short: the recorder takes one or two frames missing
        # at the end (dropped by a loop that fell behind, or a live source's jitter) as no gap,
        # and repeats no picture for them (VideoPath.maxShift).
        middle=$("$VM_PYTHON" -I -S -c "print(10 - 0.5 / $rate)")
        tolerance=$("$VM_PYTHON" -I -S -c "print(1.5 / $rate + 0.001)")
        check "$ext camera $((i + 1)): lasts 10 s, 2 frames short to 1 over ($duration)" \
            near "$duration" "$middle" "$tolerance"
    done
    for i in 0 1; do
        rate=$(json "$VM_OUT/$name.out" "d['microphones'][$i]['sample_rate']")
        check_eq "$ext microphone $((i + 1)): the summary's rate is ffprobe's" \
            "$(value "$out/rec.$ext" stream=sample_rate "a:$i")" "$rate"
        duration=$(value "$out/rec.$ext" stream=duration "a:$i")
        [[ $duration == N/A ]] && duration=$(value "$out/rec.$ext" format=duration)
        check "$ext microphone $((i + 1)): lasts 10 s +- 0.1 ($duration)" near "$duration" 10 0.1
    done
    check "$ext: decodes cleanly" clean "$out/rec.$ext"
    rm -f "$out/rec.$ext"
done

# Each device has its own fate: one camera unplugged (vivid's disconnect control) 3 s in. With
# --reconnect it is waited for and its track has the gap, while the other camera's has none; without
# it the recording ends with 74 and every track is finalized up to there.
both=(--codec raw --video /dev/video10 --video-size 320x180 --framerate 30 --video /dev/video11
    --video-size 320x180 --framerate 30 --audio $mic --duration 10 --json)

# Records both cameras into $out/NAME.mkv (stdout and stderr in $VM_OUT/NAME.out and .err) with
# ARGS, unplugs the second 3 s after the file appeared, and prints the exit status.
lose_second() { # NAME ARGS...
    local name=$1 rc=0 pid
    shift
    "$CAPTURE" record "${both[@]}" "$@" "$out/$name.mkv" >"$VM_OUT/$name.out" 2>"$VM_OUT/$name.err" &
    pid=$!
    appeared "$out/$name.mkv" >/dev/null || true
    sleep 3
    v4l2-ctl -d /dev/video11 -c disconnect=1
    wait $pid || rc=$?
    echo "$rc"
}

rc=$(lose_second lost --reconnect)
check_eq "one camera lost, --reconnect: exit 0" 0 "$rc"
check_eq "one camera lost, --reconnect: the lost camera came back once" 1 \
    "$(json "$VM_OUT/lost.out" "d['cameras'][1]['reconnects']")"
# The reader waits half a second before it opens the camera again: 15 intervals at 30 fps, less
# one either side for rounding into slots (as record-reconnect checks), and the file's second
# video stream skips them.
gaps=$(json "$VM_OUT/lost.out" "d['cameras'][1]['frames_dropped']['gaps']")
check "one camera lost, --reconnect: its track has the gap ($gaps frames)" test "$gaps" -ge 13
# The most frames one hole in the file's video stream N skips.
largest_hole() { # N
    ffprobe -v error -select_streams "v:$1" -show_entries packet=pts_time -of csv=p=0 "$out/lost.mkv" |
        "$VM_PYTHON" -I -S -c 'import sys; t = sorted(float(l) for l in sys.stdin if l.strip()); print(round(max(b - a for a, b in zip(t, t[1:])) * 30) - 1)'
}
skipped=$(largest_hole 1)
check "one camera lost, --reconnect: the file skips them too ($skipped frames)" test "$skipped" -ge 13
# The other camera was not lost, and its track has no such hole. A frame or a few that vivid
# itself skips on the guest's busy CPU are its own gaps, not the other camera's loss.
check_eq "one camera lost, --reconnect: the other camera was not lost" 0 \
    "$(json "$VM_OUT/lost.out" "d['cameras'][0]['reconnects']")"
other=$(largest_hole 0)
check "one camera lost, --reconnect: the other camera's track has no such hole (at most $other frames)" \
    test "$other" -lt 13
duration=$(value "$out/lost.mkv" format=duration)
check "one camera lost, --reconnect: the file lasts 10 s +- 0.5 ($duration)" near "$duration" 10 0.5
rm -f "$out/lost.mkv"

rc=$(lose_second ended)
check_eq "one camera lost: exit 74" 74 "$rc"
check "one camera lost: stderr names it" grep -q "/dev/video11" "$VM_OUT/ended.err"
check_eq "one camera lost: every track finalized" $'video\nvideo\naudio' "$(value "$out/ended.mkv" stream=codec_type)"
check "one camera lost: decodes cleanly" clean "$out/ended.mkv"
# vivid's node comes back once its last handle is closed.
for _ in $(seq 50); do v4l2-ctl -d /dev/video11 --all >/dev/null 2>&1 && break; sleep 0.1; done

# The same device twice is one device: refused before anything opens.
check_eq "the same camera twice: exit 64" 64 \
    "$(run twice "$CAPTURE" record --video /dev/video10 --video 0 --duration 1 "$out/twice.mkv")"
check "the same camera twice: said so" grep -q "same device" "$VM_OUT/twice.err"
check "the same camera twice: no file" test ! -e "$out/twice.mkv"
finish
