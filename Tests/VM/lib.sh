# Shared helpers for the guest tests in Tests/VM/tests: source it, make checks, end with finish.
#
#   check "what" COMMAND...          passes when COMMAND exits 0
#   check_eq "what" EXPECTED ACTUAL  passes when the two strings are equal (shows both if not)
#   json FILE 'EXPR'                 prints a Python expression over the JSON in FILE, bound to d
#   json_map ARRAY FILE 'EXPR'       fills associative ARRAY from a dict-valued expression
#   json_has FILE KEY...             succeeds when FILE is a JSON object with these keys
#   finish                           prints the tally; exits 1 if any check failed
#
# Each check prints one "ok - ..." or "not ok - ..." line so a failing run says what broke.
# jq may be missing on a fresh machine; the system python3 is always there with Debian's tools.
#
# Cameras fed by a program (module v4l2loopback with exclusive_caps=1, see README.md): a node
# becomes a capture device once a producer writes to it, and offers the producer's format and size.
#   loop_producer_start NODE CODEC SIZE RATE [BSF]
#                                    plays a camera into NODE: testsrc2 at SIZE (WxH) and RATE
#                                    (fps) as CODEC, mjpeg or h264 (libx264 ultrafast, a keyframe
#                                    every 15 frames, SPS/PPS in-band, Annex B), encoded once
#                                    before it starts (10 s of frames, in VM_OUT, played over and
#                                    over) and written by a writer that only paces and writes, so
#                                    no encoder in the guest competes with capture; BSF is a
#                                    bitstream filter that damages the packets, e.g.
#                                    noise=amount=200. The writer logs each buffer it wrote (see
#                                    loop_sent). Returns once NODE offers the format.
#   loop_producer_stop NODE          stops NODE's producer (SIGTERM) and waits for it to go
#   loop_sent NODE                   what NODE's last producer wrote, one line a buffer:
#                                    "TIME SIZE MD5" (TIME: CLOCK_MONOTONIC seconds of the write)
#   loop_wait_capture NODE FOURCC    waits up to 30 s for NODE to be a capture device offering
#                                    FOURCC (MJPG, H264); fails otherwise
#   loop_write_frames NODE CODEC SIZE RATE PLAN...
#                                    writes chosen buffers into NODE in the background at RATE,
#                                    one write(2) per buffer (v4l2loopback makes each write one
#                                    buffer of exactly that many bytes); CODEC is mjpeg (frames:
#                                    30 JPEGs of testsrc2, in VM_OUT/frames-mjpeg-SIZE-RATE-30) or h264
#                                    (30 access units, Annex B, an IDR with SPS/PPS every 15);
#                                    PLAN items are KIND:N with KIND good (the next whole frame),
#                                    trunc (its first third), zero (0 bytes), garbage (random
#                                    bytes), or stop (close the node and exit early); until:FILE
#                                    writes good frames until FILE exists (a recording started,
#                                    so what follows reaches its reader); stop it
#                                    early with loop_producer_stop; logged as loop_producer_start's
#   loop_reset NODE                  lets NODE take a new writer (v4l2loopback 0.12.7 refuses one
#                                    after a writer that used write(2), see below); the two
#                                    producers above call it
#   loop_packet_hashes FILE          the "size md5" of each video packet in FILE, one a line
#   wait_for PID SECONDS             waits for PID, a child of this shell; sets vm_status to its
#                                    exit status, or to 124 after killing it at SECONDS
#   run_for NAME SECONDS COMMAND...  runs COMMAND with stdout and stderr in VM_OUT/NAME.out and
#                                    .err; prints its exit status, or 124 if it was still running
#                                    after SECONDS and had to be killed (a hang fails one check,
#                                    not the whole test)
#
# Running and reading back:
#   run NAME COMMAND...              COMMAND's stdout and stderr into VM_OUT/NAME.out and .err; prints its status
#   value FILE ENTRIES [STREAM]      ffprobe's ENTRIES of FILE one a line; none (ffprobe says why) if unreadable
#   near A B TOLERANCE               succeeds when |A - B| <= TOLERANCE; fails when either is not a number
#   clean FILE                       ffmpeg decodes FILE without a message; prints the first ones if not
#   appeared FILE                    waits up to 20 s for FILE to exist; prints when it did, as date +%s%N
#   tenths_since START               prints the tenths of a second since START (from date +%s%N)
#   tone_start [LAVFI OPTIONS...]    ffmpeg plays LAVFI (default 1 kHz sine, 48 kHz stereo) into the loopback;
#                                    returns once it plays
#   tone_stop                        stops the tone (SIGTERM) and waits for it
#   keep_modes NODE...               notes each NODE's owner and mode; restore_modes puts them back
#   record_formats CAM DIR FORMATS   records 4 raw pictures at 320x180 of each of FORMATS (lines of
#                                    "FOURCC PIXFMT CODE", a space in the fourcc as _, as probe --json
#                                    gives fourcc, ffmpeg_name and code) into DIR (the guest's own
#                                    memory), and checks each is stored as PIXFMT and is byte for
#                                    byte what v4l2-ctl --stream-mmap writes (the picture held
#                                    still: osd_text_mode=2, no movement)
#   fault_shim                       builds Tests/VM/shims/ioctl-faults.c (device faults on demand,
#                                    configured by FAULT_* variables: see its header) into VM_OUT
#                                    once, with CAPTURE_CC or cc, gcc or clang; prints its path,
#                                    for LD_PRELOAD

