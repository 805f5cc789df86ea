#!/usr/bin/env bash
# capture probe on real ALSA drivers, arecord --dump-hw-params as the reference.
# C04: snd-dummy in ac97 mode offers S16_LE, 2 channels, 48 kHz only. C05: an asoundrc PCM over
# the loopback that takes only packed 24-bit mono. A PCM held by arecord is busy (exit 75, the
# holder named); hw:N,M and its CARD= form are one device; unknown names exit 66 (C12); a node
# the user may not open exits 77 naming the audio group.
# module: snd-aloop index=0 id=Loopback pcm_substreams=1
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0 model=ac97
# timeout: 240
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

# The C05 microphone, mono24: no rate in a type hw definition.
loopback_asoundrc

# arecord prints the parameter space on stderr before it records one second into /dev/null.
dump() { # PCM -> "FORMAT|CHANNELS|RATE" as arecord writes them
    arecord --dump-hw-params -D "$1" -d 1 /dev/null 2>&1 |
        awk -F': *' '$1 == "FORMAT" || $1 == "CHANNELS" || $1 == "RATE" { v[$1] = $2 }
            END { print v["FORMAT"] "|" v["CHANNELS"] "|" v["RATE"] }'
}
# Our probe in the same notation, plus the lists the cases name.
probe_view='(lambda iv: " ".join(d["alsa"]["formats"]) + "|" + iv(d["alsa"]["channels"]) + "|" + iv(d["alsa"]["rates"]))(lambda r: str(r["min"]) if r["min"] == r["max"] else ("(" if r["min_open"] else "[") + str(r["min"]) + " " + str(r["max"]) + (")" if r["max_open"] else "]"))'

probe_json() { # NAME FILE -> exit status
    local rc=0
    "$CAPTURE" probe "$1" --json >"$2" 2>"$2.stderr" || rc=$?
    return $rc
}

# C04: the dummy card restricted to stereo 48 kHz S16.
dummy=$VM_OUT/dummy.json
rc=0; probe_json hw:CARD=Dummy,DEV=0 "$dummy" || rc=$?
check_eq "C04: probe hw:CARD=Dummy,DEV=0 exits 0" 0 "$rc"
if [[ $rc -eq 0 ]]; then
    check_eq "C04: formats [S16_LE]" '["S16_LE"]' "$(json "$dummy" '[d["alsa"]["formats"]]')"
    check_eq "C04: channels [2]" '[2]' "$(json "$dummy" '[d["alsa"]["channel_counts"]]')"
    check_eq "C04: rates [48000]" '[48000]' "$(json "$dummy" '[d["alsa"]["standard_rates"]]')"
    check_eq "C04: the same space as arecord --dump-hw-params" "$(dump hw:CARD=Dummy,DEV=0)" "$(json "$dummy" "$probe_view")"
    check_eq "C04: a hw PCM" HW "$(json "$dummy" 'd["alsa"]["pcm_type"]')"
    check_eq "C04: the device as list shows it" "hw:CARD=Dummy,DEV=0 1 0" \
        "$(json "$dummy" 'd["device"]["name"] + " " + str(d["device"]["alsa"]["card_index"]) + " " + str(d["device"]["alsa"]["device"])')"
else
    cat "$dummy.stderr"
fi
text=$("$CAPTURE" probe hw:CARD=Dummy,DEV=0 2>&1 || true)
check "C04: the text names formats, channels and rates" grep -q $'Sample formats: S16_LE\n  Channels:       2\n  Sample rates:   48000 Hz' <<<"$text"

# C12: hw:1,0 and its CARD= form are the same device, probed the same.
byindex=$VM_OUT/dummy-by-index.json
rc=0; probe_json hw:1,0 "$byindex" || rc=$?
check_eq "C12: probe hw:1,0 exits 0" 0 "$rc"
check "C12: hw:1,0 probes exactly as hw:CARD=Dummy,DEV=0" cmp -s "$dummy" "$byindex"

# C05: packed 24-bit mono only, no rate given in the definition.
mono=$VM_OUT/mono24.json
rc=0; probe_json mono24 "$mono" || rc=$?
check_eq "C05: probe mono24 exits 0" 0 "$rc"
if [[ $rc -eq 0 ]]; then
    check_eq "C05: formats exactly [S24_3LE]" '["S24_3LE"]' "$(json "$mono" '[d["alsa"]["formats"]]')"
    check_eq "C05: channels exactly [1]" '[1]' "$(json "$mono" '[d["alsa"]["channel_counts"]]')"
    check_eq "C05: the same space as arecord --dump-hw-params" "$(dump mono24)" "$(json "$mono" "$probe_view")"
    check_eq "C05: traced to the loopback's device 1" "Loopback 1" \
        "$(json "$mono" 'd["device"]["alsa"]["card_id"] + " " + str(d["device"]["alsa"]["device"])')"
