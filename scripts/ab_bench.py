#!/usr/bin/python3
"""Which of two torus_bench builds (or settings) is faster, on a noisy machine.

A shared 2-core machine moves one binary's packet-hops per CPU second by
10-30 % between runs (docs/PERFORMANCE.md, "Session 28"), more than most
changes to the hot path. What holds up is alternating: run A and B one after
the other, swap the order every round, and take the median of the per-round
ratios B/A with the number of rounds B won. Each run's simulated figures
(packets, hops, latency, link utilisation, simulated time, wake-ups) must be
the same for A and B, or the comparison is between different simulations:
the script checks that on every round and stops if they differ.

    scripts/ab_bench.py --a /tmp/torus_bench-main --b build/testbench/torus_bench
    scripts/ab_bench.py --a build/testbench/torus_bench --a-args "--hints off" \\
        --b build/testbench/torus_bench --pairs 20
    scripts/ab_bench.py --a OLD --b NEW -- --set topology.torus=4x4x4 --duration-us 200

Arguments after `--` go to both runs (default: --duration-us 60, the
512-node bench). Prints one line per round with --verbose, then the summary.
"""

import argparse
import re
import shlex
import statistics
import subprocess
import sys

RATE = re.compile(r"packet-hops/s\s+\d+ per wall second, (\d+) per CPU second")
# The lines that describe what was simulated, not how fast: equal for A and B.
SIMULATED = ("delivered", "mean latency", "simulated", "wake-ups")


def run(binary, args):
    """One bench run: (packet-hops per CPU second, its simulated figures)."""
    result = subprocess.run([binary] + args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("ab_bench: %s failed (exit %d):\n%s" % (" ".join([binary] + args), result.returncode,
                                                         (result.stdout + result.stderr)[-2000:]))
    match = RATE.search(result.stdout)
    if not match:
        sys.exit("ab_bench: %s printed no 'packet-hops/s ... per CPU second' line" % binary)
    figures = [line.strip() for line in result.stdout.splitlines() if line.strip().startswith(SIMULATED)]
    return int(match.group(1)), figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="the reference bench binary")
    parser.add_argument("--b", required=True, help="the candidate bench binary (may be the same as --a)")
    parser.add_argument("--a-args", default="", help="extra arguments for A's runs only")
    parser.add_argument("--b-args", default="", help="extra arguments for B's runs only")
    parser.add_argument("--pairs", type=int, default=30, help="rounds of one A and one B run (default 30)")
    parser.add_argument("--verbose", action="store_true", help="print every round")
    parser.add_argument("bench_args", nargs="*", help="arguments for both (after --; default --duration-us 60)")
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    common = args.bench_args or ["--duration-us", "60"]
    a_args = common + shlex.split(args.a_args)
    b_args = common + shlex.split(args.b_args)

    ratios, a_rates, b_rates = [], [], []
    for round_index in range(args.pairs):
        order = [("a", args.a, a_args), ("b", args.b, b_args)]
        if round_index % 2:
            order.reverse()
        results = {name: run(binary, run_args) for name, binary, run_args in order}
        (a_rate, a_figures), (b_rate, b_figures) = results["a"], results["b"]
        if a_figures != b_figures:
            sys.exit("ab_bench: round %d simulated different figures; compare like with like\n  A: %s\n  B: %s" %
                     (round_index + 1, "; ".join(a_figures), "; ".join(b_figures)))
        a_rates.append(a_rate)
        b_rates.append(b_rate)
        ratios.append(b_rate / a_rate)
        if args.verbose:
            print("round %2d: A %.3f M, B %.3f M, B/A %.4f" % (round_index + 1, a_rate / 1e6, b_rate / 1e6,
                                                               ratios[-1]))
    wins = sum(ratio > 1 for ratio in ratios)
    print("%d pairs: median packet-hops per CPU second A %.3f M, B %.3f M; median ratio B/A %.4f (%+.1f %%); "
          "B ahead in %d of %d; simulated figures identical" %
          (len(ratios), statistics.median(a_rates) / 1e6, statistics.median(b_rates) / 1e6,
           statistics.median(ratios), 100 * (statistics.median(ratios) - 1), wins, len(ratios)))


if __name__ == "__main__":
    main()