# Prefer the distribution's python3: a user-level one (pyenv and the like) may be absent in CI.
if [[ -x /usr/bin/python3 ]]; then
    VM_PYTHON=/usr/bin/python3
else
    VM_PYTHON=python3
fi

vm_checks=0
vm_failed=0

check() { # WHAT COMMAND...
    local what=$1; shift
    vm_checks=$((vm_checks + 1))
    if "$@"; then
        printf 'ok - %s\n' "$what"
    else
        printf 'not ok - %s\n' "$what"
        vm_failed=$((vm_failed + 1))
    fi
}

check_eq() { # WHAT EXPECTED ACTUAL
    vm_checks=$((vm_checks + 1))
    if [[ $2 == "$3" ]]; then
        printf 'ok - %s\n' "$1"
    else
        printf 'not ok - %s\n' "$1"
        printf '  expected: %s\n' "${2//$'\n'/$'\n            '}"
        printf '  actual:   %s\n' "${3//$'\n'/$'\n            '}"
        vm_failed=$((vm_failed + 1))
    fi
}

# Values print the way they compare with plain strings from v4l2-ctl or arecord: a string as
# is, anything else (number, bool, null, list, dict) as JSON. -I -S: no site or user packages,
# which also halves the start-up time under emulation.
vm_json_prelude='
import json, sys
def show(x):
    s = x if isinstance(x, str) else json.dumps(x, sort_keys=True)
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
with open(sys.argv[1]) as f:
    text = f.read()
# A record --json run prints its events first, one object a line, then the summary.
events = []
while text.startswith("{\"") and "\n" in text:
    line, rest = text.split("\n", 1)
    try:
        events.append(json.loads(line))
    except ValueError:
        break
    text = rest
d = json.loads(text)
v = eval(sys.argv[2], {"d": d, "events": events, "json": json})
'

# A list comes out one item a line.
json() { # FILE EXPR
    "$VM_PYTHON" -I -S -c "$vm_json_prelude"'
for x in (v if isinstance(v, (list, tuple)) else [v]):
    print(show(x))
' "$1" "$2"
}

