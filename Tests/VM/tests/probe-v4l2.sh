#!/usr/bin/env bash
# C01 first step and issue 4: `capture probe --json` reports exactly the (pixel format, frame
# size, frame interval) set that `v4l2-ctl --list-formats-ext` prints, for vivid's webcam,
# S-Video and HDMI inputs, and the controls that `v4l2-ctl -L` prints. The multiplanar-only
# instance probes like the single-planar one. Probing works while another program streams.
# vivid's default input_types give input 0 webcam, 1 TV, 2 S-Video, 3 HDMI.
# module: vivid n_devs=2 node_types=0x1,0x1 multiplanar=1,2 num_inputs=4,1 vid_cap_nr=10,20
# timeout: 120
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

single=/dev/video10
multi=/dev/video20

# The (format, size, interval) tuples of each side, as v4l2-ctl spells them: sizes as
# "Discrete 640x480" or "Stepwise 16x16 - 16384x8640 with step 2/2", intervals in seconds to
# three decimals. v4l2-ctl lists intervals for discrete sizes only, so ranges carry none.
modes_py='
import json, re, sys
def from_v4l2ctl(path):
    out, fourcc, size = set(), None, None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"\t\[\d+\]: \x27(.*)\x27 \(", line)
        if m:
            fourcc, size = m.group(1), None
            continue
        m = re.match(r"\t\tSize: (.*)$", line)
        if m:
            size = m.group(1)
            out.add((fourcc, size, None))
            continue
        m = re.match(r"\t\t\tInterval: (Discrete [0-9.]+s|Stepwise [0-9.]+s - [0-9.]+s with step [0-9.]+s|Continuous [0-9.]+s - [0-9.]+s)", line)
        if m:
            out.add((fourcc, size, m.group(1)))
    return out
def from_probe(path):
    d = json.load(open(path))["camera"]
    out = set()
    s = lambda r: "%.3fs" % (r["numerator"] / r["denominator"])
    for f in d["formats"]:
        for z in f["frame_sizes"]:
            lo, hi, st = z["min"], z["max"], z["step"]
            if z["type"] == "discrete":
                size = "Discrete %dx%d" % (lo["width"], lo["height"])
            elif z["type"] == "stepwise":
                size = "Stepwise %dx%d - %dx%d with step %d/%d" % (lo["width"], lo["height"], hi["width"], hi["height"], st["width"], st["height"])
            else:
                size = "Continuous %dx%d - %dx%d" % (lo["width"], lo["height"], hi["width"], hi["height"])
            out.add((f["fourcc"], size, None))
            if z["type"] != "discrete":
                continue
            i = z["intervals"]
            if i["type"] == "discrete":
                out.update((f["fourcc"], size, "Discrete " + s(x)) for x in i["discrete"])
            elif i["type"] == "stepwise":
                out.add((f["fourcc"], size, "Stepwise %s - %s with step %s" % (s(i["min"]), s(i["max"]), s(i["step"]))))
            elif i["type"] == "continuous":
                out.add((f["fourcc"], size, "Continuous %s - %s" % (s(i["min"]), s(i["max"]))))
    return out
want, got = from_v4l2ctl(sys.argv[1]), from_probe(sys.argv[2])
for t in sorted(want - got, key=str)[:5]: print("missing from probe:", t)
for t in sorted(got - want, key=str)[:5]: print("not in v4l2-ctl:", t)
print("%d tuples in v4l2-ctl, %d in probe, %d in common" % (len(want), len(got), len(want & got)))
sys.exit(0 if want == got and want else 1)
'

