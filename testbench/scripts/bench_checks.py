#!/usr/bin/python3
"""Checks of the benchmark side (testbench/cmake/bench.cmake runs them):

  both-format ISVP               --offload both prints offload, software, speed-up and the model per row
  timing-only-equal ISVP DIR     --timing-only gives the same simulated latencies as a run with payload
  timing-only-skips ISVP DIR     ... because the switches skip the copies and AgLU arithmetic (engine counters)
  vcd ISVP DIR                   --vcd writes the RTL AgLU's waveform with its signals
  timing-only-reads ISVP DIR     --timing-only: a software collective's length-only messages are read from host
                                 memory only as far as their 16-byte envelope (the PCIe log says the rest is not
                                 carried); rows identical to a run with payload
  sweep-smoke ISVP DIR           scripts/sweep.py on a tiny configuration writes CSV, JSON and Markdown
  sweep-plots ISVP DIR           ... and PNG plots (exit 77 = skipped when matplotlib is not importable)
  sweep-jobs ISVP DIR            scripts/sweep.py --jobs 3 gives the rows and tables of --jobs 1
  sweep-partitions ISVP DIR      scripts/sweep.py --partitions 2 and auto give the rows of one process per point
  heartbeat ISVP                 --progress --progress-every S: a long row says every S s of wall time which row runs,
                                 the simulated time and packet-hops so far (rising); the rows are those of a run
                                 without it
  compare ISVP DIR               scripts/bench_compare.py: the same run twice is SAME (exit 0); a changed
                                 parameter, a missing row or a figure beyond --tolerance is CHANGED (exit 1),
                                 naming them; unreadable or mismatched inputs exit 2
"""

import csv
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(command):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    print(done.stdout + done.stderr, flush=True)
    if done.returncode != 0:
        fail(f"exit status {done.returncode}")
    return done.stdout


def both_format(isvp):
    out = run([isvp, "bench", "collectives", "--topology", "torus:2x2x2", "--collectives", "allreduce,bcast,barrier",
               "--sizes", "8,4K", "--iterations", "1", "--offload", "both"])
    header = [l for l in out.splitlines() if l.startswith("# collective")]
    expected = ["collective", "size", "offload_us", "software_us", "speedup", "loggp_offload_us",
                "loggp_software_us", "diff_offload", "diff_software"]
    if not header or header[0][1:].split() != expected:
        fail(f"header should be '# {' '.join(expected)}', got {header}")
    row = re.compile(r"^(\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x\s+([\d.]+)\s+([\d.]+)\s+([+-]\d+)%\s+([+-]\d+)%$")
    rows = [row.match(l) for l in out.splitlines() if not l.startswith("#")]
    if len(rows) != 5 or not all(rows):
        fail("expected 5 rows 'collective size offload software speedup x model model diff% diff%'")
    for m in rows:
        offload, software, speedup = float(m[3]), float(m[4]), float(m[5])
        if abs(software / offload - speedup) > 0.01:
            fail(f"{m[1]} {m[2]}: speed-up {speedup} is not software / offload = {software / offload:.3f}")
        if offload >= software:
            fail(f"{m[1]} {m[2]}: offload ({offload} µs) should beat software ({software} µs) on 8 nodes")
    print("ok: 5 rows, speed-up = software / offload, offload faster")


