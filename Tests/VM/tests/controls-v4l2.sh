#!/usr/bin/env bash
# Issue 12: `capture controls` on vivid, which has every control type (integers, booleans, menus
# with gaps, integer menus, int64, bitmask, string, buttons, arrays, a read-only control) and a
# gain_automatic/gain auto cluster. v4l2-ctl is the oracle: the listing equals
# `v4l2-ctl --list-ctrls-menus` value for value, every set reads back the same through
# `v4l2-ctl --get-ctrl`, refused sets change nothing, and save/reset/load restores every value.
# `record --control` changes the recorded picture as the same control set by v4l2-ctl does.
# module: vivid n_devs=1 node_types=0x1 vid_cap_nr=10
# timeout: 360
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

cam=/dev/video10
out=$(mktemp -d)

# Tests sharing this boot expect the camera's format as the driver started with it; the
# recordings below leave another one current, so it is put back at the end.
format=$(v4l2-ctl -d $cam --get-fmt-video | awk -F': *' '
    /Width\/Height/ { split($2, wh, "/") }
    /Pixel Format/ { split($2, pf, "\047"); print "width=" wh[1] ",height=" wh[2] ",pixelformat=" pf[2] }')
restore_format() { v4l2-ctl -d $cam --set-fmt-video="$format" >/dev/null 2>&1 || true; }
trap restore_format EXIT
# Every readable value as v4l2-ctl reads it, one "name value" a line; gain is left out while
# gain_automatic is on, when the camera changes it by itself.
values() {
    local auto
    auto=$(v4l2-ctl -d $cam -C gain_automatic | awk '{print $2}')
    v4l2-ctl -d $cam -l | awk -v auto="$auto" '
        /value=/ && !/write-only/ {
            v = $0; sub(/.*value=/, "", v); sub(/ flags=.*/, "", v)
            if (!($1 == "gain" && auto == 1)) print $1, v
        }'
}

# Leave the camera as it was found, for the tests that share this boot.
v4l2-ctl -d $cam -c gain_automatic=1
"$CAPTURE" controls $cam --save "$out/initial.json" >/dev/null
trap '"$CAPTURE" controls $cam --load "$out/initial.json" >/dev/null; restore_format' EXIT

# The listing, value for value: name, ID, type, range, step, default, value, flags and menu
# entries from v4l2-ctl's text against `capture controls --json`.
v4l2-ctl -d $cam --list-ctrls-menus >"$VM_OUT/ctl-list.txt"
check_eq "controls --json: exit 0" 0 "$(run list "$CAPTURE" controls --json $cam)"
check_eq "controls (text): exit 0" 0 "$(run listtext "$CAPTURE" controls $cam)"
compare_py='
import json, re, sys
want = {}
current = None
for line in open(sys.argv[1]):
    m = re.match(r"\s*(\w+) (0x[0-9a-f]{8}) \((\w+)\)\s*: (.*)$", line)
    if m:
        name, cid, ctype, rest = m.groups()
        fields = dict(re.findall(r"(\w+)=(\x27[^\x27]*\x27|\S+)", rest.split(" flags=")[0]))
        flags = rest.split(" flags=")[1].split(", ") if " flags=" in rest else []
        current = want[name] = {"id": int(cid, 16), "type": ctype, "fields": fields,
                                "flags": flags, "menu": {}}
        continue
    m = re.match(r"\t\t\t\t(\d+): (.*)$", line)
    if m and current is not None:
        current["menu"][int(m.group(1))] = m.group(2)
got = {c["name"]: c for c in json.load(open(sys.argv[2]))["controls"]}
problems = []
if set(want) != set(got):
    problems.append("names differ: %s" % sorted(set(want) ^ set(got)))
for name in sorted(set(want) & set(got)):
    w, g = want[name], got[name]
    def bad(what, a, b):
        problems.append("%s %s: v4l2-ctl %r, capture %r" % (name, what, a, b))
    if w["id"] != g["id"]: bad("id", w["id"], g["id"])
    if w["type"] != g["type"]: bad("type", w["type"], g["type"])
    f = w["fields"]
    for key, ours in [("min", "minimum"), ("max", "maximum"), ("step", "step"), ("default", "default_value")]:
        if key in f and int(f[key], 0) != g[ours]:
            bad(key, f[key], g[ours])
    volatile = "volatile" in w["flags"]
    if "value" in f and not volatile and "write-only" not in w["flags"] and g["dims"] == []:
        v = f["value"]
        if g["type"] == "str":
            if v.strip("\x27") != g.get("string_value"): bad("value", v, g.get("string_value"))
        elif g["type"] == "bitmask":
            # v4l2-ctl prints a bitmask value as a signed 32-bit number
            if int(v, 0) & 0xffffffff != g["value"]: bad("value", v, g["value"])
        elif g["type"] != "area" and int(v, 0) != g["value"]:
            bad("value", v, g["value"])
    # v4l2-ctl names the dynamic-array flag only by its number
    flags = ["dynamic-array" if x == "0x00000800" else x for x in w["flags"]]
    if flags != g["flags"]: bad("flags", flags, g["flags"])
    ours = {e["index"]: (e["name"] if e.get("name") is not None else "%d (0x%x)" % (e["value"], e["value"]))
            for e in g["menu"]}
    if w["menu"] != ours: bad("menu", w["menu"], ours)
print("\n".join(problems) if problems else "same")
print(len(want), "controls", file=sys.stderr)
'
check_eq "controls --json equals v4l2-ctl --list-ctrls-menus" same \
    "$("$VM_PYTHON" -I -S -c "$compare_py" "$VM_OUT/ctl-list.txt" "$VM_OUT/list.out")"
check "the text listing has v4l2-ctl's line for brightness" \
    grep -qxF "$(grep ' brightness ' "$VM_OUT/ctl-list.txt")" "$VM_OUT/listtext.out"
check "the text listing has the menu's entries, gaps kept" \
    grep -qF "$(printf '\t\t\t\t4: Menu Item 4')" "$VM_OUT/listtext.out"

# --set of every scalar type reads back through v4l2-ctl as set.
check_eq "--set of every type: exit 0" 0 "$(run setall "$CAPTURE" controls $cam --set brightness=20 \
    --set "menu=menu item 4" --set mute=on --set integer_64_bits=-5000000000 --set bitmask=0x10 \
    --set string=abcd --set integer_menu=6 --set HORIZONTAL_FLIP=true --set test_pattern=5)"
check_eq "--set reads back through v4l2-ctl" \
    "$(printf '%s\n' 'brightness: 20' 'menu: 4 (Menu Item 4)' 'mute: 1' 'integer_64_bits: -5000000000' \
        'bitmask: 16' "string: 'abcd'" 'integer_menu: 6 (13 0xd)' 'horizontal_flip: 1' 'test_pattern: 5 (100% Black)')" \
    "$(v4l2-ctl -d $cam -C brightness,menu,mute,integer_64_bits,bitmask,string,integer_menu,horizontal_flip,test_pattern)"
check "--set reports each change" grep -qxF "brightness: 128 -> 20" "$VM_OUT/setall.out"

# The auto cluster: gain given before gain_automatic still ends with the manual gain.
check_eq "ordering: --set gain=200 --set gain_automatic=0: exit 0" 0 \
    "$(run order "$CAPTURE" controls $cam --set gain=200 --set gain_automatic=0)"
check_eq "ordering: the gain is 200 and automatic gain off" "$(printf 'gain_automatic: 0\ngain: 200')" \
    "$(v4l2-ctl -d $cam -C gain_automatic,gain)"
check "ordering: gain_automatic is written first" \
    test "$(grep -n '^gain_automatic:' "$VM_OUT/order.out" | cut -d: -f1)" -lt "$(grep -n '^gain:' "$VM_OUT/order.out" | cut -d: -f1)"
v4l2-ctl -d $cam -c gain_automatic=1
check_eq "gain alone while automatic: exit 69" 69 "$(run gated "$CAPTURE" controls $cam --set gain=50)"
check "gain alone: stderr names the automatic mode to turn off" \
    grep -q "gain is inactive while gain_automatic is 1.*add gain_automatic=0" "$VM_OUT/gated.err"

# Refused sets: exit status, one line naming the control and what it takes, nothing changed.
refuse clamp 69 "brightness=300 is out of range; brightness takes 0 to 255" values $cam --set contrast=10 --set brightness=300
refuse below 69 "hue=-129 is out of range; hue takes -128 to 128" values $cam --set hue=-129
refuse readonly 69 "read_only_integer_32_bits is read-only" values $cam --set read_only_integer_32_bits=1
refuse unknown 64 "has no control 'brigthness'; did you mean 'brightness'?" values $cam --set contrast=10 --set brigthness=3
refuse badtype 69 "brightness=bright is not a whole number" values $cam --set brightness=bright
refuse badbool 69 "mute=maybe is not a boolean" values $cam --set mute=maybe
refuse menugap 69 "menu=2 is not one of the menu's entries; menu takes 1 (Menu Item 1), 3 (Menu Item 3), 4 (Menu Item 4)" values $cam --set menu=2
refuse badmask 69 "bitmask=0x1 sets bits outside the mask" values $cam --set bitmask=0x1
refuse shortstring 69 "string=a has 1 characters" values $cam --set string=a
refuse array 69 "u8_pixel_array is a u8 array" values $cam --set u8_pixel_array=1
refuse noequals 64 "takes NAME=VALUE" values $cam --set brightness

# Controls change while another program streams the camera.
v4l2-ctl -d $cam --stream-mmap --stream-count=100000 >/dev/null 2>&1 &
holder=$!
sleep 1
check_eq "while streaming: --set contrast=99 exit 0" 0 "$(run busyset "$CAPTURE" controls $cam --set contrast=99)"
check_eq "while streaming: contrast reads back" "contrast: 99" "$(v4l2-ctl -d $cam -C contrast)"
kill $holder
wait $holder 2>/dev/null || true

# --save, --reset, --load: every value comes back.
"$CAPTURE" controls $cam --set gain_automatic=0 --set gain=77 --set saturation=3 --set menu=1 \
    --set string=xyz --set dv_timings=9 >/dev/null
saved=$(values)
check_eq "--save: exit 0" 0 "$(run save "$CAPTURE" controls $cam --save "$out/profile.json")"
check_eq "--save: the profile names the camera" "vivid vivid platform:vivid-000" \
    "$(json "$out/profile.json" "' '.join([d['device']['driver'], d['device']['card'], d['device']['bus_info']])")"
check_eq "--save: gain is in the profile" 77 "$(json "$out/profile.json" "[c['value'] for c in d['controls'] if c['name'] == 'gain'][0]")"
check_eq "--save again: exit 73" 73 "$(run saveagain "$CAPTURE" controls $cam --save "$out/profile.json")"
check_eq "--save --force: exit 0" 0 "$(run saveforce "$CAPTURE" controls $cam --save "$out/profile.json" --force)"
check_eq "--reset: exit 0" 0 "$(run reset "$CAPTURE" controls $cam --reset)"
check_eq "--reset: defaults read back" \
    "$(printf '%s\n' 'saturation: 128' 'menu: 3 (Menu Item 3)' 'gain_automatic: 1' 'dv_timings: 0 (640x480p59)')" \
    "$(v4l2-ctl -d $cam -C saturation,menu,gain_automatic,dv_timings)"
check_eq "--load: exit 0" 0 "$(run load "$CAPTURE" controls $cam --load "$out/profile.json")"
check_eq "--load: every value as saved" "$saved" "$(values)"
sed 's/"card" : "vivid"/"card" : "Other Camera"/' "$out/profile.json" >"$out/other.json"
"$CAPTURE" controls $cam --reset >/dev/null
after_reset=$(values)
check_eq "--load of another model: exit 69" 69 "$(run loadother "$CAPTURE" controls $cam --load "$out/other.json")"
check "--load of another model: stderr names both" grep -q "saved from vivid 'Other Camera'.*--force" "$VM_OUT/loadother.err"
check_eq "--load of another model: nothing changed" "$after_reset" "$(values)"
check_eq "--load --force of another model: exit 0" 0 "$(run loadforce "$CAPTURE" controls $cam --load "$out/other.json" --force)"
check_eq "--load --force: every value as saved" "$saved" "$(values)"
check_eq "--load of a missing file: exit 66" 66 "$(run loadmissing "$CAPTURE" controls $cam --load "$out/none.json")"

# record --control: the recorded picture follows the control as it does when v4l2-ctl sets it;
# mean luma (signalstats YAVG) of the recordings against ffmpeg's own from the same settings.
"$CAPTURE" controls $cam --reset >/dev/null
yavg() { # FILE: mean luma over the frames
    ffmpeg -v error -i "$1" -vf signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=- -f null - |
        awk -F= '/YAVG/ {s += $2; n++} END {if (n) printf "%d\n", s / n; else print "none"}'
}
for level in 20 235; do
    check_eq "record --control brightness=$level: exit 0" 0 "$(run rec$level "$CAPTURE" record --video $cam \
        --video-size 320x180 --codec raw --frames 5 --control brightness=$level "$out/b$level.nut")"
    check "record --control brightness=$level: the summary lists the control" \
        grep -qxF "  control: brightness 128 -> $level" "$VM_OUT/rec$level.out"
    check_eq "record --control brightness=$level: left set afterwards" "brightness: $level" "$(v4l2-ctl -d $cam -C brightness)"
    ffmpeg -v error -f v4l2 -video_size 320x180 -i $cam -frames:v 5 -c:v rawvideo "$out/ff$level.nut"
    "$CAPTURE" controls $cam --set brightness=128 >/dev/null
done
y20=$(yavg "$out/b20.nut"); y235=$(yavg "$out/b235.nut")
f20=$(yavg "$out/ff20.nut"); f235=$(yavg "$out/ff235.nut")
echo "  (YAVG: capture $y20 / $y235, ffmpeg after v4l2-ctl $f20 / $f235)"
check "brightness 235 records brighter than 20 (by at least 50 levels)" test "$y235" -ge $((y20 + 50))
check "brightness=20: luma as ffmpeg records it (within 3)" test "${y20#-}" -ge $((f20 - 3)) -a "$y20" -le $((f20 + 3))
check "brightness=235: luma as ffmpeg records it (within 3)" test "$y235" -ge $((f235 - 3)) -a "$y235" -le $((f235 + 3))
check_eq "record --control --json lists it" "brightness 20" "$(run recjson "$CAPTURE" record --video $cam \
    --video-size 320x180 --codec raw --frames 2 --json --control brightness=20 "$out/j.nut" >/dev/null;
    json "$VM_OUT/recjson.out" "' '.join(str(x) for x in [d['controls']['controls'][0]['name'], d['controls']['controls'][0]['value']])")"
