# Shared helpers for the guest tests in Tests/VM/tests: source it, make checks, end with finish.
#
#   check "what" COMMAND...          passes when COMMAND exits 0
#   check_eq "what" EXPECTED ACTUAL  passes when the two strings are equal (shows both if not)
#   json FILE 'EXPR'                 prints a Python expression over the JSON in FILE, bound to d
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

# A list comes out one item a line, a string as is, anything else (dict, bool, null) as JSON,
# so that results compare with plain strings from v4l2-ctl or arecord.
json() { # FILE EXPR
    "$VM_PYTHON" -c '
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
v = eval(sys.argv[2], {"d": d, "json": json})
def show(x):
    return x if isinstance(x, str) else json.dumps(x, sort_keys=True)
if isinstance(v, (list, tuple)):
    for x in v:
        print(show(x))
else:
    print(show(v))
' "$1" "$2"
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
