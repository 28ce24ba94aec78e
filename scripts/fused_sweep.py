#!/usr/bin/python3
"""SmartFuse offload vs host sweep (docs/FUSED.md, docs/PERFORMANCE.md).

--source shim (the default) runs testbench/mpi/fused_bench through the MPI
shim (the two proxy patterns: NAS IS Allreduce -> op -> Alltoall, FEM
Allgather -> prefix sum -> Allgatherv) on N-node tori, each three ways on
the same hardware:
  fused    the default threshold: the switch and its CGRA (both fully fused)
  unfused  ISVP_MPI_FUSED_THRESHOLD=0: the plain MPI calls (the switch's
           collectives where they offload), the op on the host
  host     --offload off: host software only
Every run must report "check ok" (fused_bench compares every rank's results
with a plain C reference) and the path it was meant to take.
--source bench runs `isvp bench fused --check` instead (docs/REPORTS.md:
the driver's calls without the shim, all four patterns is, fem, pgemm,
spmv; fused, semi-fused, unfused with the switch's collectives, host
software), one invocation per pattern and node count; the fused call must
take the fully fused path.
With --model, the LogcN-style model (models/loggp/isvp/logcn_model.h, as
`isvp bench fused` prints it) beside the fused column. The script exits 1 on
a failed check or path. Prints a Markdown table; --csv and --plot write the
rows and a PNG (matplotlib).

  scripts/fused_sweep.py [--build build] [--source shim|bench] [--nodes 8,16,32,64,128]
                         [--elements 4] [--patterns is,fem] [--model] [--csv F] [--plot F.png]
"""
import argparse
import csv
import os
import re
import subprocess
import sys

# Torus shapes for the node counts (as scripts/fused_table.sh).
SHAPES = {2: "2x1x1", 4: "2x2x1", 8: "2x2x2", 16: "4x2x2", 32: "4x4x2", 64: "4x4x4", 128: "8x4x4", 256: "8x8x4"}
NAMES = {"is": "Allreduce→op→Alltoall (IS)", "fem": "Allgather→prefix→Allgatherv (FEM)",
         "pgemm": "PGEMM (GEMM at ingress → reduce-scatter)", "spmv": "SpMV band (at ingress → reduce-scatter)"}
# What a size counts, per pattern (isvp bench fused --sizes); the bench's defaults for pgemm and spmv.
SIZE_IS = {"is": "%d elements per rank", "fem": "%d elements per rank", "pgemm": "n = %d", "spmv": "%d rows per rank"}
BENCH_SIZE = {"pgemm": 128, "spmv": 64}
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