"$CAPTURE" controls $cam --set brightness=128 >/dev/null

# --controls-from: a saved profile applied before streaming, --control on top of it; a profile
# of another model is refused before any file exists.
"$CAPTURE" controls $cam --set brightness=200 --set contrast=30 --save "$out/rec.json" >/dev/null
"$CAPTURE" controls $cam --reset >/dev/null
check_eq "record --controls-from: exit 0" 0 "$(run recfrom "$CAPTURE" record --video $cam --video-size 320x180 \
    --codec raw --frames 2 --controls-from "$out/rec.json" --control contrast=60 "$out/from.nut")"
check_eq "record --controls-from: the profile's value and the --control on top" \
    "$(printf 'brightness: 200\ncontrast: 60')" "$(v4l2-ctl -d $cam -C brightness,contrast)"
check "record --controls-from: the summary lists them" \
    grep -qxF "  control: contrast 128 -> 60" "$VM_OUT/recfrom.out"
"$CAPTURE" controls $cam --reset >/dev/null
check_eq "record --controls-from another model: exit 69" 69 "$(run recother "$CAPTURE" record --video $cam \
    --video-size 320x180 --codec raw --frames 2 --controls-from "$out/other.json" "$out/other.nut")"
check "record --controls-from another model: no file" test ! -e "$out/other.nut"
check_eq "record --controls-from another model: brightness untouched" "brightness: 128" \
    "$(v4l2-ctl -d $cam -C brightness)"