else
    cat "$mono.stderr"
fi

# ALSA's own hints leave such an entry out (it names a device); capture list shows it.
"$CAPTURE" list --json >"$VM_OUT/list.json" 2>&1 || true
check_eq "C05: list shows mono24 as a hardware PCM on the loopback's device 1" "Loopback 1 False" \
    "$(json "$VM_OUT/list.json" 'next((m["alsa"]["card_id"] + " " + str(m["alsa"]["device"]) + " " + str(m["is_virtual"])
        for m in d["microphones"] if m["name"] == "mono24"), "absent")' 2>&1)"

# Probing leaves the hardware as it was: no hw_params stay set, no stream starts.
check_eq "the loopback capture substream is closed after probing" closed \
    "$(cat /proc/asound/Loopback/pcm1c/sub0/hw_params)"

# Busy: arecord holds the loopback's capture device.
arecord -q -D hw:CARD=Loopback,DEV=1 -f S16_LE -r 48000 -c 2 /dev/null &
holder=$!
for _ in $(seq 100); do
    grep -q RUNNING /proc/asound/Loopback/pcm1c/sub0/status 2>/dev/null && break
    sleep 0.1
done
check "arecord is recording from the loopback" grep -q RUNNING /proc/asound/Loopback/pcm1c/sub0/status
for name in hw:CARD=Loopback,DEV=1 hw:0,1 mono24; do
    # A probe that waited for the device would wait as long as arecord holds it: for ever.
    rc=0
    timeout 60 "$CAPTURE" probe "$name" >"$VM_OUT/busy.out" 2>"$VM_OUT/busy.err" || rc=$?
    check_eq "busy: probe $name exits 75, without waiting for the device" 75 "$rc"
    check "busy: $name: arecord still holds it" kill -0 "$holder"
    check "busy: $name: stderr says busy and names arecord (pid $holder)" \
        grep -q "busy (in use by arecord (pid $holder))" "$VM_OUT/busy.err"
    check_eq "busy: $name: nothing on stdout" "" "$(cat "$VM_OUT/busy.out")"
done
rc=0
"$CAPTURE" list --json >"$VM_OUT/busy-list.json" 2>&1 || rc=$?
check_eq "busy: list still works" 0 "$rc"
check_eq "busy: list shows no free subdevice" 0 \
    "$(json "$VM_OUT/busy-list.json" 'next(m["alsa"]["subdevices_available"] for m in d["microphones"] if m["name"] == "hw:CARD=Loopback,DEV=1")')"
kill "$holder"
wait "$holder" 2>/dev/null || true

# C12: unknown cards and PulseAudio-style names.
rc=0
"$CAPTURE" probe hw:9,0 >/dev/null 2>"$VM_OUT/unknown.err" || rc=$?
check_eq "C12: probe hw:9,0 exits 66" 66 "$rc"
for valid in hw:CARD=Loopback,DEV=0 hw:CARD=Loopback,DEV=1 hw:CARD=Dummy,DEV=0; do
    check "C12: hw:9,0: the error lists $valid" grep -qF "$valid" "$VM_OUT/unknown.err"
done
rc=0
"$CAPTURE" probe alsa_input.pci-0000_00_1f.3.analog-stereo >/dev/null 2>"$VM_OUT/pulse-name.err" || rc=$?
check_eq "C12: a PulseAudio source name given as ALSA exits 66" 66 "$rc"
check "C12: ... with a hint to use pulse:" grep -qF "use pulse:alsa_input.pci-0000_00_1f.3.analog-stereo" "$VM_OUT/pulse-name.err"

# Permission denied: the dummy's nodes closed to others, probed as nobody.
keep_modes /dev/snd/*
trap restore_modes EXIT
chown 0:0 /dev/snd/*
chmod 600 /dev/snd/*
bin=$(mktemp -d)
chmod 755 "$bin"
cp "$CAPTURE" "$bin/capture"
chmod 755 "$bin/capture"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "$bin/capture" "$@"; }
rc=0
as_nobody probe hw:CARD=Dummy,DEV=0 >/dev/null 2>"$VM_OUT/denied.err" || rc=$?
check_eq "denied: probe as nobody exits 77" 77 "$rc"
check "denied: the error names the audio group" grep -q "join the 'audio' group" "$VM_OUT/denied.err"
rc=0
as_nobody list --json >"$VM_OUT/denied-list.json" 2>/dev/null || rc=$?
check_eq "denied: list as nobody exits 0" 0 "$rc"
check_eq "denied: the dummy is listed, not accessible, for lack of permission" "False True" \
    "$(json "$VM_OUT/denied-list.json" 'next(str(m["accessible"]) + " " + str("permission" in (m["reason"] or "")) for m in d["microphones"] if m["name"] == "hw:CARD=Dummy,DEV=0")' 2>&1)"

finish
