#!/usr/bin/python3
"""The prefetch and auto send paths as simulated figures
(testbench/cmake/host_path_prefetch.cmake; docs/PERFORMANCE.md):

  ordering ISVP DIR
      8-byte one-way latency at one hop: fetch > prefetch > pio for msi and
      for poll, prefetch saving most of a descriptor-fetch round trip
      (>= 1.5 us) over fetch; prefetch streams 64 KiB at >= 86.3 Gb/s and
      at least as fast as fetch.
  fewer_fetches ISVP DIR
      the PCIe log of an 8-byte ping-pong (latency and streamed window) with
      prefetch enables the H2C ring with prefetch=1 and has at least 8 times
      fewer H2C descriptor fetches on node 0 than fetch's (which fetches at
      nearly every doorbell); the data reads are there.
  auto ISVP DIR
      auto is pio up to driver.pio_max_bytes (8 B, 256 B: exactly pio's
      latency) and prefetch above (257 B, 4 KiB: exactly prefetch's).
  sweep_header ISVP DIR
      scripts/sweep.py's report states the send and completion paths its
      runs used (here auto + poll, given with --set).
"""

import os
import re
import shutil
import subprocess
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def pingpong(isvp, sizes, *settings):
    command = [isvp, "bench", "pingpong", "--nodes", "2", "--sizes", sizes]
    for setting in settings:
        command += ["--set", setting]
    run = subprocess.run(command, capture_output=True, text=True, timeout=100)
    if run.returncode != 0:
        fail(f"{' '.join(command)} failed: {run.stdout}{run.stderr}")
    rows = {}
    for line in run.stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0].isdigit():
            rows[int(fields[0])] = (float(fields[1]), float(fields[2]))
    return rows


def path(send_path, completion):
    return (f"driver.send_path={send_path}", f"driver.completion={completion}")


def ordering(isvp, _):
    for completion in ("msi", "poll"):
        figures = {s: pingpong(isvp, "8,64K", *path(s, completion)) for s in ("fetch", "prefetch", "pio")}
        latency = {s: rows[8][0] for s, rows in figures.items()}
        print(f"{completion}: 8 B one-way latency (us):", latency)
        if not latency["fetch"] > latency["prefetch"] > latency["pio"]:
            fail(f"{completion}: not fetch > prefetch > pio at 8 B: {latency}")
        if not latency["prefetch"] <= latency["fetch"] - 1.5:
            fail(f"{completion}: prefetch {latency['prefetch']} us does not save a descriptor fetch over "
                 f"fetch {latency['fetch']} us")
        bandwidth = {s: rows[65536][1] for s, rows in figures.items()}
        print(f"{completion}: 64 KiB Gb/s:", bandwidth)
        if not bandwidth["prefetch"] >= max(86.3, bandwidth["fetch"]):
            fail(f"{completion}: prefetch streams 64 KiB at {bandwidth['prefetch']} Gb/s (fetch {bandwidth['fetch']})")


def fewer_fetches(isvp, directory):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    logs = {}
    for send_path in ("prefetch", "fetch"):
        log = os.path.join(directory, f"{send_path}.log")
        pingpong(isvp, "8", *path(send_path, "poll"), f"trace.pcie={log}")
        logs[send_path] = open(log).read()
    fetch_line = re.compile(r"^.*node 0 .*h2c q\d+ descriptor\[.*$", re.M)
    data_line = re.compile(r"^.*node 0 .*h2c q\d+ (packet header|data) of descriptor.*$", re.M)
    counts = {s: len(fetch_line.findall(log)) for s, log in logs.items()}
    print("node 0 H2C descriptor fetches:", counts)
    if not (counts["prefetch"] >= 1 and counts["fetch"] >= 8 * counts["prefetch"]):
        fail(f"node 0 descriptor fetches: prefetch {counts['prefetch']}, fetch {counts['fetch']}: "
             "expected at least 8 times fewer with prefetch")
    if not data_line.search(logs["prefetch"]):
        fail("prefetch: no H2C data read on node 0")
    if not re.search(r"H2C_CONTROL.*prefetch=1", logs["prefetch"]):
        fail("prefetch: the H2C ring is not enabled with H2C_CONTROL prefetch=1")
    if re.search(r"prefetch=1", logs["fetch"]):
        fail("fetch: H2C_CONTROL has prefetch=1")


def auto(isvp, _):
    sizes = "8,256,257,4K"
    figures = {s: pingpong(isvp, sizes, *path(s, "poll")) for s in ("pio", "prefetch", "auto")}
    print(figures)
    for size in (8, 256):
        if figures["auto"][size][0] != figures["pio"][size][0]:
            fail(f"auto, {size} B: {figures['auto'][size][0]} us, pio {figures['pio'][size][0]} us")
    for size in (257, 4096):
        if figures["auto"][size][0] != figures["prefetch"][size][0]:
            fail(f"auto, {size} B: {figures['auto'][size][0]} us, prefetch {figures['prefetch'][size][0]} us")


def sweep_header(isvp, directory):
    shutil.rmtree(directory, ignore_errors=True)
    sweep = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "sweep.py")
    command = [sys.executable, sweep, "--isvp", isvp, "--out", directory, "--nodes", "8", "--timing-only-nodes", "",
               "--collectives", "allreduce", "--sizes", "8", "--iterations", "1",
               "--set", "driver.send_path=auto", "--set", "driver.completion=poll"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=110)
    if run.returncode != 0:
        fail(f"{' '.join(command)} failed: {run.stdout}{run.stderr}")
    report = open(os.path.join(directory, "report.md")).read()
    expected = "Host path: driver.send_path=auto (pio up to 256 B), driver.completion=poll."
    if expected not in report:
        fail(f"report.md does not say '{expected}':\n{report[:1500]}")


def main():
    check, isvp, directory = sys.argv[1:4]
    {"ordering": ordering, "fewer_fetches": fewer_fetches, "auto": auto,
     "sweep_header": sweep_header}[check](isvp, directory)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