# Many values in one go (each start of python costs a fraction of a second in the guest): EXPR
# gives a dict, whose keys and shown values fill the associative array ARRAY.
json_map() { # ARRAY FILE EXPR
    local -n vm_map=$1
    local k v
    while IFS=$'\t' read -r k v; do
        vm_map[$k]=$v
    done < <("$VM_PYTHON" -I -S -c "$vm_json_prelude"'
for k, x in v.items():
    print(show(k) + "\t" + show(x))
' "$2" "$3")
}

json_has() { # FILE KEY...
    "$VM_PYTHON" -I -S -c "$vm_json_prelude"'
sys.exit(0 if isinstance(d, dict) and all(k in d for k in sys.argv[3:]) else 1)
' "$1" True "${@:2}" 2>/dev/null
}

# The capture binary comes from the host build (run-suite sets CAPTURE); without it the test
# cannot say anything, which is a failure, not a skip.
need_capture() {
    if [[ -z ${CAPTURE:-} || ! -x $CAPTURE ]]; then
        printf 'not ok - capture binary is executable (CAPTURE=%s)\n' "${CAPTURE:-}"
        vm_failed=$((vm_failed + 1))
        finish
    fi
}

declare -A vm_producers=()

loop_wait_capture() { # NODE FOURCC
    local _
    for _ in $(seq 150); do
        if v4l2-ctl -d "$1" --list-formats 2>/dev/null | grep -q "'$2'"; then
            return 0
        fi
        sleep 0.2
    done
    printf '  %s never offered %s for capture\n' "$1" "$2" >&2
    return 1
}

loop_producer_start() { # NODE CODEC SIZE RATE [BSF]
    local node=$1 codec=$2 size=$3 rate=$4 bsf=${5:-}
    loop_feed "$node" "$codec" "$size" "$rate" "$((rate * 10))" "$bsf" good:1000000
}

loop_producer_stop() { # NODE
    local pid=${vm_producers[$1]:-}
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    unset "vm_producers[$1]"
}

# v4l2loopback 0.12.7 forgets that a node takes writers once a writer that used write(2) (ffmpeg,
# the frame writer) has closed it: only the close of one that called VIDIOC_STREAMON(OUTPUT) says
# so again, and the node caps the kernel checks S_FMT against change only at VIDIOC_QUERYCAP.
# Without both, the next writer's S_FMT fails with EINVAL and the node offers neither capture
# nor output. STREAMON may fail for want of a format; it has marked the handle as a writer first.
vm_loop_reset='
import errno, fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.ioctl(fd, 0x40045612, struct.pack("=I", 2))  # VIDIOC_STREAMON, V4L2_BUF_TYPE_VIDEO_OUTPUT
except OSError:
    pass
os.close(fd)
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.ioctl(fd, 0x80685600, bytearray(104))  # VIDIOC_QUERYCAP
os.close(fd)
'

loop_reset() { # NODE
    "$VM_PYTHON" -I -S -c "$vm_loop_reset" "$1"
}

vm_frame_writer='
import fcntl, hashlib, os, signal, struct, sys, time
node, fourcc, size, rate, folder = sys.argv[1:6]
w, h = (int(x) for x in size.split("x"))
frames = [open(os.path.join(folder, f), "rb").read() for f in sorted(os.listdir(folder))]
fd = os.open(node, os.O_RDWR)
# VIDIOC_S_FMT = _IOWR("V", 5, struct v4l2_format): type, then the pix member of a union that
# starts at offset 8 (pointer alignment) and is 200 bytes long.
pix = struct.pack("=12I", w, h, struct.unpack("<I", fourcc.encode())[0], 1, 0, w * h * 2, 0, 0, 0, 0, 0, 0)
fcntl.ioctl(fd, 0xC0D05605, struct.pack("=I4x", 2) + pix.ljust(200, b"\0"))
# The log is kept in memory and written when the writer ends (its plan done, or SIGTERM from
# loop_producer_stop): a write to the shared folder for every frame paced the frames unevenly.
log = []
def flush(*_):
    sys.stdout.write("".join(log))
    sys.stdout.flush()
    os._exit(0)
signal.signal(signal.SIGTERM, flush)
n = 0
t0 = time.monotonic()
def plan():
    for item in sys.argv[6:]:
        kind, arg = item.split(":", 1)
        if kind == "until":
            # Good frames until the file ARG exists (a recording has started).
            while not os.path.exists(arg):
                yield "good"
            continue
        for _ in range(int(arg)):
            yield kind
for kind in plan():
    if kind == "stop":
        flush()
    good = frames[n % len(frames)]
    data = {"good": good, "trunc": good[: len(good) // 3], "zero": b"",
            "garbage": os.urandom(len(good))}[kind]
    os.write(fd, data)
    log.append("%.6f %d %s\n" % (time.monotonic(), len(data), hashlib.md5(data).hexdigest()))
    n += 1
    time.sleep(max(0.0, t0 + n / float(rate) - time.monotonic()))
flush()
'

loop_write_frames() { # NODE CODEC SIZE RATE PLAN...
    local node=$1 codec=$2 size=$3 rate=$4; shift 4
    loop_feed "$node" "$codec" "$size" "$rate" 30 "" "$@"
}

# Encodes COUNT frames once into a folder of their own (one file a packet, by the image2 muxer),
# then starts the writer on them with PLAN.
loop_feed() { # NODE CODEC SIZE RATE COUNT BSF PLAN...
    local node=$1 codec=$2 size=$3 rate=$4 count=$5 bsf=$6; shift 6
    local frames enc fourcc ext
    frames=$VM_OUT/frames-$codec-$size-$rate-$count${bsf:+-${bsf//[^a-z0-9]/_}}
    case $codec in
        mjpeg) enc=(-c:v mjpeg -q:v 5) fourcc=MJPG ext=jpg ;;
        # No B-frames (ultrafast), so packets leave in capture order like a camera's; without a
        # global header x264 puts SPS and PPS before every IDR.
        h264) enc=(-c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 15) fourcc=H264 ext=h264 ;;
        *) printf 'loop_feed: unknown codec %s\n' "$codec" >&2; return 64 ;;
    esac
    if [[ ! -d $frames ]]; then
        mkdir -p "$frames.part"
        ffmpeg -nostdin -v error -f lavfi -i "testsrc2=size=$size:rate=$rate" -frames:v "$count" "${enc[@]}" \
            ${bsf:+-bsf:v "$bsf"} -f image2 "$frames.part/%04d.$ext" || return 1
        mv "$frames.part" "$frames"
    fi
    loop_reset "$node" || return 1
    "$VM_PYTHON" -I -S -c "$vm_frame_writer" "$node" "$fourcc" "$size" "$rate" "$frames" "$@" \
        >"$VM_OUT/writer-${node##*/}.log" 2>&1 &
    vm_producers[$node]=$!
    loop_wait_capture "$node" "$fourcc"
}

loop_sent() { # NODE
    grep -E '^[0-9.]+ [0-9]+ [0-9a-f]{32}$' "$VM_OUT/writer-${1##*/}.log"
}

loop_packet_hashes() { # FILE
    ffmpeg -nostdin -v error -i "$1" -map 0:v:0 -c copy -f framemd5 - | awk -F', *' '!/^#/ { print $5, $6 }'
}

# Lines of a stderr FILE but the encoder budget's warning, which a guest slowed by other work
# may add before a recording (an H.264 preset timed short of real time): a test that expects one
# line, the error, holds however fast the guest runs.
stderr_lines() { # FILE
    grep -cv '^Warning: .* keeps [0-9.]*x' "$1" || true
}

wait_for() { # PID SECONDS
    local pid=$1 limit=$2 waited=0
    vm_status=0
    while kill -0 "$pid" 2>/dev/null && ((waited < limit * 10)); do
        sleep 0.1
        waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        vm_status=124
        return 0
    fi
    wait "$pid" || vm_status=$?
}

run_for() { # NAME SECONDS COMMAND...
    local name=$1 limit=$2
    shift 2
    "$@" >"$VM_OUT/$name.out" 2>"$VM_OUT/$name.err" &
    wait_for $! "$limit"
    echo "$vm_status"
}

run() { # NAME COMMAND...
    local name=$1 rc=0
    shift
    "$@" >"$VM_OUT/$name.out" 2>"$VM_OUT/$name.err" || rc=$?
    echo "$rc"
}

value() { # FILE ENTRIES [STREAM]
    ffprobe -v error ${3:+-select_streams "$3"} -show_entries "$2" -of default=noprint_wrappers=1:nokey=1 "$1" || true
}

packets() { # FILE [STREAM]: how many packets the stream holds (v:0 unless named), as ffprobe counts them
    ffprobe -v error -count_packets -select_streams "${2:-v:0}" -show_entries stream=nb_read_packets \
        -of default=noprint_wrappers=1:nokey=1 "$1" || true
}

# A refused `capture controls` set: its exit status, a line on stderr matching PATTERN, and the
# device's state (as the command STATE prints it) the same after as before.
# refuse NAME STATUS PATTERN STATE DEVICE SETS...
refuse() {
    local name=$1 status=$2 pattern=$3 state=$4 device=$5 before
    shift 5
    before=$($state)
    check_eq "$name: exit $status" "$status" "$(run "$name" "$CAPTURE" controls "$device" "$@")"
    check "$name: stderr says why" grep -q -- "$pattern" "$VM_OUT/$name.err"
    check_eq "$name: nothing changed" "$before" "$($state)"
}

# An asoundrc with microphones the loopback card's device 1 offers through type hw definitions
# without a rate (hw_params would then fail for every program that asked for one): mono24, one
# channel of S24_3LE, and array4, four of S32_LE. HOME moves to the test's folder to hold it.
loopback_asoundrc() {
    export HOME=$VM_OUT/home
    mkdir -p "$HOME"
    cat >"$HOME/.asoundrc" <<'ASOUNDRC'
pcm.mono24 {
    type hw
    card Loopback
    device 1
    subdevice 0
    format S24_3LE
    channels 1
}
pcm.array4 {
    type hw
    card Loopback
    device 1
    subdevice 0
    format S32_LE
    channels 4
}
ASOUNDRC
}

near() { # A B TOLERANCE
    "$VM_PYTHON" -I -S -c "import sys; sys.exit(abs(float('$1') - float('$2')) > float('$3'))"
}

# ffmpeg's null output takes its time base from the rate it guesses for the stream; a camera
# whose frames come unevenly (a producer on the guest's one busy CPU) then has two frames in one
# of its ticks, which ffmpeg reports about its own output. -enc_time_base -1 keeps the file's
# time base, so what remains is what the file itself holds: decoding errors, bad timestamps.
clean() { # FILE
    local said
    said=$(ffmpeg -nostdin -v error -i "$1" -enc_time_base -1 -f null - 2>&1 | head -n 3 || true)
    [[ -z $said ]] || printf '  ffmpeg: %s\n' "${said//$'\n'/$'\n  ffmpeg: '}"
    [[ -z $said ]]
}

# The recorder creates its file with the first frame it writes.
appeared() { # FILE
    local _
    for _ in $(seq 400); do
        [[ -e $1 ]] && { date +%s%N; return 0; }
        sleep 0.05
    done
    return 1
}

tenths_since() { # START
    echo $((($(date +%s%N) - $1) / 100000000))
}

# What plays into snd-aloop's playback side (DEV=0) comes out of its capture side (DEV=1), in the
# format, rate and channels it is played in. lavfi's sine has an amplitude of 1/8.
vm_tone=

tone_start() { # [LAVFI OPTIONS...]
    local source=sine=f=1000:r=48000
    if (($# > 0)); then
        source=$1
        shift
    else
        set -- -ac 2
    fi
    ffmpeg -nostdin -v error -re -f lavfi -i "$source" "$@" -f alsa hw:CARD=Loopback,DEV=0,SUBDEV=0 &
    vm_tone=$!
    # Returns once the tone plays: ffmpeg's first start in the guest takes seconds, and until it
    # plays, the capture side offers every format and rate instead of the tone's.
    local _
    for _ in $(seq 200); do
        grep -qs 'state: RUNNING' /proc/asound/Loopback/pcm0p/sub0/status && return 0
        sleep 0.1
    done
    printf '  the tone never started playing into the loopback\n' >&2
    return 1
}

tone_stop() {
    [[ -n $vm_tone ]] || return 0
    kill -TERM "$vm_tone" 2>/dev/null || true
    wait "$vm_tone" 2>/dev/null || true
    vm_tone=
}

vm_modes=

keep_modes() { # NODE...
    vm_modes=$(stat -c '%u:%g %a %n' "$@")
}

restore_modes() {
    local owner mode node
    [[ -n $vm_modes ]] || return 0
    while read -r owner mode node; do
        chown "$owner" "$node"
        chmod "$mode" "$node"
    done <<<"$vm_modes"
}

fault_shim() {
    local library=$VM_OUT/ioctl-faults.so cc=${CAPTURE_CC:-}
    if [[ ! -f $library ]]; then
        [[ -n $cc ]] || cc=$(command -v cc || command -v gcc || command -v clang) || {
            printf 'fault_shim: no C compiler (set CAPTURE_CC)\n' >&2
            return 1
        }
        "$cc" -shared -fPIC -O2 -o "$library" "$(dirname "${BASH_SOURCE[0]}")/shims/ioctl-faults.c" -ldl || return 1
    fi
    echo "$library"
}

# Frames a camera handed over twice, as the fault shim logs them (FAULT_LOG, no fault needed):
# the same sequence number from two good VIDIOC_DQBUFs in a row. vivid repeats its first frame
# when its thread wakes early on a slow machine; a recording counts each repeat it meets as a
# late frame, on top of the slots it covers. repeats LOG
repeats() { awk '/ dqbuf [0-9]+ ok / { if (seen && $5 == last) n++; last = $5; seen = 1 } END { print n + 0 }' "$1"; }

# Frames a recording cannot place by their timestamps alone, as the fault shim logs them: each
# one handed over twice, and each stamped half a frame interval or more away from where its
# sequence number puts it on the grid of the first frame (vivid stamps a frame when its thread
# gets to it, late on a busy guest). A recording places frames by time, so such a frame moves
# into a neighbouring slot, and the frames after it move with it until the next gap: each one
# can change the gaps a summary counts by one against the sequence numbers the camera skipped.
# off_grid LOG FPS
off_grid() {
    awk -v fps="$2" '/ dqbuf [0-9]+ ok / {
            if (seen && $5 == last) { n++; next }
            if (!seen) { s0 = $5; t0 = $6 } else {
                d = ($6 - t0) * fps / 1e6 - ($5 - s0)
                if (d >= 0.5 || d <= -0.5) n++
            }
            last = $5; seen = 1
        } END { print n + 0 }' "$1"
}

# One picture of the capture's raw file against one that v4l2-ctl wrote, planes in FFmpeg's order
# (v4l2-ctl writes the planes as the camera holds them: YVU formats have V before U, NV16 its
# chroma interleaved).
same_picture() { # FOURCC PIXFMT CAPTURED STREAMED
    "$VM_PYTHON" - "$@" <<'PY'
import sys
fourcc, pixfmt, captured, streamed = sys.argv[1:]
w, h = 320, 180
a = open(captured, 'rb').read()
b = open(streamed, 'rb').read()
size = len(a) // 4  # four pictures in each file
if size == 0 or len(b) < 4 * size:
    sys.exit(f"sizes: capture {len(a)}, v4l2-ctl {len(b)}")
a, b = a[3 * size:4 * size], b[3 * size:4 * size]
if fourcc in ('NV16', 'NM16', 'NV61', 'NM61'):
    # Semi-planar 4:2:2 is recorded as planar yuv422p (FFmpeg 5.1 converts no NV16).
    pairs = b[w * h:2 * w * h]
    u, v = (pairs[0::2], pairs[1::2]) if fourcc in ('NV16', 'NM16') else (pairs[1::2], pairs[0::2])
    b = b[:w * h] + u + v
elif fourcc in ('YV12', 'YM21', 'YM61', 'YM42'):
    chroma = {'yuv420p': w * h // 4, 'yuv422p': w * h // 2, 'yuv444p': w * h}[pixfmt]
    b = b[:w * h] + b[w * h + chroma:w * h + 2 * chroma] + b[w * h:w * h + chroma]
sys.exit(0 if a == b else f"pictures differ ({size} bytes)")
PY
}

record_formats() { # CAM DIR FORMATS
    local cam=$1 out=$2 name pixfmt code fourcc stored rc
    while read -r name pixfmt code; do
        [[ -n $name ]] || continue
        fourcc=${name//_/ }
        stored=$pixfmt
        rc=$(run "raw-$name" "$CAPTURE" record --video "$cam" --video-size 320x180 --framerate 30 \
            --input-format "$fourcc" --codec raw --frames 4 --json "$out/$name.nut")
        if [[ $rc == 64 ]] && grep -q "files cannot hold raw $pixfmt pictures" "$VM_OUT/raw-$name.err"; then
            # No container reads these back raw (NV24, NV42): stored as 4:4:4 planar, converted alike.
            stored=yuv444p
            rc=$(run "raw-$name" "$CAPTURE" record --video "$cam" --video-size 320x180 --framerate 30 \
                --input-format "$fourcc" --pixel-format $stored --codec raw --frames 4 --json "$out/$name.nut")
        fi
        check_eq "$fourcc: exit 0" 0 "$rc"
        [[ $rc == 0 ]] || continue
        # The packets as stored, and what ffmpeg says of the stream.
        ffmpeg -nostdin -v info -i "$out/$name.nut" -map 0:v -c copy -f rawvideo -y "$out/$name.raw" \
            2>"$out/$name.info" || true
        check "$fourcc: stored as $stored 320x180 ($(grep -o 'Video: .*' "$out/$name.info" | head -1))" \
            grep -q "rawvideo.*, $stored\b.*, 320x180" "$out/$name.info"
        # By its code: v4l2-ctl takes a number for a big-endian format too.
        v4l2-ctl -d "$cam" -v width=320,height=180,pixelformat="$code" --stream-mmap --stream-count=4 \
            --stream-to="$out/$name.v4l2" 2>/dev/null
        if [[ $stored != "$pixfmt" ]]; then
            ffmpeg -nostdin -v error -f rawvideo -pix_fmt "$pixfmt" -s 320x180 -i "$out/$name.v4l2" -pix_fmt $stored \
                -f rawvideo -y "$out/$name.v4l2.$stored"
            mv "$out/$name.v4l2.$stored" "$out/$name.v4l2"
        fi
        check "$fourcc: 4 pictures, each what v4l2-ctl streams" \
            same_picture "$fourcc" "$stored" "$out/$name.raw" "$out/$name.v4l2"
        rm -f "$out/$name".*
    done <<<"$3"
}

finish() {
    printf '%d checks, %d failed\n' "$vm_checks" "$vm_failed"
    [[ $vm_failed -eq 0 ]] || exit 1
    exit 0
}