def bench(build, nodes, pattern, size, offload, check):
    """`isvp bench fused` on the torus SHAPES[nodes]: its one JSON row."""
    import json
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        command = [os.path.join(build, "platform", "isvp"), "bench", "fused", "--topology", "torus:" + SHAPES[nodes],
                   "--patterns", pattern, "--offload", offload, "--json", f.name]
        if size is not None:
            command += ["--sizes", str(size)]
        if check:
            command += ["--check"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit("fused_sweep: %s failed (exit %d):\n%s%s" % (" ".join(command), done.returncode,
                                                                          done.stdout, done.stderr))
        row = json.load(open(f.name))["rows"][0]
    if row["fused_path" if offload != "off" else "software_path"] != ("fully" if offload != "off" else "fallback"):
        raise SystemExit("fused_sweep: %s %d nodes: the fused call took path %s" % (pattern, nodes, row["fused_path"]))
    return row


def model(build, nodes, elements, pattern):
    """The LogcN-style model of the fused call, as `isvp bench fused` computes
    it (models/loggp/isvp/logcn_model.h; the formulas: docs/REPORTS.md)."""
    return bench(build, nodes, pattern, elements, "on", False)["logcn_fused_us"]


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
        axis.set_title("%s, %s" % (NAMES[pattern], SIZE_IS[pattern] % BENCH_SIZE.get(pattern, args.elements)))
        axis.grid(True, alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(args.plot, dpi=110)
    print("# plot: " + args.plot)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--source", default="shim", choices=("shim", "bench"),
                        help="shim: fused_bench through the MPI shim; bench: isvp bench fused (all four patterns)")
    parser.add_argument("--nodes", default="8,16,32,64,128")
    parser.add_argument("--elements", type=int, default=4, help="elements per rank")
    parser.add_argument("--patterns", help="default: is,fem (shim), is,fem,pgemm,spmv (bench)")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    parser.add_argument("--model", action="store_true", help="the LogcN-style model beside the fused column")
    parser.add_argument("--replot", metavar="CSV", help="no runs: plot the rows of a --csv file (with --plot)")
    args = parser.parse_args()
    if args.replot:
        try:
            with open(args.replot) as f:
                rows = [(r["pattern"], int(r["nodes"]), float(r["fused_us"]), float(r["unfused_us"]),
                         float(r["host_us"]), float(r["logcn_fused_us"])) for r in csv.DictReader(f)]
        except OSError as error:
            raise SystemExit("fused_sweep: --replot %s: %s" % (args.replot, error.strerror))
        args.model = any(r[5] == r[5] for r in rows)  # not NaN
        plot(args, rows, sorted({r[0] for r in rows}, key=lambda p: list(NAMES).index(p)))
        return 0
    try:
        nodes = [int(n) for n in args.nodes.split(",")]
    except ValueError:
        raise SystemExit("fused_sweep: --nodes %s: node counts separated by commas, e.g. 8,16" % args.nodes)
    for n in nodes:
        if n not in SHAPES:
            raise SystemExit("fused_sweep: --nodes %d: one of %s" % (n, ", ".join(map(str, sorted(SHAPES)))))
    patterns = (args.patterns or ("is,fem" if args.source == "shim" else "is,fem,pgemm,spmv")).split(",")
    for p in patterns:
        if p not in NAMES or (args.source == "shim" and p not in ("is", "fem")):
            raise SystemExit("fused_sweep: --patterns %s: is or fem (shim), is, fem, pgemm or spmv (bench)" % p)
    if args.elements < 1:
        raise SystemExit("fused_sweep: --elements must be at least 1")
    for path in (args.csv, args.plot):  # before the runs, so that their results are not lost at the end
        folder = os.path.dirname(path or "") or "."
        if path and not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
            raise SystemExit("fused_sweep: cannot write %s: %s is not a folder it may write in" % (path, folder))

    rows = []
    extra_head = " LogcN model, fused (µs) | diff |" if args.model else ""
    print("| pattern | nodes | fused in the switch (µs) | unfused, switch collectives (µs) | host software (µs) "
          "| speed-up vs host software |" + extra_head)
    print("|---|---|---|---|---|---|" + ("---|---|" if args.model else ""))
    for pattern in patterns:
        for n in nodes:
            if args.source == "bench":
                row = bench(args.build, n, pattern, BENCH_SIZE.get(pattern, args.elements), "both", True)
                times = {"fused": row["fused_us"], "unfused": row["unfused_us"], "host": row["software_us"]}
                modelled = row["logcn_fused_us"] if args.model else float("nan")
            else:
                times = {way: run(args.build, n, pattern, args.elements, way) for way in ("fused", "unfused", "host")}
                modelled = model(args.build, n, args.elements, pattern) if args.model else float("nan")
            rows.append((pattern, n, times["fused"], times["unfused"], times["host"], modelled))
            extra = (" %.3f | %+.0f%% |" % (modelled, 100.0 * (times["fused"] - modelled) / modelled)
                     if args.model else "")
            print("| %s | %d | %.3f | %.3f | %.3f | %.2fx |%s" % (NAMES[pattern], n, times["fused"], times["unfused"],
                                                                  times["host"], times["host"] / times["fused"],
                                                                  extra),
                  flush=True)
    print("# check: every run's results equal the %s reference, each on its expected path" %
          ("C" if args.source == "shim" else "C++"))
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
