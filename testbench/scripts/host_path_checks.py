#!/usr/bin/python3
"""The driver's send and completion paths as simulated figures
(testbench/cmake/host_path.cmake runs these; docs/PERFORMANCE.md):

  ordering ISVP DIR
      8-byte one-way latency at one hop: pio < fetch (both msi); poll is at
      most one poll-loop turn (50 ns) above msi at 8 B (the model's MSI
      lands with the completion entry and has no host interrupt latency) and
      removes msi's re-arm step at 1 KiB and 4 KiB (poll < msi - 1 us);
      pio + poll <= 2.5 us at 8 B and streams 64 KiB at >= 86.3 Gb/s.
  fallback ISVP DIR
      pio sends messages above driver.pio_max_bytes through descriptors: at
      257 B and 1 KiB its latency is exactly fetch's, at 256 B it is >= 3 us
      lower; with driver.pio_max_bytes=64 a 256-byte message is fetch's again.
  hybrid ISVP DIR
      hybrid with a poll_us longer than any wait gives exactly poll's rows.
  no_fetch_with_pio ISVP DIR
      the PCIe log of an 8-byte pio ping-pong has PIO window writes and no
      H2C descriptor fetch or data read; the fetch path's log has both.
  bad_parameter ISVP DIR
      driver.send_path=dma and driver.pio_max_bytes=600 are refused, named.
"""

import os
import re
import shutil
import subprocess
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def pingpong(isvp, sizes, *settings, expect_ok=True):
    command = [isvp, "bench", "pingpong", "--nodes", "2", "--sizes", sizes]
    for setting in settings:
        command += ["--set", setting]
    run = subprocess.run(command, capture_output=True, text=True, timeout=100)
    if not expect_ok:
        return run
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
    figures = {(s, c): pingpong(isvp, "8,1K,4K,64K", *path(s, c)) for s in ("fetch", "pio") for c in ("msi", "poll")}
    latency = {key: rows[8][0] for key, rows in figures.items()}
    print("8 B one-way latency (us):", latency)
    if not latency["pio", "msi"] < latency["fetch", "msi"]:
        fail(f"pio ({latency['pio', 'msi']}) is not faster than fetch ({latency['fetch', 'msi']})")
    for send_path in ("fetch", "pio"):
        if not latency[send_path, "poll"] <= latency[send_path, "msi"] + 0.05:
            fail(f"{send_path}: poll ({latency[send_path, 'poll']}) is > 50 ns slower than msi ({latency[send_path, 'msi']})")
        for size in (1024, 4096):
            poll, msi = figures[send_path, "poll"][size][0], figures[send_path, "msi"][size][0]
            if not poll < msi - 1.0:
                fail(f"{send_path}, {size} B: poll ({poll} us) does not remove msi's re-arm step ({msi} us)")
    if latency["pio", "poll"] > 2.5:
        fail(f"pio + poll: 8 B one-way {latency['pio', 'poll']} us > 2.5 us")
    bandwidth = figures["pio", "poll"][65536][1]
    if bandwidth < 86.3:
        fail(f"pio + poll: 64 KiB streams at {bandwidth} Gb/s < 86.3")


def fallback(isvp, _):
    fetch = pingpong(isvp, "256,257,1024", *path("fetch", "msi"))
    pio = pingpong(isvp, "256,257,1024", *path("pio", "msi"))
    small = pingpong(isvp, "256", *path("pio", "msi"), "driver.pio_max_bytes=64")
    print("fetch:", fetch, "pio:", pio, "pio, pio_max_bytes=64:", small)
    for size in (257, 1024):
        if pio[size][0] != fetch[size][0]:
            fail(f"{size} B (above pio_max_bytes) took {pio[size][0]} us with pio, {fetch[size][0]} with fetch")
    if not pio[256][0] <= fetch[256][0] - 3.0:
        fail(f"256 B: pio {pio[256][0]} us is not >= 3 us below fetch {fetch[256][0]} us")
    if small[256][0] != fetch[256][0]:
        fail(f"256 B with pio_max_bytes=64: {small[256][0]} us, fetch {fetch[256][0]} us")


def hybrid(isvp, _):
    poll = pingpong(isvp, "8,4K", *path("pio", "poll"))
    long_hybrid = pingpong(isvp, "8,4K", *path("pio", "hybrid"), "driver.poll_us=100000")
    print("poll:", poll, "hybrid, poll_us=100000:", long_hybrid)
    if poll != long_hybrid:
        fail("hybrid that never gives up polling differs from poll")


def no_fetch_with_pio(isvp, directory):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    logs = {}
    for send_path in ("pio", "fetch"):
        log = os.path.join(directory, f"{send_path}.log")
        pingpong(isvp, "8", *path(send_path, "poll"), f"trace.pcie={log}")
        logs[send_path] = open(log).read()
    fetches = re.compile(r"h2c q\d+ (descriptor\[|data of descriptor)")
    if fetches.search(logs["pio"]):
        fail("the pio log has an H2C descriptor fetch or data read: " + fetches.search(logs["pio"]).group(0))
    if "PIO[q0]" not in logs["pio"]:
        fail("the pio log has no write into the PIO window PIO[q0]")
    if not fetches.search(logs["fetch"]):
        fail("the fetch log has no H2C descriptor fetch")


def bad_parameter(isvp, _):
    for setting, words in (("driver.send_path=dma", "driver.send_path"), ("driver.pio_max_bytes=600", "driver.pio_max_bytes")):
        run = pingpong(isvp, "8", setting, expect_ok=False)
        if run.returncode == 0 or words not in run.stdout + run.stderr:
            fail(f"--set {setting}: status {run.returncode}, output without '{words}': {run.stdout}{run.stderr}")


def main():
    check, isvp, directory = sys.argv[1:4]
    {"ordering": ordering, "fallback": fallback, "hybrid": hybrid, "no_fetch_with_pio": no_fetch_with_pio,
     "bad_parameter": bad_parameter}[check](isvp, directory)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