def timing_only_equal(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    common = [isvp, "bench", "collectives", "--topology", "torus:2x2x2", "--collectives", "all", "--sizes",
              "4,1K,64K", "--iterations", "2", "--offload", "both"]
    with_payload, timing_only = (os.path.join(directory, n) for n in ("payload.json", "timing_only.json"))
    run(common + ["--json", with_payload])
    run(common + ["--timing-only", "--json", timing_only])
    rows = [json.load(open(p))["rows"] for p in (with_payload, timing_only)]
    if not json.load(open(timing_only))["timing_only"]:
        fail("the --timing-only run does not say timing_only in its JSON")
    if len(rows[0]) != len(rows[1]) or len(rows[0]) != 22:
        fail(f"row counts differ or are not 22: {len(rows[0])} vs {len(rows[1])}")
    for a, b in zip(*rows):
        for key in ("offload_us", "software_us"):
            if a[key] != b[key]:
                fail(f"{a['collective']} {a['size']} {key}: {a[key]} with payload, {b[key]} timing-only")
    print(f"ok: {len(rows[0])} rows, offload and software latencies identical to the picosecond")


def timing_only_skips(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    common = [isvp, "bench", "collectives", "--topology", "torus:2x2x1", "--collectives",
              "allreduce,bcast,reduce_scatter", "--sizes", "4K", "--iterations", "1", "--warmup", "0"]
    with_payload, timing_only = (os.path.join(directory, n) for n in ("payload.json", "timing_only.json"))
    run(common + ["--json", with_payload])
    run(common + ["--timing-only", "--json", timing_only])
    normal, skipped = (json.load(open(p))["engine"] for p in (with_payload, timing_only))
    print(f"with payload: {normal}\ntiming-only:  {skipped}")
    if normal["bytes_skipped"] != 0:
        fail(f"a run with payload skipped {normal['bytes_skipped']} bytes")
    if normal["bytes_combined"] == 0 or normal["bytes_copied"] == 0:
        fail("a run with payload should both combine (allreduce) and copy (bcast) received bytes")
    if skipped["bytes_combined"] != 0 or skipped["bytes_copied"] != 0:
        fail(f"the timing-only run combined {skipped['bytes_combined']} and copied {skipped['bytes_copied']} bytes")
    if skipped["bytes_skipped"] != normal["bytes_combined"] + normal["bytes_copied"]:
        fail(f"timing-only skipped {skipped['bytes_skipped']} bytes, the run with payload handled "
             f"{normal['bytes_combined'] + normal['bytes_copied']}")
    if skipped["aglu_cycles"] != normal["aglu_cycles"]:
        fail(f"AgLU cycles differ: {normal['aglu_cycles']} with payload, {skipped['aglu_cycles']} timing-only")
    print(f"ok: timing-only skipped all {skipped['bytes_skipped']} received bytes, combined and copied none; "
          f"same AgLU cycles")


def timing_only_reads(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    log = os.path.join(directory, "pcie.log")
    common = [isvp, "bench", "collectives", "--topology", "torus:2x1x1", "--collectives", "bcast,allreduce",
              "--sizes", "4K", "--iterations", "1", "--warmup", "0", "--offload", "off"]
    with_payload, timing_only = (os.path.join(directory, n) for n in ("payload.json", "timing_only.json"))
    run(common + ["--json", with_payload])
    run(common + ["--timing-only", "--set", f"trace.pcie={log}", "--json", timing_only])
    rows = [json.load(open(p))["rows"] for p in (with_payload, timing_only)]
    if len(rows[0]) != len(rows[1]) or not rows[0]:
        fail(f"{len(rows[0])} rows with payload, {len(rows[1])} timing-only")
    for a, b in zip(*rows):
        if a["latency_us"] != b["latency_us"]:
            fail(f"{a['collective']} {a['size']}: {a['latency_us']} with payload, {b['latency_us']} timing-only")
    reads = [l for l in open(log) if "DMA  RD" in l and " data of descriptor" in l]
    first = [l for l in reads if re.search(r": ([0-9a-f]{2} ){16}\(timing only: \d+ bytes not carried\)", l)]
    rest = [l for l in reads if re.search(r": \(timing only: \d+ bytes not carried\)", l)]
    print(f"{len(reads)} H2C data reads; {len(first)} carry the 16-byte envelope only, {len(rest)} nothing")
    if not first or not rest:
        fail("timing-only length-only messages should be read as their envelope, the rest not carried")
    carried = [l for l in reads if "timing only" not in l and int(re.search(r" \+(\d+) ", l)[1]) > 16]
    if carried:
        fail(f"H2C data reads of a timing-only software collective carried more than an envelope: {carried[:2]}")
    print(f"ok: rows identical; every H2C data read carries at most an envelope")


def vcd(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "aglu.vcd")
    if os.path.exists(path):
        os.remove(path)
    run([isvp, "bench", "collectives", "--topology", "torus:2x2x1", "--collectives", "allreduce", "--sizes", "64",
         "--iterations", "1", "--aglu", "rtl", "--vcd", path])
    text = open(path).read()
    signals = set(re.findall(r"\$var\s+\w+\s+\d+\s+\S+\s+(\w+)", text))
    for name in ("clk", "rst_n", "in_valid", "in_op", "in_dtype", "in_a", "in_b", "out_valid", "out_result"):
        if name not in signals:
            fail(f"{path} has no signal {name} (has {sorted(signals)[:20]})")
    if text.count("\n#") < 10:
        fail(f"{path} has fewer than 10 time steps")
    print(f"ok: {path}: {len(signals)} signals, {text.count(chr(10) + '#')} time steps")


def sweep(isvp, directory, plots):
    if plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("SKIP: matplotlib is not importable here (scripts/setup.sh installs python3-matplotlib)")
            sys.exit(SKIP)
    run([sys.executable, os.path.join(REPO, "scripts", "sweep.py"), "--isvp", isvp, "--out", directory, "--nodes",
         "8", "--timing-only-nodes", "", "--collectives", "allreduce,gather", "--sizes", "4,1K", "--iterations",
         "1", "--check"])
    for name in ("results.csv", "results.json", "report.md"):
        if not os.path.getsize(os.path.join(directory, name)):
            fail(f"{name} is empty")
    rows = list(csv.DictReader(open(os.path.join(directory, "results.csv"))))
    if len(rows) != 4 or {r["collective"] for r in rows} != {"allreduce", "gather"}:
        fail(f"results.csv should have 4 rows (2 collectives x 2 sizes), has {len(rows)}")
    for r in rows:
        if not (float(r["offload_us"]) > 0 and float(r["software_us"]) > 0 and float(r["loggp_offload_us"]) > 0):
            fail(f"row without latencies or model: {r}")
    if len(json.load(open(os.path.join(directory, "results.json")))["rows"]) != 4:
        fail("results.json should have 4 rows")
    report = open(os.path.join(directory, "report.md")).read()
    if "## 8 nodes" not in report or "| allreduce | 1 KiB |" not in report:
        fail("report.md lacks the 8-node table")
    built = subprocess.run([isvp, "--version"], capture_output=True, text=True).stdout.split()[-1].rstrip("+")
    if f"built from commit {built}" not in report:
        fail(f"report.md does not name the binary's build commit {built} (isvp --version)")
    if plots:
        for name in ("latency_allreduce.png", "latency_gather.png", "speedup.png"):
            with open(os.path.join(directory, name), "rb") as f:
                if f.read(8) != b"\x89PNG\r\n\x1a\n":
                    fail(f"{name} is not a PNG")
            if f"({name})" not in report:
                fail(f"report.md does not show {name}")
    print("ok: CSV, JSON, Markdown" + (" and PNG plots" if plots else ""))


def sweep_jobs(isvp, directory):
    """Concurrent points are independent simulator runs: --jobs changes the
    wall time only, never a figure or the order of what is printed."""
    outputs, rows = {}, {}
    for jobs in (1, 3):
        out = os.path.join(directory, f"jobs{jobs}")
        outputs[jobs] = run([sys.executable, os.path.join(REPO, "scripts", "sweep.py"), "--isvp", isvp, "--out", out,
                             "--nodes", "8,2x2x1", "--timing-only-nodes", "4x2x1", "--collectives",
                             "allreduce,gather", "--sizes", "4,1K", "--iterations", "1", "--jobs", str(jobs)])
        rows[jobs] = open(os.path.join(out, "results.csv")).read()
    if rows[1] != rows[3]:
        fail("results.csv differs between --jobs 1 and --jobs 3")
    # ... which the regression tool, reading the two folders, says too.
    done = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "bench_compare.py"),
                           os.path.join(directory, "jobs1"), os.path.join(directory, "jobs3")],
                          capture_output=True, text=True)
    print(done.stdout + done.stderr, flush=True)
    if done.returncode != 0 or "rows: 12 in both, 12 identical" not in done.stdout:
        fail(f"scripts/bench_compare.py jobs1 jobs3: exit {done.returncode}, not 12 identical rows")
    # Everything but wall-clock figures and the output folder's name.
    tables = {jobs: [l for l in text.splitlines() if not l.startswith(("sweep:", "/")) and " wall" not in l]
              for jobs, text in outputs.items()}
    if tables[1] != tables[3]:
        fail("the printed tables differ between --jobs 1 and --jobs 3")
    if len(rows[1].splitlines()) != 1 + 3 * 4:
        fail(f"expected 12 rows (3 node counts x 2 collectives x 2 sizes), got {len(rows[1].splitlines()) - 1}")
    report = open(os.path.join(directory, "jobs3", "report.md")).read()
    if "up to 3 at once" not in report:
        fail("report.md does not say how many runs went at once")
    print("ok: --jobs 3 gives the rows and tables of --jobs 1")