# The controls of each side as "name id type min max step default value flags", plus menu
# entries as "name index: label". Values that change by themselves (volatile) and values
# v4l2-ctl does not read (write-only, compound) are left out of the comparison.
controls_py='
import json, re, sys
hexflags = {"0x00000800": "dynamic-array"}
def parse_v4l2ctl(path):
    out, menus, name = set(), set(), None
    for line in open(path):
        m = re.match(r"\s*(\w+) 0x([0-9a-f]{8}) \((\w+)\)\s*:(.*)$", line)
        if m:
            name, cid, ctype, rest = m.group(1), int(m.group(2), 16), m.group(3), m.group(4)
            flags = set()
            fm = re.search(r" flags=(.*)$", rest)
            if fm:
                flags = {hexflags.get(x.strip(), x.strip()) for x in fm.group(1).split(",")}
                rest = rest[:fm.start()]
            f = dict(re.findall(r"(\w+)=(\x27[^\x27]*\x27|\S+)", rest))
            num = lambda k: str(int(f[k], 0)) if k in f else "-"
            value = f.get("value", "-")
            if ctype == "bitmask" and value != "-": value = str(int(value, 0) & 0xffffffff)
            if "write-only" in flags or "volatile" in flags or ctype in ("area", "button") or "dims" in f:
                value = "-"
            out.add(" ".join([name, str(cid), ctype, num("min"), num("max"), num("step"), num("default"), value, ",".join(sorted(flags))]))
            continue
        m = re.match(r"\t\t\t\t(\d+): (.*?)(?: \(0x[0-9a-f]+\))?$", line.rstrip("\n"))
        if m and name:
            menus.add("%s %s: %s" % (name, m.group(1), m.group(2)))
    return out, menus
def parse_probe(path):
    out, menus = set(), set()
    for c in json.load(open(path))["camera"]["controls"]:
        t, flags = c["type"], set(c["flags"])
        show = t not in ("bool", "button", "area")
        step = str(c["step"]) if t not in ("bool", "button", "bitmask", "menu", "intmenu", "area") else "-"
        mn = str(c["minimum"]) if t not in ("bool", "button", "bitmask", "area") else "-"
        mx = str(c["maximum"]) if t not in ("bool", "button", "area") else "-"
        df = str(c["default_value"]) if t not in ("button", "str", "area") and not c["dims"] else "-"
        if t in ("u8", "u16", "u32") and c["dims"]:
            df = str(c["default_value"])
        value = "-"
        if c.get("string_value") is not None: value = "\x27%s\x27" % c["string_value"]
        elif c.get("value") is not None: value = str(c["value"])
        if "write-only" in flags or "volatile" in flags or t in ("area", "button") or c["dims"]:
            value = "-"
        out.add(" ".join([c["name"], str(c["id"]), t, mn, mx, step, df, value, ",".join(sorted(flags))]))
        for e in c["menu"]:
            menus.add("%s %d: %s" % (c["name"], e["index"], e["name"] if e.get("name") is not None else e["value"]))
    return out, menus
(want, want_menus), (got, got_menus) = parse_v4l2ctl(sys.argv[1]), parse_probe(sys.argv[2])
for t in sorted(want - got)[:6]: print("v4l2-ctl only:", t)
for t in sorted(got - want)[:6]: print("probe only:   ", t)
for t in sorted(want_menus ^ got_menus)[:6]: print("menu differs:", t)
print("%d controls in v4l2-ctl, %d in probe; %d menu entries in v4l2-ctl, %d in probe" % (len(want), len(got), len(want_menus), len(got_menus)))
sys.exit(0 if want == got and want and want_menus == got_menus else 1)
'

probe() { # NODE NAME: capture probe --json into $VM_OUT/NAME.json; prints the exit status
    local rc=0
    "$CAPTURE" probe "$1" --json >"$VM_OUT/$2.json" 2>"$VM_OUT/$2.stderr" || rc=$?
    [[ $rc -eq 0 ]] || sed 's/^/    /' "$VM_OUT/$2.stderr" >&2
    echo "$rc"
}

