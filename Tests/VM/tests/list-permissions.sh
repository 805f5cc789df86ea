#!/usr/bin/env bash
# C07 (denied): a camera the user may not open is still listed, marked not accessible with the
# reason, and list still succeeds. Without udev every node here is root's with mode 600; one
# camera is opened up to 666 so that the same run shows the accessible case next to it.
# module: vivid n_devs=2 node_types=0xe1d3d,0x1 multiplanar=1,2 vid_cap_nr=10,20
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

denied=/dev/video10
open=/dev/video20
# Tests in the same boot share these nodes: put their owner and mode back on the way out.
keep_modes "$denied" "$open"
trap restore_modes EXIT
chown 0:0 "$denied"
chmod 600 "$denied"
chmod 666 "$open"

# The unprivileged user needs a binary it may run: the build folder can sit below a home
# folder it cannot enter, so run a copy (it is found through the same library paths).
bin=$(mktemp -d)
chmod 755 "$bin"
cp "$CAPTURE" "$bin/capture"
chmod 755 "$bin/capture"

list=$VM_OUT/list.json
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
    "$bin/capture" list --json >"$list" 2>"$VM_OUT/list.stderr" || rc=$?
check_eq "capture list --json as an unprivileged user exits 0" 0 "$rc"
check "capture list --json prints the list as JSON" json_has "$list" cameras microphones
if [[ $rc -ne 0 ]] || ! json_has "$list" cameras microphones; then
    cat "$VM_OUT/list.stderr"
    finish
fi

cam="next((c for c in d['cameras'] if c['name'] == '$denied'), None)"
check_eq "$denied (mode 600, root's) is listed as a camera" "true" "$(json "$list" "($cam) is not None")"
check_eq "$denied is not accessible" "false" "$(json "$list" "(($cam) or {}).get('accessible')")"
check "$denied: the reason mentions permission" \
    grep -qi 'permission' <<<"$(json "$list" "(($cam) or {}).get('reason')")"
check "$denied: the reason gives its mode, and a udev rule as the fix for a node of root's group" \
    grep -q "group root, mode 600); the node is root's alone: give it to the 'video' group with a udev rule" \
    <<<"$(json "$list" "(($cam) or {}).get('reason')")"

cam="next((c for c in d['cameras'] if c['name'] == '$open'), None)"
check_eq "$open (mode 666) is listed as a camera" "true" "$(json "$list" "($cam) is not None")"
check_eq "$open is accessible" "true" "$(json "$list" "(($cam) or {}).get('accessible')")"
check_eq "$open has no reason" "null" "$(json "$list" "(($cam) or {}).get('reason')")"

finish
