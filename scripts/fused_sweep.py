#!/usr/bin/python3
"""SmartFuse offload vs host sweep (docs/FUSED.md, docs/PERFORMANCE.md).

Runs testbench/mpi/fused_bench (the two proxy patterns: NAS IS
Allreduce -> op -> Alltoall, FEM Allgather -> prefix sum -> Allgatherv) on
N-node tori, each three ways on the same hardware:
  fused    the default threshold: the switch and its CGRA (both fully fused)
  unfused  ISVP_MPI_FUSED_THRESHOLD=0: the plain MPI calls (the switch's
           collectives where they offload), the op on the host
  host     --offload off: host software only
With --model, the LogcN-style model beside the fused column (see model()).
Every run must report "check ok" (fused_bench compares every rank's results
with a plain C reference) and the path it was meant to take; the script
exits 1 otherwise. Prints a Markdown table; --csv and --plot write the rows
and a PNG (matplotlib).

  scripts/fused_sweep.py [--build build] [--nodes 8,16,32,64,128]
                         [--elements 4] [--patterns is,fem] [--csv F] [--plot F.png]
"""
import argparse
import csv
import os
import re
import subprocess
import sys

# Torus shapes for the node counts (as scripts/fused_table.sh).
SHAPES = {2: "2x1x1", 4: "2x2x1", 8: "2x2x2", 16: "4x2x2", 32: "4x4x2", 64: "4x4x4", 128: "8x4x4", 256: "8x8x4"}
NAMES = {"is": "Allreduce→op→Alltoall (IS)", "fem": "Allgather→prefix→Allgatherv (FEM)"}
# The path each way must take (MPIX_Fused_last_offloaded): fused 2 (fully fused).
EXPECTED_PATH = {("is", "fused"): 2, ("fem", "fused"): 2}
LINE = re.compile(r"fused (\w+) ranks (\d+) elements (\d+) offloaded (\d) time_us ([0-9.]+) check (\w+)")


