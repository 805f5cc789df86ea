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
    d = json.load(f)
v = eval(sys.argv[2], {"d": d, "json": json})
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
    "$VM_PYTHON" -I -S -c '
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
sys.exit(0 if isinstance(d, dict) and all(k in d for k in sys.argv[2:]) else 1)
' "$@" 2>/dev/null
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

finish() {
    printf '%d checks, %d failed\n' "$vm_checks" "$vm_failed"
    [[ $vm_failed -eq 0 ]] || exit 1
    exit 0
}
