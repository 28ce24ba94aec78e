#!/usr/bin/python3
"""Why a row of `isvp bench fused` can depend on the rows before it
(testbench/cmake/bench_fused_entry_skew.cmake runs this; docs/REPORTS.md):

  bench_fused_entry_skew.py ISVP DIR [--aligned-start]

SpMV (8 nodes, 64 rows per rank, offload on) alone and after an offloaded
PGEMM (n = 64). The PGEMM's calls end on different ranks at different times,
and the barrier before the next call keeps that skew (a recursive-doubling
barrier lets each rank go as soon as it has heard from everyone, the last to
arrive first), so the SpMV's ranks start apart and its figure, the slowest
rank's own time, grows by the entry skew. The call itself must not change:
from the last rank's start to the last rank's end it takes the same
simulated time alone and after the PGEMM. Stale state left by the ingress
kernel (a slot, credits, a queue) would make that span differ and fail here.

With --aligned-start the bench starts every rank's call at the same
simulated time: the entry skew of every way must be 0 and SpMV's figure
the same alone and after the PGEMM, bit for bit (the JSON's microseconds to
the picosecond).
"""

import json
import os
import subprocess
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def spmv_row(isvp, directory, patterns, options=()):
    tag = "_aligned" if options else ""
    path = os.path.join(directory, f"bench_fused_skew_{patterns.replace(',', '_')}{tag}.json")
    command = [isvp, "bench", "fused", "--topology", "torus:2x2x2", "--patterns", patterns, "--sizes", "64",
               "--offload", "on" if not options else "both", "--check", "--json", path, *options]
    print("$ " + " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True)
    print(result.stdout, end="")
    if result.returncode != 0:
        fail(f"{' '.join(command)} exited with {result.returncode}: {result.stderr}")
    with open(path) as f:
        rows = [row for row in json.load(f)["rows"] if row["pattern"] == "spmv"]
    if len(rows) != 1:
        fail(f"{path}: expected one spmv row, got {len(rows)}")
    return rows[0]


def aligned(isvp, directory):
    alone = spmv_row(isvp, directory, "spmv", ["--aligned-start"])
    after = spmv_row(isvp, directory, "pgemm,spmv", ["--aligned-start"])
    for way in ("fused", "unfused", "software"):
        for name, row in (("alone", alone), ("after pgemm", after)):
            print(f"spmv {way} {name}: {row[way + '_us']:.6f} us, entry skew {row[way + '_entry_skew_us']:.6f} us")
            if row[way + "_entry_skew_us"] != 0:
                fail(f"spmv {way} {name}: entry skew {row[way + '_entry_skew_us']} us with --aligned-start")
            if row[way + "_us"] != row[way + "_after_last_entry_us"]:
                fail(f"spmv {way} {name}: the figure is not the time after the (only) entry")
        if after[way + "_us"] != alone[way + "_us"]:
            fail(f"spmv {way}: {after[way + '_us']} us after pgemm against {alone[way + '_us']} us alone "
                 "with --aligned-start")
    print("ok: with --aligned-start every rank starts together and spmv takes the same time after pgemm")


def main():
    if len(sys.argv) == 4 and sys.argv[3] == "--aligned-start":
        aligned(sys.argv[1], sys.argv[2])
        return
    if len(sys.argv) != 3:
        fail("usage: bench_fused_entry_skew.py ISVP DIR [--aligned-start]")
    isvp, directory = sys.argv[1], sys.argv[2]
    alone = spmv_row(isvp, directory, "spmv")
    after = spmv_row(isvp, directory, "pgemm,spmv")
    for name, row in (("alone", alone), ("after pgemm", after)):
        print(f"spmv {name}: fused {row['fused_us']:.3f} us = after the last entry "
              f"{row['fused_after_last_entry_us']:.3f} us, entry skew {row['fused_entry_skew_us']:.3f} us")
    if alone["fused_entry_skew_us"] > 0.1:
        fail(f"spmv alone starts with {alone['fused_entry_skew_us']:.3f} us of entry skew, expected almost none")
    if after["fused_entry_skew_us"] < 1.0:
        fail(f"spmv after pgemm starts with {after['fused_entry_skew_us']:.3f} us of entry skew, expected > 1 us "
             "(the measurement this test explains has changed: update docs/REPORTS.md)")
    if abs(after["fused_after_last_entry_us"] - alone["fused_after_last_entry_us"]) > 0.0005:
        fail(f"the spmv call itself takes {after['fused_after_last_entry_us']:.3f} us after pgemm against "
             f"{alone['fused_after_last_entry_us']:.3f} us alone: state left behind by the pgemm")
    if after["fused_us"] <= alone["fused_us"]:
        fail("spmv after pgemm is not slower by the slowest rank's time: the skew no longer shows")
    print("ok: the difference is the entry skew, the call itself is unchanged")


if __name__ == "__main__":
    main()
