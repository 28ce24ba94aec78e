#!/usr/bin/env python3
"""Checks of collective.placement=switch (docs/COLLECTIVES.md, "Switch-resident
engines") that compare isvp bench collectives runs:

  faster ISVP        8 B Allreduce and Barrier on fattree radix=8,hosts=16:
                     placement=switch is faster than placement=nic (an
                     ordering of simulated times, not a wall-clock figure),
                     and the switch run went through the trees
  rtl-same ISVP      the same rows with --aglu tlm and --aglu rtl
  deterministic ISVP two runs print identical rows and counters
"""
import re
import subprocess
import sys

TOPOLOGY = ["--topology", "fattree:radix=8,hosts=16"]


def bench(isvp, *args):
    command = [isvp, "bench", "collectives", "--check", *TOPOLOGY, *args]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if run.returncode != 0 or "mismatch" in run.stdout:
        sys.exit("FAILED: " + " ".join(command) + "\n" + run.stdout + run.stderr)
    return run.stdout


def rows(output):
    """Result rows and counters; not the lines with wall-clock figures."""
    return [line for line in output.splitlines()
            if line and not line.startswith("# simulator") and " wall" not in line]


def latencies(output):
    table = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) >= 3 and not line.startswith("#"):
            table[(fields[0], int(fields[1]))] = float(fields[2])
    return table


def main():
    check, isvp = sys.argv[1], sys.argv[2]
    switch = ["--set", "collective.placement=switch"]
    if check == "faster":
        nic = latencies(bench(isvp, "--collectives", "allreduce,barrier", "--sizes", "8"))
        out = bench(isvp, *switch, "--collectives", "allreduce,barrier", "--sizes", "8")
        tree = latencies(out)
        print(out)
        for key in (("allreduce", 8), ("barrier", 0)):
            print(f"{key[0]} {key[1]} B: nic {nic[key]} us, switch {tree[key]} us")
            if not tree[key] < nic[key]:
                sys.exit(f"FAILED: {key[0]} {key[1]} B in the switches ({tree[key]} us) is not faster than "
                         f"on the NICs ({nic[key]} us)")
        through = re.search(r"# switch placement: (\d+) rank calls through the switches' trees", out)
        combined = re.search(r"combined (\d+) bytes", out)
        if not through or int(through.group(1)) == 0 or not combined or int(combined.group(1)) == 0:
            sys.exit("FAILED: the switch run did not combine in the switches' trees")
    elif check == "rtl-same":
        args = [*switch, "--collectives", "allreduce,reduce,bcast,barrier", "--sizes", "8,2K,64K"]
        tlm, rtl = rows(bench(isvp, *args)), rows(bench(isvp, *args, "--aglu", "rtl"))
        # The header names the AgLU implementation; everything else must be equal.
        tlm = [line.replace("aglu tlm", "aglu X") for line in tlm]
        rtl = [line.replace("aglu rtl", "aglu X") for line in rtl]
        if tlm != rtl:
            sys.exit("FAILED: --aglu rtl differs from tlm:\n" + "\n".join(tlm) + "\n---\n" + "\n".join(rtl))
        print("\n".join(rtl))
    elif check == "deterministic":
        args = [*switch, "--collectives", "allreduce,reduce,bcast,barrier", "--sizes", "8,2K"]
        first, second = rows(bench(isvp, *args)), rows(bench(isvp, *args))
        if first != second:
            sys.exit("FAILED: two runs differ:\n" + "\n".join(first) + "\n---\n" + "\n".join(second))
        print("\n".join(first))
    else:
        sys.exit("unknown check " + check)
    print("PASSED")


if __name__ == "__main__":
    main()
