#!/usr/bin/env bash
# C08: only real capture nodes are cameras. vivid instance 0 has every node type (video output,
# metadata, VBI, radio, SDR, touch); instance 1 is a multiplanar-only camera. v4l2-ctl's
# "Device Caps" on every node is the reference: a camera is a node that says Video Capture or
# Video Capture Multiplanar and is not a Touch Device.
# module: vivid n_devs=2 node_types=0xe1d3d,0x1 multiplanar=1,2 vid_cap_nr=10,20
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

# What v4l2-ctl says about each node, with the role that follows from its device caps.
facts=$VM_OUT/v4l2-ctl.json
nodes=()
for n in /dev/video* /dev/v4l-* /dev/vbi* /dev/radio* /dev/swradio*; do
    [[ -c $n ]] && nodes+=("$n")
done
"$VM_PYTHON" - "$facts" "${nodes[@]}" <<'PY'
import json, subprocess, sys

def role(caps, node):
    has = lambda *names: any(n in caps for n in names)
    if node.startswith("/dev/v4l-subdev"):
        return "subdev"
    if has("Touch Device"):
        return "touch"
    if has("Video Capture", "Video Capture Multiplanar"):
        return "camera"
    if has("Video Output", "Video Output Multiplanar"):
        return "video-output"
    if has("Metadata Capture"):
        return "metadata-capture"
    if has("Metadata Output"):
        return "metadata-output"
    if has("VBI Capture", "Sliced VBI Capture"):
        return "vbi-capture"
    if has("VBI Output", "Sliced VBI Output"):
        return "vbi-output"
    if has("SDR Capture", "SDR Output"):
        return "sdr"
    # A radio transmitter may report only Modulator and RDS Output, without Radio.
    if has("Radio", "Modulator"):
        return "radio"
    return "unknown"

facts = {}
for node in sys.argv[2:]:
    # v4l2-ctl may fail on the media topology part after printing the driver info, and its
    # "Media Driver Info" block can name the wrong instance: read only "Driver Info".
    text = subprocess.run(["v4l2-ctl", "-d", node, "-D"], capture_output=True, text=True).stdout
    info, caps, block, in_caps = {}, [], None, False
    for line in text.splitlines():
        if not line.startswith("\t"):
            block, in_caps = line.rstrip(":"), False
            continue
        if block != "Driver Info":
            continue
        if line.startswith("\t\t"):
            if in_caps:
                caps.append(line.strip())
            continue
        key, _, value = line.strip().partition(":")
        key, value = key.strip(), value.strip()
        info[key] = value
        in_caps = key == "Device Caps"
    facts[node] = {
        "driver": info.get("Driver name"), "card": info.get("Card type"),
        "bus_info": info.get("Bus info"), "device_caps": caps, "role": role(caps, node),
        "multiplanar": "Video Capture Multiplanar" in caps,
    }
with open(sys.argv[1], "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
PY

# The premise: vivid made the two capture nodes asked for and the other node types.
expected_cameras=$(json "$facts" 'sorted(n for n, f in d.items() if f["role"] == "camera")')
check_eq "v4l2-ctl: the capture nodes are /dev/video10 and /dev/video20" \
    $'/dev/video10\n/dev/video20' "$expected_cameras"
check_eq "v4l2-ctl: no node of unknown role" "" \
    "$(json "$facts" 'sorted(n for n, f in d.items() if f["role"] == "unknown")')"
check "v4l2-ctl: a touch node says Video Capture too" \
    test "$(json "$facts" '[n for n, f in d.items() if f["role"] == "touch" and "Video Capture" in f["device_caps"]]')" != ""

list=$VM_OUT/list.json
rc=0
"$CAPTURE" list --json >"$list" 2>"$VM_OUT/list.stderr" || rc=$?
check_eq "capture list --json exits 0" 0 "$rc"
check "capture list --json prints the list as JSON" json_has "$list" cameras microphones
if [[ $rc -ne 0 ]] || ! json_has "$list" cameras microphones; then
    cat "$VM_OUT/list.stderr"
    finish
fi

check_eq "cameras are exactly the Video Capture nodes that are not touch nodes" \
    "$expected_cameras" "$(json "$list" 'sorted(c["name"] for c in d["cameras"] if c["api"] == "v4l2")')"
check_eq "no V4L2 node among the microphones" "" \
    "$(json "$list" '[m["name"] for m in d["microphones"] if m["api"] == "v4l2"]')"
check_eq "other is empty without --all" "" "$(json "$list" '[o["name"] for o in d.get("other") or []]')"

# Each camera carries what v4l2-ctl says about its node (one python run for each side).
declare -A want=() got=()
json_map want "$facts" "{n + ' ' + k: f[k] for n, f in d.items() for k in ('card', 'bus_info', 'driver', 'multiplanar')}"
json_map got "$list" "{c['name'] + ' ' + k: (c.get('v4l2') or {}).get(k)
    for c in d['cameras'] if c['api'] == 'v4l2' for k in ('path', 'card', 'bus_info', 'driver', 'multiplanar')}"
