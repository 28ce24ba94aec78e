#!/usr/bin/env python3
"""Checks of collective.mode=sharp (docs/COLLECTIVES.md, "SHArP mode"):

  rtl-same ISVP            bench --check in SHArP mode on fattree radix=8,
                           hosts=32 (Allreduce, Reduce, Barrier; several ops):
                           every result exact, --aglu tlm and --aglu rtl give
                           identical rows
  mpi ISVP STATS PROGRAM MODE CHECK [ISVP RUN ARGS...]
                           isvp run PROGRAM MODE with --stats STATS; every
                           rank passed, then CHECK on the statistics:
                           trimmed   a leaf with one member of the group is
                                     left out of its tree (no operation)
                           limits    groups fell back, every AN stayed within
                                     its buffers
                           timeout   an AN timed out, every rank saw the error
                           fault     the AN failed, every rank saw the error
                           churn     freed communicators gave their trees
                                     back: every group admitted, none fell back
                           switch-churn  the same with placement=switch
                                     (mode offload): the switch engines' rows
                                     given back, every Allreduce through the
                                     trees
                           switch-full   placement=switch with room for one
                                     tree: the other groups fell back to the
                                     NIC engines
                           queue     a group waited and then got a tree
                           bounded   a group waited and then fell back
  guest ISVP STATS PROGRAM [ISVP RUN ARGS...]
                           isvp run tree_abort_guest: every rank's call
                           ended with error 5 and the next communicator
                           worked; the switch engines passed abort notices
"""
import json
import re
import subprocess
import sys

BENCH = ["--topology", "fattree:radix=8,hosts=32", "--set", "collective.mode=sharp",
         "--collectives", "allreduce,reduce,barrier", "--sizes", "8,2K,64K"]


def bench(isvp, *args):
    command = [isvp, "bench", "collectives", "--check", *BENCH, *args]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if run.returncode != 0 or "mismatch" in run.stdout:
        sys.exit("FAILED: " + " ".join(command) + "\n" + run.stdout + run.stderr)
    return run.stdout


def rows(output):
    """Result rows and counters; not the header (it names the AgLU) nor wall-clock figures."""
    return [line for line in output.splitlines()
            if line and not line.startswith("# simulator") and " wall" not in line and ", aglu " not in line]


def rtl_same(isvp):
    tlm = bench(isvp, "--aglu", "tlm")
    rtl = bench(isvp, "--aglu", "rtl")
    if rows(tlm) != rows(rtl):
        sys.exit("FAILED: tlm and rtl rows differ\n" + tlm + "\n" + rtl)
    if not re.search(r"# switch placement: [1-9]\d* rank calls through the switches' trees", tlm):
        sys.exit("FAILED: no call went through the SHArP trees\n" + tlm)
    print(tlm)


def engines(stats):
    return json.load(open(stats))["platform"]["switch_engines"]


