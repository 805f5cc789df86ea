#!/usr/bin/env bash
# C12: every ALSA capture PCM is listed under the name that opens it, hw:CARD=<id>,DEV=<n>
# (stable when cards are renumbered), with the card and subdevice facts arecord -l shows.
# Two cards: a loopback with two capture devices of two subdevices each, and a dummy card.
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

# arecord -l is the reference: one entry per capture PCM device.
facts=$VM_OUT/arecord.json
arecord -l >"$VM_OUT/arecord-l.txt" 2>&1 || true
"$VM_PYTHON" - "$facts" "$VM_OUT/arecord-l.txt" <<'PY'
import json, re, sys
entries, last = [], None
for line in open(sys.argv[2]):
    # card 0: Loopback [Loopback], device 1: Loopback PCM [Loopback PCM]
    m = re.match(r"card (\d+): (\S+) \[(.*)\], device (\d+): (.*) \[(.*)\]$", line.rstrip("\n"))
    if m:
        last = {"card_index": int(m[1]), "card_id": m[2], "card_name": m[3],
                "device": int(m[4]), "device_name": m[6]}
        last["name"] = "hw:CARD=%s,DEV=%d" % (last["card_id"], last["device"])
        last["plug_name"] = "plug" + last["name"]
        entries.append(last)
        continue
    m = re.match(r"\s+Subdevices: (\d+)/(\d+)$", line)
    if m and last is not None:
        last["subdevices_available"], last["subdevices_total"] = int(m[1]), int(m[2])
with open(sys.argv[1], "w") as f:
    json.dump(entries, f, indent=1, sort_keys=True)
PY

expected=$(json "$facts" 'sorted(e["name"] for e in d)')
check_eq "arecord: the capture devices of both cards" \
    $'hw:CARD=Dummy,DEV=0\nhw:CARD=Loopback,DEV=0\nhw:CARD=Loopback,DEV=1' "$expected"

list=$VM_OUT/list.json
rc=0
"$CAPTURE" list --json >"$list" 2>"$VM_OUT/list.stderr" || rc=$?
check_eq "capture list --json exits 0" 0 "$rc"
check "capture list --json prints the list as JSON" json_has "$list" cameras microphones
if [[ $rc -ne 0 ]] || ! json_has "$list" cameras microphones; then
    cat "$VM_OUT/list.stderr"
    finish
fi

# Every hw: device listed is one arecord lists, and each appears once.
check_eq "the hw: microphones are exactly arecord's capture devices" "$expected" \
    "$(json "$list" 'sorted(m["name"] for m in d["microphones"] if m["api"] == "alsa" and m["name"].startswith("hw:"))')"
check_eq "no ALSA device among the cameras" "" \
    "$(json "$list" '[c["name"] for c in d["cameras"] if c["api"] == "alsa"]')"

# Field by field, each microphone against its arecord entry (one python run for each side).
fields='("card_index", "card_id", "card_name", "device", "device_name", "subdevices_available",
    "subdevices_total", "plug_name")'
declare -A want=() got=()
json_map want "$facts" "{e['name'] + ' ' + k: e.get(k) for e in d for k in $fields}"
json_map got "$list" "{m['name'] + ' ' + k: (m.get('alsa') or {}).get(k)
    for m in d['microphones'] if m['api'] == 'alsa' for k in $fields}"
json_map got "$list" "{m['name'] + ' top': ' '.join(str(m.get(k)) for k in ('kind', 'api', 'role', 'accessible'))
    for m in d['microphones'] if m['api'] == 'alsa'}"
for name in $expected; do
    # A missing device is one failure, not one for each of its fields.
    if [[ -z ${got[$name top]+set} ]]; then
        check_eq "$name is listed" listed absent
        continue
    fi
    check_eq "$name: kind audio, api alsa, role microphone, accessible to root" \
        "audio alsa microphone True" "${got[$name top]:-absent}"
    for field in card_index card_id card_name device device_name subdevices_available subdevices_total plug_name; do
        check_eq "$name: alsa.$field as arecord" "${want[$name $field]}" "${got[$name $field]:-absent}"
    done
done

# With cards present the system's plugin definitions (rate converters, mixers) lead to card 0,
# yet they are no microphones: --all lists every name arecord -L has beyond the microphones as
# an unnumbered alsa-plugin entry, and the microphones with their indices stay as they were.
arecord -L 2>/dev/null | grep -v '^ ' >"$VM_OUT/arecord-L.txt" || true
all=$VM_OUT/list-all.json
rc=0
"$CAPTURE" list --json --all >"$all" 2>"$VM_OUT/list-all.stderr" || rc=$?
check_eq "capture list --json --all exits 0" 0 "$rc"
shown='("hw", "default", "sysdefault", "dsnoop", "pulse", "pipewire")'
check_eq "no plugin definition among the ALSA microphones" "" \
    "$(json "$list" "[m['name'] for m in d['microphones'] if m['api'] == 'alsa' and m['name'].split(':')[0] not in $shown]")"
check_eq "--all keeps the microphones and their indices" \
    "$(json "$list" '[str(m["index"]) + " " + m["name"] for m in d["microphones"]]')" \
    "$(json "$all" '[str(m["index"]) + " " + m["name"] for m in d["microphones"]]')"
plugins=$(grep -vE '^(hw|plughw|front|surround[0-9]+|sysdefault|default|dsnoop|dmix|iec958|spdif|hdmi|usbstream|pulse|pipewire)(:|$)' \
    "$VM_OUT/arecord-L.txt" | sort)
check "arecord -L lists plugin definitions (null at least)" grep -qx null <<<"$plugins"
check_eq "--all: each of them is an unnumbered alsa-plugin entry of other" \
    "$(sed 's/$/ None alsa-plugin/' <<<"$plugins")" \
    "$(json "$all" 'sorted(o["name"] + " " + str(o["index"]) + " " + o["role"] for o in d["other"] if o["api"] == "alsa")')"

finish