for input in 0:webcam 2:s-video 3:hdmi; do
    index=${input%%:*} name=${input#*:}
    v4l2-ctl -d "$single" -i "$index" >/dev/null
    v4l2-ctl -d "$single" --list-formats-ext >"$VM_OUT/$name.v4l2-ctl.txt"
    check_eq "$name: capture probe --json exits 0" 0 "$(probe "$single" "$name")"
    check_eq "$name: probe reports the current input $index" "$index" "$(json "$VM_OUT/$name.json" 'd["camera"]["input"]["index"]')"
    check "$name: (format, size, interval) set equals v4l2-ctl --list-formats-ext" \
        "$VM_PYTHON" -I -S -c "$modes_py" "$VM_OUT/$name.v4l2-ctl.txt" "$VM_OUT/$name.json"
done

# The current mode agrees with v4l2-ctl's --get-fmt-video and --get-parm (HDMI input: 720p60).
fmt=$(v4l2-ctl -d "$single" --get-fmt-video)
parm=$(v4l2-ctl -d "$single" --get-parm)
want_size=$(sed -n 's/.*Width\/Height *: *\([0-9]*\)\/\([0-9]*\).*/\1x\2/p' <<<"$fmt")
want_fourcc=$(sed -n "s/.*Pixel Format *: *'\\([^']*\\)'.*/\\1/p" <<<"$fmt")
want_fps=$(sed -n 's/.*Frames per second: *\([0-9.]*\).*/\1/p' <<<"$parm")
check_eq "hdmi: current format as v4l2-ctl --get-fmt-video" "$want_fourcc $want_size" \
    "$(json "$VM_OUT/hdmi.json" '"%s %dx%d" % (d["camera"]["current"]["fourcc"], d["camera"]["current"]["width"], d["camera"]["current"]["height"])')"
check_eq "hdmi: current rate as v4l2-ctl --get-parm" "$want_fps" \
    "$(json "$VM_OUT/hdmi.json" '"%.3f" % (d["camera"]["current"]["frame_rate"]["numerator"] / d["camera"]["current"]["frame_rate"]["denominator"])')"

# Controls, on the webcam input (the HDMI input adds the Digital Video class).
v4l2-ctl -d "$single" -i 0 >/dev/null
v4l2-ctl -d "$single" -L >"$VM_OUT/controls.v4l2-ctl.txt"
check_eq "controls: capture probe --json exits 0" 0 "$(probe "$single" controls)"
check "controls: names, ids, types, ranges, defaults, values, flags and menus equal v4l2-ctl -L" \
    "$VM_PYTHON" -I -S -c "$controls_py" "$VM_OUT/controls.v4l2-ctl.txt" "$VM_OUT/controls.json"

# The multiplanar-only instance: the same modes as the single-planar webcam, through the
# multiplanar buffer type.
v4l2-ctl -d "$multi" --list-formats-ext >"$VM_OUT/mplane.v4l2-ctl.txt"
check_eq "multiplanar: capture probe --json exits 0" 0 "$(probe "$multi" mplane)"
check "multiplanar: (format, size, interval) set equals v4l2-ctl --list-formats-ext" \
    "$VM_PYTHON" -I -S -c "$modes_py" "$VM_OUT/mplane.v4l2-ctl.txt" "$VM_OUT/mplane.json"
# vivid adds formats that exist only as separate planes (NM12, ...): every single-planar mode is
# there, and what is added is only new formats, not new sizes or rates of the common ones.
check "multiplanar: every mode of the single-planar webcam, plus only multiplanar-only formats" \
    "$VM_PYTHON" -I -S -c "${modes_py%%want, got =*}"'
single, multi = from_probe(sys.argv[1]), from_probe(sys.argv[2])
common = {t[0] for t in single}
extra = sorted({t[0] for t in multi} - common)
print("formats only in the multiplanar instance:", " ".join(extra))
sys.exit(0 if single and single == {t for t in multi if t[0] in common} else 1)
' "$VM_OUT/webcam.json" "$VM_OUT/mplane.json"
check_eq "multiplanar: flagged, formats of the multiplanar buffer type" "True video-capture-mplane" \
    "$(json "$VM_OUT/mplane.json" '"%s %s" % (d["camera"]["multiplanar"], " ".join(sorted({f["buffer_type"] for f in d["camera"]["formats"]})))')"

# The text form: the summary line for 1920x1080 says how fast it goes and with which format.
"$CAPTURE" probe "$single" >"$VM_OUT/webcam.txt" 2>&1 || true
check "text: the summary gives 1920x1080 its 5 fps" grep -q $'^\t1920x1080: 5 fps (YUYV' "$VM_OUT/webcam.txt"

# Querying works while another program streams the camera (C07: probe still works).
v4l2-ctl -d "$single" --stream-mmap --stream-count=100000 >/dev/null 2>&1 &
streamer=$!
sleep 1
check "busy: the streamer is running" kill -0 "$streamer"
check_eq "busy: capture probe exits 0 while the camera streams" 0 "$(probe "$single" busy)"
kill "$streamer" 2>/dev/null || true
wait "$streamer" 2>/dev/null || true

finish
