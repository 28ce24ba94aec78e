#!/usr/bin/env python3
"""Checks of where the ranks run (`isvp run --map-by`, `--rankfile`; docs/MPI.md,
"Where the ranks run"):

  placed ISVP PROGRAM RANKFILE_DIR [isvp run options]
      PROGRAM is rank_placement. Runs it on 4 ranks of a radix-4 fat tree
      with 8 hosts (3 hosts per leaf) three ways: by default, with --map-by
      switch and with a rankfile (written to RANKFILE_DIR) that scatters the
      ranks in another order. Every rank must pass its checks (ring with a
      named and a wildcard source, Allreduce, rooted Reduce and Bcast) and
      report the node the placement gives it; rank 0's ping-pong with rank 1
      must be slower when they sit on different leaves (map-by switch, the
      rankfile) than on one leaf (the default), and the same in the two
      scattered runs, whose paths are alike.
  digest ISVP PROGRAM RANKFILE_DIR [isvp run options]
      PROGRAM is coll_digest: `coll_digest int` on 8 ranks with the ranks
      reversed over the nodes (a rankfile) must print the digest it prints
      with rank r on node r: results are the ranks', not the nodes'.
  bench ISVP - RANKFILE_DIR [isvp bench options]
      `isvp bench collectives` on the radix-4 fat tree's 8 hosts with the
      ranks dealt round the leaves (--map-by switch) and reversed (a
      rankfile), checked (--check): no mismatch, the header and the JSON
      name the placement, and the LogGP column follows it (the spread
      Bcast's model differs from rank r on host r's; the reversed ranks,
      on the same hosts of a symmetric tree, model the same Allreduce).
  refused ISVP PROGRAM RANKFILE_DIR
      Bad placements are refused before any rank starts, naming what is
      wrong: a rankfile line that is not "rank R=nodeK", a node twice, a
      rank missing, a rank beyond -n, a node beyond the hosts, a slot other
      than 0, --map-by with an unknown policy, --map-by with --rankfile,
      a directory or an endless device (/dev/zero) given as the rankfile.
"""
import os
import re
import subprocess
import sys

TREE = ["--topology", "fattree:radix=4,hosts=8"]


def run(isvp, args, timeout=240):
    result = subprocess.run([isvp, "run"] + args, capture_output=True, text=True, timeout=timeout)
    return result.returncode, result.stdout + result.stderr


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def placed(isvp, program, directory, options):
    rankfile = write(directory, "placement_scattered.txt",
                     "# scattered: no two ranks on one leaf but 0 and 3\n"
                     "rank 0=node5\nrank 1=+n2 slot=0\nrank 2=node7\nrank 3=node4\n")
    runs = [("default", [], [0, 1, 2, 3]),
            ("map-by switch", ["--map-by", "switch"], [0, 3, 6, 1]),
            ("rankfile", ["--rankfile", rankfile], [5, 2, 7, 4])]
    latency = {}
    failures = 0
    for label, placement, nodes in runs:
        status, output = run(isvp, ["-n", "4"] + TREE + placement + options + ["--", program])
        for rank, node in enumerate(nodes):
            if f"rank {rank} of 4 on isvp-node{node}\n" not in output:
                print(f"FAIL {label}: rank {rank} is not reported on node {node}")
                failures += 1
            if f"rank_placement ok (rank {rank})" not in output:
                print(f"FAIL {label}: rank {rank} did not pass")
                failures += 1
        found = re.search(r"pingpong 0-1 8 B: ([0-9.]+) us", output)
        if status != 0 or not found:
            print(f"FAIL {label}: exit status {status}\n{output}")
            failures += 1
            continue
        latency[label] = float(found.group(1))
        print(f"{label}: ranks on nodes {nodes}, ping-pong {latency[label]} us")
    if len(latency) == 3:
        if not latency["map-by switch"] > latency["default"]:
            print("FAIL: ranks 0 and 1 on two leaves are not slower than on one leaf")
            failures += 1
        if latency["map-by switch"] != latency["rankfile"]:
            print("FAIL: two placements with ranks 0 and 1 on different leaves differ")
            failures += 1
    return failures


def digest(isvp, program, directory, options):
    reversed_nodes = "".join(f"rank {r}=node{7 - r}\n" for r in range(8))
    rankfile = write(directory, "placement_reversed.txt", reversed_nodes)
    digests = []
    for placement in ([], ["--rankfile", rankfile]):
        status, output = run(isvp, ["-n", "8", "--topology", "torus:2x2x2"] + placement + options +
                             ["--", program, "int"])
        found = re.search(r"coll_digest int ([0-9a-f]+)", output)
        if status != 0 or not found:
            print(f"FAIL placement {placement}: exit status {status}\n{output}")
            return 1
        digests.append(found.group(1))
        print(f"placement {placement or 'rank r on node r'}: digest {found.group(1)}")
    if digests[0] != digests[1]:
        print("FAIL: the digest depends on the placement")
        return 1
    return 0


