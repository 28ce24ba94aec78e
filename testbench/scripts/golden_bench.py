#!/usr/bin/env python3
"""Simulated figures unchanged by simulator-speed work (issue 12).

  golden_bench.py GOLDEN [--max-delta-cycles N] -- ISVP ARGS...
                                           runs ISVP ARGS and compares its output with the
                                           recorded file GOLDEN, line by line, leaving out
                                           the lines with wall-clock figures (" wall");
                                           with --max-delta-cycles, the run's SystemC delta
                                           cycles ("# simulator:" line) may be at most N

The recorded files were made by the binary before the speed work; any change
of a latency, a LogGP figure, a call count, the simulated end time or the
engines' counters fails the test.
"""

import re
import subprocess
import sys


def without_wall_time(text):
    """The simulated lines: wall-clock figures and host-memory figures (the
    payload-memory footer, added after these goldens) are left out."""
    return [line for line in text.splitlines() if " wall" not in line and not line.startswith("# payload memory")]


def delta_cycles(text):
    """The delta cycles the "# simulator:" footer reports, or None."""
    found = re.search(r"^# simulator: .*?(\d+) delta cycles", text, re.MULTILINE)
    return int(found.group(1)) if found else None


def main(argv):
    max_delta_cycles = None
    if len(argv) >= 4 and argv[2] == "--max-delta-cycles":
        max_delta_cycles = int(argv[3])
        argv = argv[:2] + argv[4:]
    if len(argv) < 4 or argv[2] != "--":
        print(__doc__)
        return 2
    golden, command = argv[1], argv[3:]
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print(done.stdout + done.stderr, flush=True)
    if done.returncode != 0:
        print(f"FAIL: exit status {done.returncode}")
        return 1
    with open(golden) as f:
        expected = without_wall_time(f.read())
    got = without_wall_time(done.stdout)
    if got != expected:
        for want, have in zip(expected + [""] * len(got), got + [""] * len(expected)):
            if want != have:
                print(f"  recorded: {want}\n  now:      {have}")
        print(f"FAIL: {golden}: the simulated figures changed")
        return 1
    print(f"ok: {golden}: {len(expected)} lines identical")
    if max_delta_cycles is not None:
        cycles = delta_cycles(done.stdout)
        if cycles is None:
            print("FAIL: no delta-cycle count in the output")
            return 1
        if cycles > max_delta_cycles:
            print(f"FAIL: {cycles} delta cycles, more than the {max_delta_cycles} allowed")
            return 1
        print(f"ok: {cycles} delta cycles (at most {max_delta_cycles})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
