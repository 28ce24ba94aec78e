#!/usr/bin/env python3
"""Reads an `isvp run --stats` JSON and checks the CGRA counters of every
node's collective engine (docs/FUSED.md, "Statistics"): each node ran at
least `--runs` programs, produced elements and spent cycles on them, and
refused at least `--refused` LOADs or ARMs. Prints the counters per node."""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stats")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--refused", type=int, default=0)
    args = parser.parse_args()
    with open(args.stats) as f:
        nodes = json.load(f)["platform"]["nodes"]
    failures = 0
    for node in nodes:
        c = node["collective"]
        counters = {k: c.get(k) for k in ("cgra_runs", "cgra_refused", "cgra_elements", "cgra_cycles")}
        print("node %s: %s" % (node["address"], counters))
        if None in counters.values():
            print("  missing CGRA counters")
            failures += 1
            continue
        if counters["cgra_runs"] < args.runs or counters["cgra_refused"] < args.refused:
            print("  expected at least %d runs and %d refused" % (args.runs, args.refused))
            failures += 1
        if counters["cgra_runs"] and (counters["cgra_elements"] <= 0 or counters["cgra_cycles"] <= 0):
            print("  runs without elements or cycles")
            failures += 1
    print("cgra statistics %s" % ("ok" if failures == 0 else "FAILED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
