#!/usr/bin/python3
"""Checks of scripts/sweep.py with several networks (testbench/cmake/sweep_topology.cmake runs them):

  side-by-side ISVP DIR   a torus and a fat tree of 8 nodes: CSV rows, a section each and the side-by-side table
  torus-only ISVP DIR     a torus-only sweep keeps its raw file names, headings and run table as before --topology
  timing-only ISVP DIR    --timing-only-topology runs a fat tree with --timing-only, keyed and headed as such
  refused ISVP            a network given twice, or a topology of no known form, is refused before any run
"""

import csv
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SWEEP = os.path.join(REPO, "scripts", "sweep.py")
FATTREE = "fattree:radix=8,hosts=8,oversubscription=3"  # the description isvp reports for fattree:radix=8,hosts=8


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(command, expect_ok=True):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    print(done.stdout + done.stderr, flush=True)
    if expect_ok and done.returncode != 0:
        fail(f"exit status {done.returncode}")
    return done


def section(report, heading):
    """The lines of one '## ' section of the report."""
    lines = report.splitlines()
    if heading not in lines:
        fail(f"report.md has no section '{heading}'; its sections: {[l for l in lines if l.startswith('## ')]}")
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def side_by_side(isvp, directory):
    run([sys.executable, SWEEP, "--isvp", isvp, "--out", directory, "--nodes", "8", "--timing-only-nodes", "",
         "--topology", "fattree:radix=8,hosts=8", "--collectives", "allreduce,gather", "--sizes", "4,1K",
         "--iterations", "1", "--warmup", "0", "--jobs", "2"])
    rows = list(csv.DictReader(open(os.path.join(directory, "results.csv"))))
    networks = {("2x2x2", "torus"): [], (FATTREE, "fattree"): []}
    for r in rows:
        if r["nodes"] != "8" or (r["topology"], r["topology_kind"]) not in networks:
            fail(f"row of an unexpected network: {r}")
        if not (float(r["offload_us"]) > 0 and float(r["software_us"]) > 0):
            fail(f"row without latencies: {r}")
        networks[(r["topology"], r["topology_kind"])].append((r["collective"], int(r["size"])))
    expected = [("allreduce", 4), ("allreduce", 1024), ("gather", 4), ("gather", 1024)]
    for network, points in networks.items():
        if sorted(points) != expected:
            fail(f"results.csv rows of {network}: {points}, expected {expected}")
    document = json.load(open(os.path.join(directory, "results.json")))
    if sorted(r["topology_kind"] for r in document["rows"]) != ["fattree"] * 4 + ["torus"] * 4:
        fail("results.json rows do not carry topology_kind torus x4 and fattree x4")
    raw = sorted(os.listdir(os.path.join(directory, "raw")))
    for name in ("bench_8_torus-2x2x2_payload_allreduce.json", "bench_8_fattree-radix8-hosts8_payload_gather.json"):
        if name not in raw:
            fail(f"raw/ lacks {name}: {raw}")

    report = open(os.path.join(directory, "report.md")).read()
    section(report, "## 8 nodes (torus 2x2x2)")
    section(report, f"## 8 nodes (fattree {FATTREE.split(':', 1)[1]})")
    table = [l for l in section(report, "## 8 nodes side by side: torus 2x2x2 vs fattree radix 8 3:1")
             if l.startswith("| ")]
    header = "| collective | size | offload torus 2x2x2 | offload fattree radix 8 3:1 | software torus 2x2x2 | " \
             "software fattree radix 8 3:1 | offload torus 2x2x2 ÷ fattree radix 8 3:1 | " \
             "software torus 2x2x2 ÷ fattree radix 8 3:1 |"
    if not table or table[0] != header:
        fail(f"side-by-side header should be\n{header}\ngot\n{table[:1]}")
    by_key = {(r["topology_kind"], r["collective"], int(r["size"])): r for r in rows}
    cells = {(c[0], c[1]): c for c in ([x.strip() for x in l.strip("|").split("|")] for l in table[1:])}
    for collective, size in expected:
        name = f"{size} B" if size < 1024 else f"{size // 1024} KiB"
        line = cells.get((collective, name))
        if not line:
            fail(f"side-by-side table lacks {collective} {name}")
        torus, tree = by_key[("torus", collective, size)], by_key[("fattree", collective, size)]
        want = [f"{float(torus['offload_us']):,.2f}", f"{float(tree['offload_us']):,.2f}",
                f"{float(torus['software_us']):,.2f}", f"{float(tree['software_us']):,.2f}",
                f"{float(torus['offload_us']) / float(tree['offload_us']):.2f}×",
                f"{float(torus['software_us']) / float(tree['software_us']):.2f}×"]
        if line[2:] != want:
            fail(f"side-by-side {collective} {name}: {line[2:]}, expected from results.csv {want}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("ok: CSV, JSON, raw files and the side-by-side report (no plots: matplotlib is not importable)")
        return
    with open(os.path.join(directory, "topologies.png"), "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            fail("topologies.png is not a PNG")
    if "(topologies.png)" not in report:
        fail("report.md does not show topologies.png")
    print("ok: CSV, JSON, raw files, the side-by-side report and topologies.png")


def torus_only(isvp, directory):
    run([sys.executable, SWEEP, "--isvp", isvp, "--out", directory, "--nodes", "8", "--timing-only-nodes", "",
         "--collectives", "allreduce", "--sizes", "4", "--iterations", "1", "--warmup", "0"])
    raw = sorted(os.listdir(os.path.join(directory, "raw")))
    if raw != ["bench_8_payload_allreduce.json", "bench_8_payload_allreduce.txt"]:
        fail(f"a torus alone at its node count should keep the raw names bench_8_payload_*, got {raw}")
    report = open(os.path.join(directory, "report.md")).read()
    if "| nodes | torus | payload | wall time | command |" not in report or "| 8 | 2x2x2 | yes |" not in report:
        fail("the run table of a torus-only sweep should keep its 'torus' column with the shape")
    section(report, "## 8 nodes (torus 2x2x2)")
    if "side by side" in report or os.path.exists(os.path.join(directory, "topologies.png")):
        fail("a sweep of one network per node count has nothing to set side by side")
    print("ok: torus-only sweep output as before")


def timing_only(isvp, directory):
    run([sys.executable, SWEEP, "--isvp", isvp, "--out", directory, "--nodes", "", "--timing-only-nodes", "",
         "--timing-only-topology", "fattree:radix=8,hosts=8", "--collectives", "allreduce", "--sizes", "4,1K",
         "--iterations", "1", "--warmup", "0"])
    rows = list(csv.DictReader(open(os.path.join(directory, "results.csv"))))
    if len(rows) != 2 or any((r["topology"], r["topology_kind"], r["timing_only"]) != (FATTREE, "fattree", "True")
                             for r in rows):
        fail(f"expected 2 timing-only fat-tree rows, got {rows}")
    if "--timing-only" not in json.load(open(os.path.join(directory, "results.json")))["runs"][0]["command"]:
        fail("the bench run was not given --timing-only")
    report = open(os.path.join(directory, "report.md")).read()
    section(report, f"## 8 nodes (fattree {FATTREE.split(':', 1)[1]}, timing only)")
    print("ok: a fat tree run timing-only")


def refused(isvp):
    for arguments, message in (
            (["--nodes", "8", "--topology", "torus:2x2x2"], "the network torus:2x2x2 (8 nodes) is given twice"),
            (["--nodes", "", "--topology", "fattree:radix=8,hosts=8",
              "--topology", "fattree:hosts=8,radix=8,oversubscription=3"], "is given twice"),
            (["--topology", "mesh:4x4"], "bad --topology 'mesh:4x4'"),
            (["--timing-only-topology", "torus:2x2"], "torus:XxYxZ needs 3 positive sizes"),
            (["--nodes", "", "--topology", "fattree:radix=8,hosts=8", "--timing-only-topology",
              "fattree:radix=8,hosts=8"], "is given twice"),
            (["--topology", "fattree:radix=8"], "needs hosts=N"),
            (["--topology", "file:/nonexistent/net.json"], "cannot read its hosts")):
        done = run([sys.executable, SWEEP, "--isvp", isvp, "--out", os.devnull, "--timing-only-nodes", ""] + arguments,
                   expect_ok=False)
        if done.returncode == 0 or message not in done.stderr:
            fail(f"{' '.join(arguments)}: expected a refusal naming '{message}'")
        if re.search(r"Traceback", done.stderr):
            fail(f"{' '.join(arguments)}: a traceback instead of a clear error")
    print("ok: duplicates and bad topologies refused")


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    what, isvp = sys.argv[1], sys.argv[2]
    if what == "side-by-side":
        side_by_side(isvp, sys.argv[3])
    elif what == "torus-only":
        torus_only(isvp, sys.argv[3])
    elif what == "timing-only":
        timing_only(isvp, sys.argv[3])
    elif what == "refused":
        refused(isvp)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
