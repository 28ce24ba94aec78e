#!/usr/bin/python3
"""What one packet-hop of the network bench costs, counted rather than timed.

Wall and CPU times of `torus_bench` move by 10-25 % with the load of a shared
machine, more than most changes to the router's hot path. This runs the bench
twice under cachegrind (valgrind's cache and branch simulator), for a short
and a long injection window, and divides the difference of the counters by
the difference of the packet-hops: bring-up, elaboration and teardown cancel,
and what is left is the steady state of one hop (its sources and sinks
included), the same on every run and every machine:

    instructions, L1 data misses, misses of a cache the size of an L2
    (--l2-bytes, 1 MiB by default: this project's machine), mispredicted
    branches (cachegrind's simple predictor), wake-ups of the fabric's
    scheduler

    scripts/hop_cost.py                       # 8x8x8, 20 and 40 us
    scripts/hop_cost.py --torus 4x4x4 --short-us 100 --long-us 200
    scripts/hop_cost.py --bench /tmp/torus_bench-main --json
    scripts/hop_cost.py --set router.scheduler_time_steps=false

Needs valgrind (`apt-get install valgrind`); the two runs go in parallel and
take 2-4 minutes for the defaults. docs/PERFORMANCE.md ("Session 27") has
the figures and what they do and do not predict.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# cachegrind's summary lines (stderr), e.g. "==123== D1  misses:  59,133,820  ( 52,777,116 rd + ...".
SUMMARY = {
    "instructions": re.compile(r"I\s+refs:\s+([\d,]+)"),
    "l1_misses": re.compile(r"D1\s+misses:\s+([\d,]+)"),
    "l2_misses": re.compile(r"LLd misses:\s+([\d,]+)"),
    "mispredicts": re.compile(r"Mispredicts:\s+([\d,]+)"),
}
HOPS = re.compile(r"delivered\s+(\d+) packets, (\d+) packet-hops")
WAKEUPS = re.compile(r"wake-ups\s+(\d+)")


def parse(stdout, stderr):
    """Counters of one run: the bench's packets, hops and wake-ups, cachegrind's totals."""
    counts = {}
    for key, pattern in SUMMARY.items():
        match = pattern.search(stderr)
        if not match:
            raise ValueError("cachegrind printed no '%s' line" % key)
        counts[key] = int(match.group(1).replace(",", ""))
    match = HOPS.search(stdout)
    if not match:
        raise ValueError("the bench printed no 'delivered ... packet-hops' line")
    counts["packets"], counts["hops"] = int(match.group(1)), int(match.group(2))
    match = WAKEUPS.search(stdout)
    counts["wakeups"] = int(match.group(1)) if match else None
    return counts


def run(bench, torus, duration_us, l2_bytes, settings, workdir):
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes", "--D1=49152,12,64",
               "--LL=%d,16,64" % l2_bytes, "--cachegrind-out-file=" + os.path.join(workdir, "cg.%g" % duration_us),
               bench, "--set", "topology.torus=" + torus, "--duration-us", "%g" % duration_us]
    for setting in settings:
        command += ["--set", setting]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("hop_cost: %s failed (exit %d):\n%s" % (" ".join(command), result.returncode,
                                                          (result.stdout + result.stderr)[-2000:]))
    return parse(result.stdout, result.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=os.path.join(REPO, "build", "testbench", "torus_bench"),
                        help="torus_bench binary (default: this tree's build)")
    parser.add_argument("--torus", default="8x8x8", help="topology.torus of both runs (default 8x8x8)")
    parser.add_argument("--short-us", type=float, default=20.0, help="injection window of the short run, us")
    parser.add_argument("--long-us", type=float, default=40.0, help="injection window of the long run, us")
    parser.add_argument("--l2-bytes", type=int, default=1 << 20,
                        help="size of the simulated last-level cache, bytes (default 1 MiB, an L2)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a parameter for both runs (repeatable), e.g. router.scheduler_time_steps=false")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.long_us <= args.short_us:
        parser.error("--long-us (%g) must exceed --short-us (%g)" % (args.long_us, args.short_us))
    if not os.access(args.bench, os.X_OK):
        parser.error("no bench binary at %s (build it: cmake --build build --target torus_bench)" % args.bench)
    if subprocess.run(["valgrind", "--version"], capture_output=True).returncode != 0:
        sys.exit("hop_cost: needs valgrind (apt-get install valgrind)")

    with tempfile.TemporaryDirectory(prefix="hop_cost.") as workdir:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            short, long = pool.map(lambda us: run(args.bench, args.torus, us, args.l2_bytes, args.set, workdir),
                                   [args.short_us, args.long_us])
    hops = long["hops"] - short["hops"]
    if hops <= 0:
        sys.exit("hop_cost: the long run made no more hops than the short one (%d, %d)" % (long["hops"], short["hops"]))
    per_hop = {key: (long[key] - short[key]) / hops for key in SUMMARY}
    if short["wakeups"] is not None and long["wakeups"] is not None:
        per_hop["wakeups"] = (long["wakeups"] - short["wakeups"]) / hops
    report = {"bench": args.bench, "torus": args.torus, "windows_us": [args.short_us, args.long_us],
              "l2_bytes": args.l2_bytes, "hops": hops, "per_hop": per_hop, "short": short, "long": long}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print("%s torus, %g us - %g us windows: %d packet-hops apart" % (args.torus, args.long_us, args.short_us, hops))
    labels = {"instructions": "instructions", "l1_misses": "L1 data misses (48 KiB)",
              "l2_misses": "misses of a %d KiB cache" % (args.l2_bytes // 1024),
              "mispredicts": "mispredicted branches", "wakeups": "scheduler wake-ups"}
    for key, value in per_hop.items():
        print("  %-32s %10.1f per hop" % (labels[key], value))


if __name__ == "__main__":
    main()