def mpi(isvp, stats, program, mode, check, *run_args):
    command = [isvp, "run", "--stats", stats, *run_args, "--", program, mode]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900)
    out = run.stdout + run.stderr
    print(out[-6000:])
    ranks = int(run_args[run_args.index("-n") + 1])
    passed = len(re.findall(rf"sharp_groups: rank \d+: {mode}: passed", out))
    if run.returncode != 0 or "FAIL" in run.stdout or passed != ranks:
        sys.exit(f"FAILED: {' '.join(command)}: status {run.returncode}, {passed} of {ranks} ranks passed")
    an = engines(stats)
    ranks_of_first = json.load(open(stats))["ranks"]
    total = lambda field: sum(e[field] for e in an.values())
    if check == "trimmed":
        # 7 ranks: 0-5 on leaf 0, rank 6 alone on leaf 1, whose width in the
        # world's tree is one: trimmed, the spine takes rank 6 directly.
        lone = [e for k, e in an.items() if k.endswith("leaf1")]
        if not lone or lone[0]["sharp_operations"] or lone[0]["collectives"]:
            sys.exit(f"FAILED: leaf 1 (one member) was not trimmed: {lone}")
        if not all(e["sharp_operations"] > 0 for k, e in an.items() if k.endswith("leaf0")):
            sys.exit("FAILED: leaf 0 ran no operation")
        if not any(e["sharp_operations"] > 0 for k, e in an.items() if "spine" in k):
            sys.exit("FAILED: no spine ran the world's operations")
    elif check == "limits":
        if total("sharp_groups_fallback") == 0 or total("sharp_groups_admitted") == 0:
            sys.exit("FAILED: expected groups admitted and groups falling back")
        if any(e["sharp_peak_buffers"] > 2 for e in an.values()):
            sys.exit("FAILED: an AN used more than its 2 buffers")
    elif check == "timeout":
        if total("sharp_timeouts") == 0:
            sys.exit("FAILED: no AN timed out")
        if len(re.findall(rf"rank \d+: timeout: error: .*SHArP", out)) != ranks:
            sys.exit("FAILED: not every rank saw the SHArP error")
    elif check == "fault":
        if total("sharp_faults") != 1:
            sys.exit("FAILED: the AN did not fail once")
        if len(re.findall(rf"rank \d+: fault: world allreduces from \d+ on failed .*SHArP", out)) != ranks:
            sys.exit("FAILED: not every rank saw the SHArP error")
    elif check == "churn":
        if total("sharp_groups_fallback") or total("sharp_groups_queued"):
            sys.exit("FAILED: a group waited or fell back: freed communicators kept their resources")
        if total("sharp_groups_released") < 8 or total("sharp_groups_admitted") < 9:
            sys.exit("FAILED: expected 8 groups released and 9 admitted")
    elif check in ("switch-churn", "switch-full"):
        nics = [n["collective"] for n in json.load(open(stats))["platform"]["nodes"]]
        on_nics = sum(e["tree_not_offloaded"] for e in nics)
        fallback = sum(e["sharp_fallback_groups"] for e in nics)
        print(f"statistics: groups admitted {total('groups_admitted')}, released {total('groups_released')}, "
              f"fallback {total('groups_fallback')}; NIC calls through the trees "
              f"{sum(e['tree_collectives'] for e in nics)}, on the NIC engines {on_nics}")
        if check == "switch-churn":
            if total("groups_fallback") or fallback or on_nics:
                sys.exit("FAILED: a group fell back to the NIC engines: freed communicators kept their trees")
            if total("groups_released") < 8 or total("groups_admitted") < 9:
                sys.exit("FAILED: expected 8 groups released and 9 admitted")
        elif total("groups_fallback") < 8 or fallback < 8 * 2 or on_nics == 0:
            sys.exit("FAILED: expected the 8 communicators to fall back to the NIC engines")
        elif not re.search(r"runs on the NIC engines: the engine of switch \d+ holds 1 trees already "
                           r"\(collective.switch_max_trees\)",
                           out):
            sys.exit("FAILED: no info line naming the full engine and collective.switch_max_trees")
        print("PASSED")
        return
    elif check == "queue":
        if total("sharp_groups_queued") == 0 or total("sharp_groups_fallback"):
            sys.exit("FAILED: expected a group to wait, and none to fall back")
        # Deterministic: the same run again gives the same switch statistics
        # and the same simulated end of every rank.
        again = subprocess.run(command, capture_output=True, text=True, timeout=900)
        if again.returncode != 0 or engines(stats) != an or json.load(open(stats))["ranks"] != ranks_of_first:
            sys.exit("FAILED: a second run's switch statistics or rank times differ")
    elif check == "bounded":
        if total("sharp_groups_queued") == 0 or total("sharp_groups_fallback") == 0:
            sys.exit("FAILED: expected a group to wait and then fall back")
    else:
        sys.exit(f"unknown check {check}")
    print(f"statistics: queued {total('sharp_groups_queued')}, released {total('sharp_groups_released')}, "
          f"abort notices {total('abort_notices')}")
    print(f"statistics: admitted {total('sharp_groups_admitted')}, fallback {total('sharp_groups_fallback')}, "
          f"operations {total('sharp_operations')}, timeouts {total('sharp_timeouts')}, faults {total('sharp_faults')}")


def guest(isvp, stats, program, *run_args):
    command = [isvp, "run", "--stats", stats, *run_args, "--", program]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    print(out[-6000:])
    ranks = int(run_args[run_args.index("-n") + 1])
    aborted = len(re.findall(r"tree_abort rank \d+: error: .*error code 5", out))
    if run.returncode != 0 or out.count("tree_abort ok") != ranks or aborted != ranks:
        sys.exit(f"FAILED: {' '.join(command)}: status {run.returncode}, {aborted} of {ranks} ranks saw error 5")
    notices = sum(e["abort_notices"] for e in engines(stats).values())
    if notices == 0:
        sys.exit("FAILED: no switch engine passed an abort notice on")
    print(f"abort notices passed on by the switch engines: {notices}")


def calls(isvp, collective):
    """(offloaded, in software) rank calls of one timed iteration of `collective` at 8 B in SHArP mode."""
    out = subprocess.run([isvp, "bench", "collectives", "--check", "--topology", "fattree:radix=8,hosts=32", "--set",
                          "collective.mode=sharp", "--collectives", collective, "--sizes", "8", "--iterations", "1",
                          "--warmup", "0"], capture_output=True, text=True, timeout=300).stdout
    found = re.search(r"# (\d+) calls offloaded, (\d+) in software", out)
    if not found or "mismatch" in out:
        sys.exit(f"FAILED: {collective}: no call counts or a mismatch\n{out}")
    return int(found[1]), int(found[2])


def reductions_only(isvp):
    """Only Allreduce, Reduce and Barrier go to the ANs (ACCEL_CAPABILITIES.REDUCTIONS_ONLY): the 32 ranks' Bcast
    runs in host software where their Allreduce is offloaded; the runs differ in nothing else."""
    reduction = calls(isvp, "allreduce")
    for other in ("bcast", "allgather"):
        got = calls(isvp, other)
        if got != (reduction[0] - 32, reduction[1] + 32):
            sys.exit(f"FAILED: {other}: {got[0]} offloaded, {got[1]} in software; allreduce {reduction}: "
                     "32 more rank calls in software expected")
    print(f"allreduce {reduction}; bcast and allgather: 32 rank calls moved to host software")


def main():
    check = sys.argv[1]
    if check == "rtl-same":
        rtl_same(sys.argv[2])
    elif check == "reductions-only":
        reductions_only(sys.argv[2])
    elif check == "mpi":
        mpi(*sys.argv[2:])
    elif check == "guest":
        guest(*sys.argv[2:])
    else:
        sys.exit(f"unknown check {check}")
    print("PASSED")


if __name__ == "__main__":
    main()