json_map got "$list" "{c['name'] + ' top': ' '.join(str(c.get(k)) for k in ('kind', 'role', 'accessible'))
    for c in d['cameras'] if c['api'] == 'v4l2'}"
for node in $expected_cameras; do
    # A missing camera is one failure, not one for each of its fields.
    if [[ -z ${got[$node top]+set} ]]; then
        check_eq "$node is listed" listed absent
        continue
    fi
    check_eq "$node: kind video, role camera, accessible to root" "video camera True" "${got[$node top]:-absent}"
    check_eq "$node: v4l2.path" "$node" "${got[$node path]:-absent}"
    check_eq "$node: card name as v4l2-ctl" "${want[$node card]}" "${got[$node card]:-absent}"
    check_eq "$node: bus info as v4l2-ctl" "${want[$node bus_info]}" "${got[$node bus_info]:-absent}"
    check_eq "$node: driver as v4l2-ctl" "${want[$node driver]}" "${got[$node driver]:-absent}"
    check_eq "$node: multiplanar as v4l2-ctl" "${want[$node multiplanar]}" "${got[$node multiplanar]:-absent}"
done
# Both instances have the card name "vivid": only the bus info tells them apart.
check_eq "the two cameras have different bus info" 2 \
    "$(json "$list" 'len({(c.get("v4l2") or {}).get("bus_info") for c in d["cameras"] if c["api"] == "v4l2"})')"

# --all: the same cameras, and every other node with the role its device caps give it.
all=$VM_OUT/list-all.json
rc=0
"$CAPTURE" list --json --all >"$all" 2>"$VM_OUT/list-all.stderr" || rc=$?
check_eq "capture list --json --all exits 0" 0 "$rc"
check "capture list --json --all prints the list as JSON" json_has "$all" cameras microphones other
if [[ $rc -ne 0 ]] || ! json_has "$all" cameras microphones other; then
    cat "$VM_OUT/list-all.stderr"
    finish
fi
check_eq "--all: the same cameras" "$expected_cameras" \
    "$(json "$all" 'sorted(c["name"] for c in d["cameras"] if c["api"] == "v4l2")')"
check_eq "--all: other holds every non-camera node, with its role" \
    "$(json "$facts" 'sorted(n + " " + f["role"] for n, f in d.items() if f["role"] != "camera")')" \
    "$(json "$all" 'sorted(o["name"] + " " + o["role"] for o in d.get("other") or [] if o["api"] == "v4l2")')"
check_eq "--all: other nodes carry bus info as v4l2-ctl" \
    "$(json "$facts" 'sorted(n + " " + f["bus_info"] for n, f in d.items() if f["role"] != "camera")')" \
    "$(json "$all" 'sorted(o["name"] + " " + str((o.get("v4l2") or {}).get("bus_info")) for o in d.get("other") or [] if o["api"] == "v4l2")')"

finish