def compare_tool(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    tool = os.path.join(REPO, "scripts", "bench_compare.py")

    def bench(name, *extra, kind="collectives", sizes="8,1K"):
        path = os.path.join(directory, name + ".json")
        sizes = ["--sizes", sizes if kind == "collectives" else "8"]
        more = ["--topology", "torus:2x2x2", "--collectives", "allreduce,gather", "--iterations", "1"] \
            if kind == "collectives" else ["--nodes", "2"]
        run([isvp, "bench", kind] + more + sizes + list(extra) + ["--json", path])
        return path

    def compare(base, new, *options, status):
        command = [sys.executable, tool, base, new] + list(options)
        print("$ " + " ".join(command), flush=True)
        done = subprocess.run(command, capture_output=True, text=True)
        print(done.stdout + done.stderr, flush=True)
        if done.returncode != status:
            fail(f"bench_compare exit status {done.returncode}, expected {status}")
        return done.stdout + done.stderr

    base = bench("base")
    same = bench("same")
    out = compare(base, same, status=0)
    if "rows: 4 in both, 4 identical, 0 changed" not in out or "verdict: SAME" not in out:
        fail("the same run twice: not 4 identical rows and SAME")
    slower_link = bench("latency", "--set", "aurora.latency_ns=500")
    out = compare(base, slower_link, status=1)
    if "aurora.latency_ns 440.0 -> 500.0" not in out:
        fail("the parameter that differs is not named")
    if not re.search(r"^changed: collective=allreduce size=8: offload_us [\d.]+ -> [\d.]+ \+[\d.]+ %$", out, re.M):
        fail("the changed allreduce 8 B latency is not listed with its change")
    if "verdict: CHANGED" not in out:
        fail("no CHANGED verdict")
    compare(base, slower_link, "--tolerance", "90", status=0)  # a 60 ns longer link is well within 90 %
    fewer = bench("fewer", sizes="8")
    out = compare(base, fewer, status=1)
    if "only in base: collective=allreduce size=1024" not in out:
        fail("a row missing from the new run is not named")
    compare(base, os.path.join(directory, "absent.json"), status=2)
    compare(base, bench("pingpong", kind="pingpong"), status=2)
    print("ok: SAME for the same run, CHANGED naming the parameter, the rows and figures, 2 for bad inputs")


def sweep_partitions(isvp, directory):
    """Each point in two simulator processes, and in `auto` ones: the same rows as one process; the report
    says so, and --jobs defaults to the cores divided by 2 (by the cores with auto)."""
    rows = {}
    for partitions in (None, "2", "auto"):
        out = os.path.join(directory, f"partitions{partitions or 1}")
        run([sys.executable, os.path.join(REPO, "scripts", "sweep.py"), "--isvp", isvp, "--out", out, "--nodes",
             "4x4x4", "--timing-only-nodes", "", "--collectives", "allreduce,bcast", "--sizes", "4,1K",
             "--iterations", "1", "--offload", "on"] + (["--partitions", partitions] if partitions else []))
        rows[partitions] = open(os.path.join(out, "results.csv")).read()
    cores = len(os.sched_getaffinity(0))
    # auto: one per CPU isvp may use (a cgroup quota can make it fewer than the affinity), at most 2 at 64 ranks
    for partitions, at_once, chosen in (("2", max(1, cores // 2), 2), ("auto", 1, None)):
        if rows[None] != rows[partitions]:
            fail(f"results.csv differs between one process and --partitions {partitions} per point")
        report = open(os.path.join(directory, f"partitions{partitions}", "report.md")).read()
        if f"up to {at_once} at once, each in --partitions {partitions}" not in report:
            fail(f"report.md does not say the points ran in --partitions {partitions}, {at_once} at once")
        raw = os.path.join(directory, f"partitions{partitions}", "raw")
        texts = "".join(open(os.path.join(raw, f)).read() for f in os.listdir(raw) if f.endswith(".txt"))
        counts = {int(n) for n in re.findall(r"^# partitions: (\d+) ", texts, re.M)} or {1}
        if chosen is not None and counts != {chosen}:
            fail(f"the bench runs were not in {chosen} partitions ('# partitions:' lines in raw/*.txt: {counts})")
        if chosen is None and (len(counts) != 1 or not 1 <= min(counts) <= min(cores, 2)):
            fail(f"--partitions auto chose {counts} partitions on {cores} CPUs at 64 ranks")
    print("ok: --partitions 2 and auto give the rows of one process per point")


def heartbeat(isvp):
    args = [isvp, "bench", "collectives", "--topology", "torus:4x4x2", "--collectives", "allreduce,barrier",
            "--sizes", "8,1M", "--iterations", "1", "--warmup", "0", "--progress"]
    runs = {}
    for every in ("0.02", "0"):
        command = args + ["--progress-every", every]
        print("$ " + " ".join(command), flush=True)
        done = subprocess.run(command, capture_output=True, text=True)
        print(done.stdout + done.stderr, flush=True)
        if done.returncode != 0:
            fail(f"exit status {done.returncode}")
        runs[every] = done
    pattern = re.compile(r"^bench collectives: (\S+) running, simulated time ([0-9.]+) us, (\d+) packet-hops so far, "
                         r"[0-9.]+ s elapsed$")
    beats = [pattern.match(l) for l in runs["0.02"].stderr.splitlines()]
    beats = [m for m in beats if m]
    if not beats:
        fail("no heartbeat line during a row of about a second at --progress-every 0.02")
    if any(m[1] not in ("allreduce/8/offload", "allreduce/1048576/offload", "barrier/0/offload") for m in beats):
        fail("a heartbeat names no row of the run: " + ", ".join(m[1] for m in beats))
    times = [float(m[2]) for m in beats]
    hops = [int(m[3]) for m in beats]
    if times != sorted(times) or hops != sorted(hops) or hops[-1] == 0:
        fail(f"heartbeats do not move forward: simulated {times}, packet-hops {hops}")
    if "running," in runs["0"].stderr:
        fail("--progress-every 0 still printed heartbeats")
    rows = {every: [l for l in done.stdout.splitlines() if " wall" not in l and "CPU" not in l]
            for every, done in runs.items()}
    if rows["0.02"] != rows["0"]:
        fail("the heartbeats changed the output")
    print(f"ok: {len(beats)} heartbeats, simulated time and packet-hops rising; rows unchanged")


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    what, isvp = sys.argv[1], sys.argv[2]
    directory = sys.argv[3] if len(sys.argv) > 3 else None
    if what == "both-format":
        both_format(isvp)
    elif what == "timing-only-equal":
        timing_only_equal(isvp, directory)
    elif what == "timing-only-skips":
        timing_only_skips(isvp, directory)
    elif what == "timing-only-reads":
        timing_only_reads(sys.argv[2], sys.argv[3])
    elif what == "vcd":
        vcd(isvp, directory)
    elif what == "sweep-smoke":
        sweep(isvp, directory, plots=False)
    elif what == "sweep-plots":
        sweep(isvp, directory, plots=True)
    elif what == "sweep-jobs":
        sweep_jobs(isvp, directory)
    elif what == "compare":
        compare_tool(isvp, directory)
    elif what == "heartbeat":
        heartbeat(isvp)
    elif what == "sweep-partitions":
        sweep_partitions(isvp, directory)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
