"""The round trip of a benchmark job that runs in the QEMU guest (jobs 5 and 6): the host boots
the guest with a kernel module, shares a folder, runs the job's own script there with --guest,
and reads back the JSON it left in the folder; and the command line both sides of such a script
share.
"""

import argparse
import json
import os
import subprocess
import sys


def fresh(folder):
    """Makes `folder`, shared with the guest, and empties it of an earlier run's files."""
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))


def run(script, module, capture, rounds, folder, repo, timeout, result):
    """Runs `script --guest` in the guest with `module` loaded (one, or a list loaded in order);
    returns the JSON it wrote to `folder`/`result`, or an "error" entry. Everything else the run
    left in the folder goes."""
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    modules = [module] if isinstance(module, str) else module
    argv = [os.path.join(repo, "Tests", "VM", "run-in-guest")]
    for each in modules:
        argv += ["--module", each]
    argv += ["--share", folder, "--timeout", str(timeout), "--", python, os.path.abspath(script), "--guest",
             "--capture", capture, "--rounds", str(rounds), "--folder", folder]
    done = subprocess.run(argv, capture_output=True, text=True)
    path = os.path.join(folder, result)
    if not os.path.exists(path):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-5:]
        return {"error": "the guest run failed (exit %d): %s" % (done.returncode, " | ".join(tail))}
    with open(path) as f:
        results = json.load(f)
    if done.returncode != 0 and not results.get("error"):
        results["error"] = "the guest run failed (exit %d)" % done.returncode
    for name in os.listdir(folder):
        # Folders (a job's input frames) are the job's own to remove.
        if name != result and not os.path.isdir(os.path.join(folder, name)):
            os.unlink(os.path.join(folder, name))
    return results


def main(doc, run_on_host, guest_main, rounds):
    """The command line of a guest job's script: --guest runs the recordings (inside the guest),
    without it the host side boots the guest and prints the results."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--guest", action="store_true", help="run the recordings (inside the guest)")
    parser.add_argument("--capture", required=True, help="the capture binary")
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--folder", required=True, help="a folder shared with the host")
    options = parser.parse_args()
    if not options.guest:
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        print(json.dumps(run_on_host(options.capture, options.rounds, options.folder, repo), indent=1))
        sys.exit(0)
    sys.exit(guest_main(options.capture, options.rounds, options.folder))