def run(build, nodes, pattern, elements, way):
    env = dict(os.environ)
    offload = "on"
    if way == "unfused":
        env["ISVP_MPI_FUSED_THRESHOLD"] = "0"
    elif way == "host":
        offload = "off"
    command = [os.path.join(build, "platform", "isvp"), "run", "-n", str(nodes), "--offload", offload,
               "--set", "topology.torus=" + SHAPES[nodes], "--",
               os.path.join(build, "testbench", "mpi", "fused_bench"), pattern, str(elements)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    match = LINE.search(done.stdout)
    if done.returncode != 0 or not match:
        raise SystemExit("fused_sweep: %s failed (exit %d):\n%s%s" % (" ".join(command), done.returncode,
                                                                      done.stdout, done.stderr))
    path, time_us, check = int(match.group(4)), float(match.group(5)), match.group(6)
    if check != "ok":
        raise SystemExit("fused_sweep: %s %d nodes %s: results differ from the reference" % (pattern, nodes, way))
    if path != EXPECTED_PATH.get((pattern, way), 0):
        raise SystemExit("fused_sweep: %s %d nodes %s took path %d, expected %d" %
                         (pattern, nodes, way, path, EXPECTED_PATH.get((pattern, way), 0)))
    return time_us


# The CGRA programs fused_bench runs and the switch's CGRA defaults
# (collective.cgra_*, docs/FUSED.md): IS: 3 instructions on 4 lanes; FEM's
# prefix sum: 1 instruction on 1 lane.
CGRA = {"is": (4, 3), "fem": (1, 1)}
CGRA_CYCLES_PER_VECTOR, CGRA_PE_LATENCY, ENGINE_MHZ = 1, 4, 250.0


def cgra_us(pattern, elements):
    lanes, instructions = CGRA[pattern]
    return ((elements + lanes - 1) // lanes * CGRA_CYCLES_PER_VECTOR + instructions * CGRA_PE_LATENCY) / ENGINE_MHZ


def torus_hops(nodes, a, b):
    """Switch-to-switch hops between ranks a and b on the torus SHAPES[nodes] (x fastest)."""
    dims = [int(d) for d in SHAPES[nodes].split("x")]
    hops = 0
    for d in dims:
        distance = abs(a % d - b % d)
        hops += min(distance, d - distance)
        a, b = a // d, b // d
    return hops


def model(build, nodes, elements, pattern):
    """LogcN-style model of the fused call (SmartFuse's decomposition: the
    collectives in the switch, c the switch's computation between them, no
    host step between fused collectives). The collectives' times are the
    project's LogGP model (models/loggp, as `isvp bench collectives` prints
    it) on the same topology:
      IS  (fully fused): T = M_switch(Allreduce, 4 E N) + c
                             + max(A, S)            (the chained Alltoall: its data steps stream
                                                     while its argument agreement runs; only its
                                                     result waits for the agreement)
                             + 4 E N x G_pcie       (its result to the host; the op's output
                                                     goes up meanwhile)
                             A: the argument agreement, one small packet per hypercube step
                             (L_router + hops(0, 2^k) x hop), no longer hidden behind a host o_s;
                             S: the engine's Alltoall, per hypercube step k L_router +
                             hops(0, 2^k) x hop + N/2 blocks of 4 E bytes x G_link (summed here
                             from the same LogGP parameters: `isvp bench collectives` has no
                             Alltoall row).
      FEM (fully fused): T = M_switch(Allgather, 4) + c + M_switch(Allgather, 8 E per rank)
                             - (o_s + o_r) + A      (the data's request posted up front; the
                                                     engine starts it when the prefix sum is done)
    c = (ceil(elements / lanes) x cycles_per_vector + instructions x pe_latency) / engine clock."""
    import json
    import tempfile
    per_rank_op = 4 * elements * nodes
    sizes = sorted({4, 8 * elements, per_rank_op})
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        command = [os.path.join(build, "platform", "isvp"), "bench", "collectives", "--topology",
                   "torus:" + SHAPES[nodes], "--collectives", "allreduce,allgather", "--sizes",
                   ",".join(map(str, sizes)), "--iterations", "1", "--warmup", "0", "--offload", "both",
                   "--timing-only", "--json", f.name]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit("fused_sweep: %s failed:\n%s%s" % (" ".join(command), done.stdout, done.stderr))
        document = json.load(open(f.name))
    rows = {(r["collective"], r["size"]): r for r in document["rows"]}
    loggp = document["loggp"]
    host_hop = loggp["o_s_us"] + loggp["o_r_us"]
    agreement = sum(loggp["L_router_us"] + torus_hops(nodes, 0, 1 << j) * loggp["hop_us"]
                    for j in range(nodes.bit_length() - 1))
    if pattern == "is":
        block_bytes = 4 * elements
        alltoall = sum(loggp["L_router_us"] + torus_hops(nodes, 0, 1 << j) * loggp["hop_us"] +
                       nodes // 2 * block_bytes * loggp["G_link_us_per_byte"]
                       for j in range(nodes.bit_length() - 1))
        return (rows[("allreduce", per_rank_op)]["loggp_offload_us"] + cgra_us("is", elements * nodes) +
                max(agreement, alltoall) + per_rank_op * loggp["G_pcie_us_per_byte"])
    return (rows[("allgather", 4)]["loggp_offload_us"] + cgra_us("fem", nodes) +
            rows[("allgather", 8 * elements)]["loggp_offload_us"] - host_hop + agreement)


def plot(args, rows, patterns):
    """Writes the PNG of `rows` (pattern, nodes, fused, unfused, host, model) to args.plot."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("fused_sweep: --plot needs matplotlib (Debian: apt-get install python3-matplotlib; "
                         "run the script with /usr/bin/python3)")
    figure, axes = plt.subplots(1, len(patterns), figsize=(5.5 * len(patterns), 4), squeeze=False)
    for axis, pattern in zip(axes[0], patterns):
        mine = [r for r in rows if r[0] == pattern]
        x = [r[1] for r in mine]
        for column, label, marker in ((2, "fused in the switch", "o"), (3, "unfused, switch collectives", "s"),
                                      (4, "host software", "^")):
            axis.plot(x, [r[column] for r in mine], marker=marker, label=label)
        if args.model:
            axis.plot(x, [r[5] for r in mine], linestyle="--", color="C0", label="LogcN model, fused")
        axis.set_xscale("log", base=2)
        axis.set_xticks(x)
        axis.set_xticklabels([str(v) for v in x])
        axis.set_xlabel("nodes")
        axis.set_ylabel("simulated µs per call")
        axis.set_title("%s, %d elements per rank" % (NAMES[pattern], args.elements))
        axis.grid(True, alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(args.plot, dpi=110)
    print("# plot: " + args.plot)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--nodes", default="8,16,32,64,128")
    parser.add_argument("--elements", type=int, default=4, help="elements per rank")
    parser.add_argument("--patterns", default="is,fem")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    parser.add_argument("--model", action="store_true", help="the LogcN-style model beside the fused column")
    parser.add_argument("--replot", metavar="CSV", help="no runs: plot the rows of a --csv file (with --plot)")
    args = parser.parse_args()
    if args.replot:
        with open(args.replot) as f:
            rows = [(r["pattern"], int(r["nodes"]), float(r["fused_us"]), float(r["unfused_us"]),
                     float(r["host_us"]), float(r["logcn_fused_us"])) for r in csv.DictReader(f)]
        args.model = any(r[5] == r[5] for r in rows)  # not NaN
        plot(args, rows, sorted({r[0] for r in rows}, key=lambda p: list(NAMES).index(p)))
        return 0
    nodes = [int(n) for n in args.nodes.split(",")]
    for n in nodes:
        if n not in SHAPES:
            raise SystemExit("fused_sweep: --nodes %d: one of %s" % (n, ", ".join(map(str, sorted(SHAPES)))))
    patterns = args.patterns.split(",")
    for p in patterns:
        if p not in NAMES:
            raise SystemExit("fused_sweep: --patterns %s: is or fem" % p)
    if args.elements < 1:
        raise SystemExit("fused_sweep: --elements must be at least 1")

    rows = []
    extra_head = " LogcN model, fused (µs) | diff |" if args.model else ""
    print("| pattern | nodes | fused in the switch (µs) | unfused, switch collectives (µs) | host software (µs) "
          "| speed-up vs host software |" + extra_head)
    print("|---|---|---|---|---|---|" + ("---|---|" if args.model else ""))
    for pattern in patterns:
        for n in nodes:
            times = {way: run(args.build, n, pattern, args.elements, way) for way in ("fused", "unfused", "host")}
            modelled = model(args.build, n, args.elements, pattern) if args.model else float("nan")
            rows.append((pattern, n, times["fused"], times["unfused"], times["host"], modelled))
            extra = (" %.3f | %+.0f%% |" % (modelled, 100.0 * (times["fused"] - modelled) / modelled)
                     if args.model else "")
            print("| %s | %d | %.3f | %.3f | %.3f | %.2fx |%s" % (NAMES[pattern], n, times["fused"], times["unfused"],
                                                                  times["host"], times["host"] / times["fused"],
                                                                  extra),
                  flush=True)
    print("# check: every run's results equal the C reference, each on its expected path")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(["pattern", "nodes", "fused_us", "unfused_us", "host_us", "logcn_fused_us"])
            out.writerows(rows)
    if args.plot:
        plot(args, rows, patterns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
