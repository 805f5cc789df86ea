#!/usr/bin/env bash
# The preview of an MJPEG camera (v4l2loopback fed by ffmpeg; issue 26): with --serve the parts of
# /stream are the camera's own JPEGs byte for byte, nothing decoded or encoded for the preview.
# The oracle is the same recording copied to a file (--codec copy writes each JPEG as it came):
# every part read by the Python client is one of the file's packets, size and MD5 alike.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: v4l2loopback devices=4 video_nr=30,31,32,33 exclusive_caps=1,1,1,1 card_label=loop30,loop31,loop32,loop33
# timeout: 180
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video30
out=$(mktemp -d)
client=$(dirname "$0")/../../Preview/preview_client.py
trap 'loop_producer_stop $cam' EXIT
# The guest has no network, but the preview needs its loopback interface.
ip link set lo up 2>/dev/null || busybox ifconfig lo 127.0.0.1 up
"$CAPTURE" --version >/dev/null # the first start under emulation is the slowest

serving() { # BASE: true once the recording is under way
    "$VM_PYTHON" "$client" get "$1/status.json" 2>/dev/null | grep -q '"state": "recording"'
}

check "camera fed: mjpeg 320x180 15" loop_producer_start $cam mjpeg 320x180 15
"$CAPTURE" record --video $cam --codec copy --duration 14 --serve 127.0.0.1:8080 --serve-rate 5 --json \
    "$out/copy.mkv" >"$VM_OUT/serve.out" 2>"$VM_OUT/serve.err" &
pid=$!
for _ in $(seq 1 150); do serving http://127.0.0.1:8080 && break; sleep 0.2; done
check "the preview answers while recording" serving http://127.0.0.1:8080
rc=0
"$VM_PYTHON" "$client" stream http://127.0.0.1:8080/stream --parts 20 --size 320x180 --save "$out/part" \
    >"$VM_OUT/serve-stream.out" 2>"$VM_OUT/serve-stream.err" || rc=$?
check_eq "20 parts, each a whole 320x180 JPEG" 0 "$rc"
[[ $rc == 0 ]] || sed 's/^/  client: /' "$VM_OUT/serve-stream.err"
wait_for $pid 60
loop_producer_stop $cam
check_eq "the recording: exit 0" 0 "$vm_status"
[[ $vm_status == 0 ]] || sed 's/^/  stderr: /' "$VM_OUT/serve.err"

hashes=$(loop_packet_hashes "$out/copy.mkv")
found=0 parts=0
for part in "$out"/part-*.jpg; do
    [[ -e $part ]] || continue
    parts=$((parts + 1))
    line="$(stat -c %s "$part") $(md5sum "$part" | cut -d' ' -f1)"
    grep -qxF "$line" <<<"$hashes" && found=$((found + 1))
done
check_eq "every part is one of the camera's JPEGs, byte for byte ($found of $parts)" "20 20" "$found $parts"
# The guest's one emulated CPU runs the producer, the client and the recorder at once, so a frame
# may come late for reasons of its own (a clean run dropped 1): RecordServeTests holds the
# recording's frames against a run without --serve on the host. Here the file must hold every
# frame the summary says it wrote.
if json_has "$VM_OUT/serve.out" video; then
    written=$(json "$VM_OUT/serve.out" 'd["video"]["frames_written"]')
    check_eq "the file holds the frames written" "$written" "$(packets "$out/copy.mkv")"
else
    check "a JSON summary" false
fi
finish