# A bad value fails before any file exists; --restore-controls puts values back, also after
# SIGINT.
check_eq "record --control brightness=999: exit 69" 69 "$(run recbad "$CAPTURE" record --video $cam \
    --video-size 320x180 --codec raw --frames 2 --control brightness=999 "$out/bad.nut")"
check "record --control brightness=999: no file" test ! -e "$out/bad.nut"
check_eq "record --control nosuch=1: exit 64" 64 "$(run recunknown "$CAPTURE" record --video $cam \
    --video-size 320x180 --codec raw --frames 2 --control nosuch=1 "$out/bad.nut")"
check_eq "--restore-controls: exit 0" 0 "$(run restore "$CAPTURE" record --video $cam --video-size 320x180 \
    --codec raw --frames 2 --control brightness=40 --restore-controls "$out/r.nut")"
check_eq "--restore-controls: brightness back to 128" "brightness: 128" "$(v4l2-ctl -d $cam -C brightness)"
check_eq "--restore-controls, then a mode the camera lacks: exit 69" 69 "$(run restorefail "$CAPTURE" record \
    --video $cam --video-size 1920x1080 --framerate 30 --control brightness=40 --restore-controls "$out/f.mkv")"
check_eq "--restore-controls after the failure: brightness back to 128" "brightness: 128" \
    "$(v4l2-ctl -d $cam -C brightness)"
"$CAPTURE" record --video $cam --video-size 320x180 --codec raw --control brightness=60 \
    --control gain_automatic=0 --control gain=10 --restore-controls "$out/int.nut" \
    >"$VM_OUT/int.out" 2>"$VM_OUT/int.err" &
recorder=$!
# Four seconds of recording, counted from its first frame: the start-up (probing, the controls)
# takes its own time on a busy guest.
appeared "$out/int.nut" >/dev/null || true
sleep 4
check_eq "during the recording: brightness 60, gain 10" "$(printf 'brightness: 60\ngain_automatic: 0\ngain: 10')" \
    "$(v4l2-ctl -d $cam -C brightness,gain_automatic,gain)"
kill -INT $recorder
rc=0; wait $recorder || rc=$?
check_eq "SIGINT with --restore-controls: exit 0" 0 "$rc"
check_eq "SIGINT: brightness and automatic gain restored" "$(printf 'brightness: 128\ngain_automatic: 1')" \
    "$(v4l2-ctl -d $cam -C brightness,gain_automatic)"

finish