def bench_rows(isvp, directory, placement, options, name):
    json_path = os.path.join(directory, f"placement_bench_{name}.json")
    result = subprocess.run([isvp, "bench", "collectives"] + TREE + ["--collectives", "allreduce,bcast", "--sizes",
                            "8,4K", "--iterations", "1", "--check", "--json", json_path] + placement + options,
                            capture_output=True, text=True, timeout=240)
    output = result.stdout + result.stderr
    rows = {}
    for line in result.stdout.splitlines():
        words = line.split()
        if len(words) >= 4 and words[0] in ("allreduce", "bcast"):
            rows[(words[0], words[1])] = float(words[3])  # the LogGP column
    return result.returncode, output, rows, json_path


def bench(isvp, directory, options):
    import json
    rankfile = write(directory, "placement_bench_reversed.txt", "".join(f"rank {r}=node{7 - r}\n" for r in range(8)))
    runs = {"default": [], "spread": ["--map-by", "switch"], "reversed": ["--rankfile", rankfile]}
    nodes = {"default": None, "spread": [0, 3, 6, 1, 4, 7, 2, 5], "reversed": [7, 6, 5, 4, 3, 2, 1, 0]}
    models = {}
    failures = 0
    for name, placement in runs.items():
        status, output, rows, json_path = bench_rows(isvp, directory, placement, options, name)
        if status != 0 or "mismatch" in output or len(rows) != 4:
            print(f"FAIL {name}: status {status}, rows {rows}\n{output}")
            failures += 1
            continue
        document = json.load(open(json_path))
        if document.get("rank_nodes") != nodes[name]:
            print(f"FAIL {name}: JSON rank_nodes {document.get('rank_nodes')}, expected {nodes[name]}")
            failures += 1
        named = "(ranks on nodes " in output
        if named != (nodes[name] is not None):
            print(f"FAIL {name}: the header {'does not name' if not named else 'names'} a placement")
            failures += 1
        models[name] = rows
        print(f"{name}: LogGP {rows}")
    if len(models) == 3:
        if models["spread"][("bcast", "8")] == models["default"][("bcast", "8")]:
            print("FAIL: the model of the spread Bcast is rank r on host r's")
            failures += 1
        if models["reversed"][("allreduce", "8")] != models["default"][("allreduce", "8")]:
            print("FAIL: reversed ranks on the same hosts model a different Allreduce")
            failures += 1
    return failures


def refused(isvp, program, directory):
    cases = [  # (rankfile text or None, ranks, further options, expected words)
        ("rank 0=node1\nrank 1=node1\n", 2, [], "node 1 already runs a rank (line 1)"),
        ("rank 0=node1\n", 2, [], "rank 1 has no line"),
        ("rank 0 node1\nrank 1=node0\n", 2, [], "line 1: 'rank 0 node1' is not 'rank R=nodeK"),
        ("rank 0=node1\nrank 2=node0\n", 2, [], "line 2: rank 2 is not a rank of this job (2 ranks: 0..1)"),
        ("rank 0=node8\nrank 1=node0\n", 2, [], "line 1: node 8 is not a host of"),
        ("rank 0=node1 slot=1\nrank 1=node0\n", 2, [], "its only slot is slot=0"),
        ("rank 0=host1\nrank 1=node0\n", 2, [], "host 'host1' is not nodeK or +nK"),
        (None, 2, ["--map-by", "leaf"], "--map-by: 'leaf' is not a placement"),
        ("rank 0=node1\nrank 1=node0\n", 2, ["--map-by", "switch"], "--map-by and --rankfile both place the ranks"),
        (None, 9, ["--map-by", "switch"], "9 ranks do not fit the 8 hosts"),
        # Not a file of lines: a directory read as empty ("rank 0 has no
        # line"), a device that never ends read for ever.
        (None, 2, ["--rankfile", directory], "--rankfile " + directory + ": is a directory, not a rankfile"),
        (None, 2, ["--rankfile", "/dev/zero"], "--rankfile /dev/zero: is larger than 16 MiB"),
    ]
    failures = 0
    for number, (text, ranks, extra, expected) in enumerate(cases):
        args = ["-n", str(ranks)] + TREE + extra
        if text is not None:
            args += ["--rankfile", write(directory, f"placement_bad_{number}.txt", text)]
        try:
            status, output = run(isvp, args + ["--", program], timeout=60)
        except subprocess.TimeoutExpired:
            status, output = None, "(no answer in 60 s)"
        if status == 0 or expected not in output or "rank_placement ok" in output:
            print(f"FAIL case {number}: status {status}, expected '{expected}' in:\n{output}")
            failures += 1
        else:
            print(f"refused: {output.strip().splitlines()[-1]}")
    return failures


def main():
    mode, isvp, program, directory = sys.argv[1:5]
    options = sys.argv[5:]
    if mode == "placed":
        failures = placed(isvp, program, directory, options)
    elif mode == "digest":
        failures = digest(isvp, program, directory, options)
    elif mode == "bench":
        failures = bench(isvp, directory, options)
    elif mode == "refused":
        failures = refused(isvp, program, directory)
    else:
        sys.exit(f"unknown mode {mode}")
    print("FAILED" if failures else "PASSED")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
