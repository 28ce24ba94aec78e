#!/usr/bin/env python3
"""Allreduce of one size on 2, 4, ..., N hosts of a fat tree, four ways:
in-switch at the NICs (collective.placement=nic), in the switches' trees
(placement=switch), SHArP mode (collective.mode=sharp) and host software
(--offload off). Writes a CSV, a Markdown table (stdout and --markdown) and
a PNG plot (matplotlib, when importable).

    scripts/sharp_study.py --isvp build/platform/isvp --out sharp_study \\
        [--radix 28] [--size 2048] [--max-hosts 128]

Simulated times are deterministic; each point is one `isvp bench
collectives` run (5 timed calls after one warm-up, --check).
"""
import argparse
import csv
import os
import subprocess
import sys

WAYS = [
    ("nic", "in-switch at the NICs (placement=nic)", ["--set", "collective.placement=nic"]),
    ("switch", "in-switch tree (placement=switch)", ["--set", "collective.placement=switch"]),
    ("sharp", "SHArP mode (mode=sharp)", ["--set", "collective.mode=sharp"]),
    ("software", "host software (--offload off)", ["--offload", "off"]),
]


def latency(isvp, radix, hosts, size, extra):
    command = [isvp, "bench", "collectives", "--check", "--topology", f"fattree:radix={radix},hosts={hosts}",
               "--collectives", "allreduce", "--sizes", str(size), *extra]
    run = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if run.returncode != 0 or "mismatch" in run.stdout:
        sys.exit("sharp_study: failed: " + " ".join(command) + "\n" + run.stdout + run.stderr)
    for line in run.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0] == "allreduce" and fields[1] == str(size):
            return float(fields[2])
    sys.exit("sharp_study: no allreduce row in\n" + run.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--isvp", default="build/platform/isvp")
    parser.add_argument("--out", default="sharp_study")
    parser.add_argument("--radix", type=int, default=28)
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--max-hosts", type=int, default=128)
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    try:  # before the runs, so that their results are not lost at the end
        os.makedirs(args.out, exist_ok=True)
        if args.markdown:
            open(args.markdown, "a").close()
    except OSError as error:
        parser.error(f"cannot write {error.filename}: {error.strerror}")
    hosts = []
    h = 2
    while h <= args.max_hosts:
        hosts.append(h)
        h *= 2
    table = {}
    for n in hosts:
        for key, _, extra in WAYS:
            table[(n, key)] = latency(args.isvp, args.radix, n, args.size, extra)
            sys.stderr.write(f"sharp_study: {n} hosts, {key}: {table[(n, key)]:.3f} us\n")
    with open(os.path.join(args.out, "sharp_study.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["hosts"] + [key for key, _, _ in WAYS])
        for n in hosts:
            writer.writerow([n] + [f"{table[(n, key)]:.3f}" for key, _, _ in WAYS])
    lines = [f"| hosts | " + " | ".join(label for _, label, _ in WAYS) + " |",
             "|---" * (len(WAYS) + 1) + "|"]
    for n in hosts:
        lines.append(f"| {n} | " + " | ".join(f"{table[(n, key)]:.3f} µs" for key, _, _ in WAYS) + " |")
    markdown = "\n".join(lines) + "\n"
    print(markdown)
    if args.markdown:
        open(args.markdown, "w").write(markdown)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("sharp_study: no plot: matplotlib is not importable\n")
        return
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for key, label, _ in WAYS:
        axes.plot(hosts, [table[(n, key)] for n in hosts], "o-", label=label, markersize=4)
    axes.set_xscale("log", base=2)
    axes.set_xticks(hosts)
    axes.set_xticklabels([str(n) for n in hosts])
    axes.set_xlabel("hosts")
    axes.set_ylabel("Allreduce latency (µs, simulated)")
    axes.set_title(f"Allreduce {args.size} B, fat tree radix {args.radix}")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    path = os.path.join(args.out, f"allreduce_{args.size}_radix{args.radix}.png")
    figure.savefig(path, dpi=110)
    sys.stderr.write(f"sharp_study: plot {path}\n")


if __name__ == "__main__":
    main()
