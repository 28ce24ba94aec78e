#!/usr/bin/env python3
"""Distributed simulation (docs/PARTITIONS.md) end to end.

  partition_checks.py same ISVP PARTITIONS ARGS...
      `isvp bench collectives ARGS` with one process and with --partitions
      PARTITIONS (mpiexec, started by isvp itself) print the same rows,
      header and simulated time (the wall-time parts and the simulator's own
      counters left out); the partitioned run really synchronised (windows
      and cut traffic > 0).
  partition_checks.py same-pingpong ISVP PARTITIONS ARGS...
      The same for `isvp bench pingpong ARGS`.
  partition_checks.py refused ISVP EXPECTED ARGS...
      `isvp bench collectives ARGS` fails with a message containing EXPECTED,
      promptly (no hang).
"""
import os
import re
import subprocess
import sys

TIMEOUT = 600


def environment():
    env = dict(os.environ)
    # As root (CI, containers) Open MPI refuses to start without these.
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def run(isvp, args, command="collectives"):
    return subprocess.run([isvp, "bench", command] + args, capture_output=True, text=True,
                          timeout=TIMEOUT, env=environment())


def comparable(stdout):
    lines = []
    for line in stdout.splitlines():
        if line.startswith("# simulator:") or line.startswith("# partitions:"):
            continue
        lines.append(re.sub(r" in [0-9.e+-]+ s wall.*", "", line))
    return lines


def same(isvp, partitions, args, command="collectives"):
    one = run(isvp, args, command)
    if one.returncode != 0:
        sys.exit(f"one process failed ({one.returncode}):\n{one.stdout}\n{one.stderr}")
    many = run(isvp, args + ["--partitions", partitions], command)
    if many.returncode != 0:
        sys.exit(f"--partitions {partitions} failed ({many.returncode}):\n{many.stdout}\n{many.stderr}")
    a, b = comparable(one.stdout), comparable(many.stdout)
    if a != b:
        diff = "\n".join(f"  1: {x}\n  {partitions}: {y}" for x, y in zip(a, b) if x != y)
        sys.exit(f"--partitions {partitions} printed different rows:\n{diff}\n--- one process:\n{one.stdout}"
                 f"--- {partitions} partitions:\n{many.stdout}")
    if "mismatch" in many.stdout:
        sys.exit("a result differs from the reference")
    summary = [line for line in many.stdout.splitlines() if line.startswith("# partitions:")]
    if len(summary) != 1:
        sys.exit(f"expected one '# partitions:' line (printed once, by partition 0):\n{many.stdout}")
    match = re.search(r"# partitions: (\d+) .*; (\d+) windows, (\d+) bytes of cut traffic", summary[0])
    if not match or match.group(1) != partitions or int(match.group(2)) == 0 or int(match.group(3)) == 0:
        sys.exit(f"the partitions did not synchronise: {summary[0]}")
    rows = [line for line in many.stdout.splitlines() if line and not line.startswith("#")]
    print(f"{len(rows)} rows identical with {partitions} partitions; {summary[0]}")


def refused(isvp, expected, args):
    result = run(isvp, args)
    output = result.stdout + result.stderr
    if result.returncode == 0 or expected not in output:
        sys.exit(f"expected a failure naming '{expected}', got status {result.returncode}:\n{output}")
    print(f"refused: {output.strip().splitlines()[-1]}")


def main():
    mode, isvp = sys.argv[1], sys.argv[2]
    if mode == "same":
        same(isvp, sys.argv[3], sys.argv[4:])
    elif mode == "same-pingpong":
        same(isvp, sys.argv[3], sys.argv[4:], "pingpong")
    elif mode == "refused":
        refused(isvp, sys.argv[3], sys.argv[4:])
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
