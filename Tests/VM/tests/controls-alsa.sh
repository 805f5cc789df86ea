#!/usr/bin/env bash
# Issue 12: `capture controls` for a microphone lists and sets its card's capture mixer elements
# through libasound's simple mixer. snd-dummy's elements have a volume in dB and a capture
# switch; an asoundrc softvol PCM adds a capture volume of its own. amixer is the oracle.
# module: snd-aloop index=0 id=Loopback pcm_substreams=2
# module: snd-dummy index=1 id=Dummy pcm_devs=1 pcm_substreams=1 fake_buffer=0
# timeout: 120
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

mic=hw:CARD=Dummy,DEV=0
# amixer's state of one element, one channel a line: "raw percent dB switch".
state() { # ELEMENT
    amixer -c Dummy sget "$1" | sed -n 's/^  \(Front Left\|Front Right\|Mono\): \(Capture \)\?\(-\?[0-9]*\) \[\([0-9]*%\)\] \[\([-0-9.]*dB\)\]\( Capture\)\?\( \[\(on\|off\)\]\)\?.*/\3 \4 \5 \8/p'
}
# capture's state of one element from --json, in the same shape.
ours() { # FILE ELEMENT
    json "$1" "[' '.join([str(c['volume']), '%d%%' % c['percent'], '%.2fdB' % c['db']] + (['on' if c['capture_on'] else 'off'] if 'capture_on' in c else [])) for e in d['mixer'] if e['name'] == '$2' for c in e['channels']]"
}

# Leave the card as it was found, for the tests that share this boot.
declare -A initial
for element in Master Synth Line CD Mic; do initial[$element]=$(state $element | head -1); done
put_back() {
    local element words
    for element in "${!initial[@]}"; do
        read -ra words <<<"${initial[$element]}"
        amixer -q -c Dummy sset "$element" "${words[0]}" "$([[ ${words[3]:-off} == on ]] && echo cap || echo nocap)"
    done
    rm -f "$HOME/.asoundrc"
}
trap put_back EXIT

check_eq "controls $mic --json: exit 0" 0 "$(run list "$CAPTURE" controls --json $mic)"
check_eq "the capture elements are snd-dummy's five" "Master Synth Line CD Mic" \
    "$(json "$VM_OUT/list.out" "' '.join(e['name'] for e in d['mixer'])")"
for element in Master Mic; do
    check_eq "$element: raw, percent, dB and switch as amixer reads them" "$(state $element)" "$(ours "$VM_OUT/list.out" $element)"
done
check_eq "Mic: limits as amixer reads them, and its dB range" "$(amixer -c Dummy sget Mic | sed -n 's/^  Limits: \(-\?[0-9]*\) - \([0-9]*\)$/\1 \2/p') -45 0" \
    "$(json "$VM_OUT/list.out" "[' '.join(str(x) for x in [e['minimum'], e['maximum'], e['minimum_db'], e['maximum_db']]) for e in d['mixer'] if e['name'] == 'Mic'][0]")"
check_eq "controls $mic (text): exit 0" 0 "$(run listtext "$CAPTURE" controls $mic)"
check "the text has amixer's element line" grep -qxF "Simple mixer control 'Mic',0" "$VM_OUT/listtext.out"

# Sets read back through amixer: dB with the switch, percent, raw.
check_eq "--set 'Mic=-6dB,on': exit 0" 0 "$(run setdb "$CAPTURE" controls $mic --set 'Mic=-6dB,on')"
check_eq "Mic -6 dB and capturing, per amixer" "$(printf '80 87%% -6.00dB on\n80 87%% -6.00dB on')" "$(state Mic)"
check_eq "--set Line=50% --set cd=20: exit 0" 0 "$(run setpct "$CAPTURE" controls $mic --set Line=50% --set cd=20)"
check_eq "Line at 50%, per amixer" "$(printf '25 50%% -22.50dB off\n25 50%% -22.50dB off')" "$(state Line)"
check_eq "CD at raw 20, per amixer" "$(printf '20 47%% -24.00dB off\n20 47%% -24.00dB off')" "$(state CD)"

# Refusals change nothing.
mixer() { for e in Master Synth Line CD Mic; do state $e; done; }
refuse raw 69 "Mic=101 is out of range; Mic takes -50 to 100 (raw)" mixer $mic --set Line=0 --set Mic=101
refuse db 69 "Mic=-60dB is out of range; Mic takes -45.00dB to 0.00dB" mixer $mic --set Mic=-60dB
refuse unknown 64 "has no capture mixer element 'Mick'; did you mean 'Mic'?" mixer $mic --set Mick=3
refuse word 69 "Mic=loud is not a value for Mic" mixer $mic --set Mic=loud

# The mixer answers while a program records from the microphone.
arecord -D $mic -f S16_LE -r 48000 -c 2 -d 3 /dev/null 2>/dev/null &
recorder=$!
sleep 1
check_eq "while recording: --set Synth=-3dB exit 0" 0 "$(run busy "$CAPTURE" controls $mic --set Synth=-3dB)"
check_eq "while recording: Synth at -3 dB, per amixer" "-3.00dB" "$(state Synth | head -1 | cut -d' ' -f3)"
wait $recorder || true

# A softvol capture control from an asoundrc appears on its card once the PCM has been opened.
cat >"$HOME/.asoundrc" <<'RC'
pcm.softmic {
    type softvol
    slave.pcm "hw:CARD=Dummy,DEV=0"
    control { name "Soft Capture Volume"; card Dummy }
    min_dB -40.0
    max_dB 0.0
    resolution 41
}
RC
arecord -D softmic -f S16_LE -r 48000 -c 2 -d 1 /dev/null 2>/dev/null
check_eq "softvol: --set Soft=-10dB exit 0" 0 "$(run soft "$CAPTURE" controls $mic --set Soft=-10dB)"
check_eq "softvol: Soft at -10 dB, per amixer" "$(printf '30 75%% -10.00dB \n30 75%% -10.00dB ')" "$(state Soft)"
check "softvol: the change is reported" grep -q "^Soft: Front Left: Capture 40 \[100%\] \[0.00dB\] -> Capture 30 \[75%\] \[-10.00dB\]" "$VM_OUT/soft.out"
rm -f "$HOME/.asoundrc"

finish
