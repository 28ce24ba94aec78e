#!/usr/bin/env python3
"""Checks of the switch engines' tree set-up under packet loss
(collective.placement=switch and collective.mode=sharp; docs/COLLECTIVES.md,
"Switch-resident engines" and "Link faults through the switch engines"):

  leaves ISVP PROGRAM STATS MODE SEEDS [isvp run options]
      PROGRAM is mpi_link_fault: `return 20 communicators` (an
      MPI_Allreduce on a fresh MPI_Comm_dup of the world, freed after it,
      20 times: every dup reuses context 1 under the same group key). Run
      once per aurora.seed in SEEDS (comma-separated) with --set MODE and
      the options; the reliable layer recovers every dropped packet, so a
      member's tree leave that waited for its retransmission arrives after
      the others' joins of the next dup. Every rank must pass every
      iteration, and the planner must count exactly 20 groups released and
      21 admitted (the world's never goes) in every run; at least one run
      must have had a leave overtaken (leaves_overtaken), or the test did
      not test the case.
"""
import json
import re
import subprocess
import sys


def planner_totals(stats, sharp):
    engines = json.load(open(stats))["platform"]["switch_engines"].values()
    prefix = "sharp_groups_" if sharp else "groups_"
    total = lambda field: sum(e.get(field, 0) for e in engines)
    return total(prefix + "admitted"), total(prefix + "released"), total("leaves_overtaken")


def leaves(isvp, program, stats, mode, seeds, *run_args):
    sharp = mode == "collective.mode=sharp"
    ranks = int(run_args[run_args.index("-n") + 1])
    overtaken = 0
    for seed in seeds.split(","):
        command = [isvp, "run", "--stats", stats, "--set", mode, "--set", f"aurora.seed={seed}", *run_args, "--",
                   program, "return", "20", "communicators"]
        run = subprocess.run(command, capture_output=True, text=True, timeout=300)
        out = run.stdout + run.stderr
        passed = len(re.findall(r"mpi_link_fault: rank \d+: 20 iterations, 0 failed", out))
        if run.returncode != 0 or passed != ranks or "FAIL" in run.stdout:
            sys.exit(f"FAILED: {' '.join(command)}: status {run.returncode}, {passed} of {ranks} ranks passed\n"
                     + out[-3000:])
        admitted, released, late = planner_totals(stats, sharp)
        print(f"seed {seed}: groups admitted {admitted}, released {released}, leaves overtaken {late}")
        if (admitted, released) != (21, 20):
            sys.exit(f"FAILED: seed {seed}: expected 21 groups admitted and 20 released (20 dups freed), "
                     f"got {admitted} and {released}")
        overtaken += late
    if overtaken == 0:
        sys.exit("FAILED: no run had a leave overtaken by the next dup's joins: the case was not tested")
    print("PASSED")


def main():
    if len(sys.argv) >= 7 and sys.argv[1] == "leaves":
        leaves(*sys.argv[2:])
    else:
        sys.exit("usage: switch_setup_checks.py leaves ISVP PROGRAM STATS MODE SEEDS [isvp run options]")


if __name__ == "__main__":
    main()
