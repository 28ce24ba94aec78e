#!/usr/bin/python3
"""Checks of the pluggable network (testbench/cmake/topology.cmake runs them):

  torus-unchanged ISVP GOLDEN   the torus gives the simulated times it gave before the network became
                                pluggable: bench collectives and bench pingpong rows equal the recorded ones
  bench ISVP TOPOLOGY ARGS...   bench collectives --check on TOPOLOGY (fattree:..., file:...) passes with
                                every row present, offloaded and in software
  pingpong ISVP TOPOLOGY HOPS   bench pingpong on TOPOLOGY finds a peer HOPS switch hops away and prints rows
  refused ISVP TOPOLOGY TEXT    a bad --topology is refused before the run with a message containing TEXT
"""

import os
import re
import subprocess
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(command, expect_success=True):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print(done.stdout + done.stderr, flush=True)
    if expect_success and done.returncode != 0:
        fail(f"exit status {done.returncode}")
    return done


def without_wall_time(text):
    """The rows and headers of a bench output; lines with wall-clock or host-memory figures left out."""
    return [line for line in text.splitlines() if " wall" not in line and not line.startswith("# payload memory")]


def torus_unchanged(isvp, golden):
    runs = {
        "torus_4x2x2_collectives.txt": [isvp, "bench", "collectives", "--topology", "torus:4x2x2", "--collectives",
                                        "all", "--sizes", "8,4K,64K", "--iterations", "1", "--offload", "both"],
        "torus_ring4_pingpong.txt": [isvp, "bench", "pingpong", "--nodes", "4", "--hops", "2", "--sizes", "8:64K",
                                     "--iterations", "2"],
    }
    for name, command in runs.items():
        with open(os.path.join(golden, name)) as f:
            expected = without_wall_time(f.read())
        got = without_wall_time(run(command).stdout)
        if got != expected:
            for want, have in zip(expected + [""] * len(got), got + [""] * len(expected)):
                if want != have:
                    print(f"  recorded: {want}\n  now:      {have}")
            fail(f"{name}: the torus's simulated figures changed")
        print(f"ok: {name}: {len(expected)} lines identical")


def bench(isvp, topology, extra):
    out = run([isvp, "bench", "collectives", "--topology", topology, "--check", "--offload", "both"] + extra).stdout
    if "mismatch" in out:
        fail("a result differs from the reference")
    rows = [l for l in out.splitlines() if l and not l.startswith("#")]
    if not rows:
        fail("no rows")
    row = re.compile(r"^(\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x")
    for line in rows:
        m = row.match(line)
        if not m or float(m[3]) <= 0 or float(m[4]) <= 0:
            fail(f"row without offload and software latencies: {line}")
    header = out.splitlines()[0]
    kind = topology.split(":")[0]
    if kind not in header:
        fail(f"the header should name the {kind} topology: {header}")
    print(f"ok: {len(rows)} rows on {topology}, checked against the reference")


def pingpong(isvp, topology, hops):
    out = run([isvp, "bench", "pingpong", "--topology", topology, "--hops", hops, "--sizes", "8:4K",
               "--iterations", "2"]).stdout
    if f"({hops} hops, " not in out:
        fail(f"the peer should be {hops} hops away")
    rows = [l for l in out.splitlines() if l and not l.startswith("#")]
    if len(rows) != 10:
        fail(f"expected 10 rows (8 B .. 4 KiB), got {len(rows)}")
    print(f"ok: ping-pong over {hops} hops on {topology}")


def refused(isvp, topology, text):
    done = run([isvp, "bench", "collectives", "--topology", topology, "--sizes", "8", "--iterations", "1"],
               expect_success=False)
    if done.returncode == 0:
        fail("a bad topology was accepted")
    if text not in done.stderr + done.stdout:
        fail(f"the error should say '{text}'")
    if "Abort" in done.stderr or done.returncode < 0:
        fail("the simulator crashed instead of refusing the topology")
    print(f"ok: refused with '{text}'")


def main():
    what = sys.argv[1]
    if what == "torus-unchanged":
        torus_unchanged(sys.argv[2], sys.argv[3])
    elif what == "bench":
        bench(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif what == "pingpong":
        pingpong(sys.argv[2], sys.argv[3], sys.argv[4])
    elif what == "refused":
        refused(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        fail(f"unknown check {what}")


if __name__ == "__main__":
    main()
