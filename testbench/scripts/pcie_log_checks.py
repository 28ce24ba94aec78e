#!/usr/bin/python3
"""The PCIe transaction log end to end (testbench/cmake/pcie_log.cmake runs these;
docs/PCIE_LOG.md): `isvp run` of testbench/mpi/pcie_log_send.c, one 8-byte
MPI_Send from rank 0 to rank 1 whose payload is the text "isvp-log".

  send ISVP PROGRAM DIR
      the log holds, in time order: node 0's H2C_PIDX doorbell, the fetch of
      the send's descriptor decoded (addr, len, SOP|EOP|SDI), its processor
      header decoded (send to rank 1), the payload read, node 0's MSI-X; then
      node 1's payload write into a C2H buffer, its completion entry decoded
      (send from rank 0, LAST, colour 1) and node 1's MSI-X. With trace.file
      too, the Perfetto trace has a "pcie" track per node with the same
      transactions.
  filters ISVP PROGRAM DIR
      trace.pcie_nodes=1 leaves node 0 out; trace.pcie_registers=0x8000-0x83ff
      keeps only doorbell MMIO (and every DMA and MSI-X).
  deterministic ISVP PROGRAM DIR
      two runs write the same log, byte for byte.
  truncated ISVP PROGRAM DIR
      trace.pcie_max_events=20: 20 transactions, then a note of the rest.
  unchanged ISVP DIR
      bench pingpong --nodes 2 --sizes 8:64 prints the same rows with and
      without trace.pcie; without it no file is written.
"""

import json
import os
import re
import shutil
import subprocess
import sys

PAYLOAD = "69 73 76 70 2d 6c 6f 67"  # "isvp-log"
LINE = re.compile(r"^ *(\d+)\.(\d{6}) us node (\d+) (.*)$")


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(command, cwd):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)
    print(done.stdout + done.stderr, flush=True)
    if done.returncode != 0:
        fail(f"exit status {done.returncode}")
    return done


def run_send(isvp, program, directory, name, *settings):
    """Runs the 8-byte send with trace.pcie=DIR/NAME.log; returns the log's path. The path is
    docs/PCIE_LOG.md's walkthrough: descriptor fetch and MSI-X (`settings` may choose another)."""
    log = os.path.join(directory, name + ".log")
    command = [isvp, "run", "-n", "2", "--set", "topology.torus=2x1x1", "--set", f"trace.pcie={log}",
               "--set", "driver.send_path=fetch", "--set", "driver.completion=msi"]
    for setting in settings:
        command += ["--set", setting]
    run(command + ["--", program], directory)
    return log


def transactions(path):
    """(time_ps, node, text) of every transaction line; checks the time order."""
    entries = []
    with open(path) as log:
        for line in log:
            if line.startswith("#"):
                continue
            match = LINE.match(line.rstrip("\n"))
            if not match:
                fail(f"malformed line in {path}: {line!r}")
            entries.append((int(match[1]) * 1000000 + int(match[2]), int(match[3]), match[4]))
    if not entries:
        fail(f"{path} has no transactions")
    for before, after in zip(entries, entries[1:]):
        if after[0] < before[0]:
            fail(f"out of time order: {before} then {after}")
    return entries


def find(entries, start, node, pattern, what):
    """Index of the first entry from `start` on `node` whose text matches `pattern`."""
    regex = re.compile(pattern)
    for i in range(start, len(entries)):
        if entries[i][1] == node and regex.search(entries[i][2]):
            print(f"  {what}: {entries[i][0] / 1e6:.6f} us node {node} {entries[i][2]}")
            return i
    fail(f"no {what} on node {node} (/{pattern}/) after entry {start}")


def check_send(isvp, program, directory):
    trace = os.path.join(directory, "send_trace.json")
    log = run_send(isvp, program, directory, "send", f"trace.file={trace}")
    entries = transactions(log)
    # The payload read on node 0 names the send's descriptor.
    data = find(entries, 0, 0, r"DMA  RD 0x[0-9a-f]+ \+\d+ h2c q(\d+) data of descriptor\[(\d+)\]: .*" + PAYLOAD,
                "payload read")
    queue, descriptor = re.search(r"h2c q(\d+) data of descriptor\[(\d+)\]", entries[data][2]).groups()
    descriptor = int(descriptor)
    fetch = None
    for i in range(data - 1, -1, -1):
        text = entries[i][2]
        match = re.search(rf"DMA  RD .* h2c q{queue} descriptor\[(\d+)(?:\.\.(\d+))?\]", text)
        if entries[i][1] == 0 and match and int(match[1]) <= descriptor <= int(match[2] or match[1]):
            fetch = i
            break
    if fetch is None:
        fail(f"no fetch of h2c q{queue} descriptor[{descriptor}] on node 0 before its payload read")
    print(f"  descriptor fetch: {entries[fetch][2]}")
    if not re.search(r"addr=0x[0-9a-f]+ len=\d+ flags=SOP\|EOP\|SDI", entries[fetch][2]):
        fail("the descriptor fetch is not decoded into addr, len and flags SOP|EOP|SDI")
    doorbell = None
    for i in range(fetch, -1, -1):
        if entries[i][1] == 0 and re.search(rf"MMIO W  0x[0-9a-f]+ H2C_PIDX\[q{queue}\] = 0x[0-9a-f]+ \(index=\d+",
                                            entries[i][2]):
            doorbell = i
            break
    if doorbell is None:
        fail(f"no H2C_PIDX[q{queue}] doorbell write on node 0 before the descriptor fetch")
    print(f"  doorbell: {entries[doorbell][2]}")
    find(entries, fetch, 0, rf"h2c q{queue} packet header of descriptor\[{descriptor}\]: send \d+ B rank 1 ctx 0",
         "processor header read (send to rank 1)")
    find(entries, data, 0, r"MSIX vector \d+ address 0x[0-9a-f]+ data", "MSI-X of the send's completion")
    c2h = find(entries, data, 1, r"DMA  WR 0x[0-9a-f]+ \+\d+ c2h q\d+ data to buffer of descriptor\[\d+\]: .*" +
               PAYLOAD, "payload write to a C2H buffer")
    entry = find(entries, c2h, 1, r"DMA  WR 0x[0-9a-f]+ \+16 cmpt q\d+ entry\[\d+\]: \{send \d+ B rank 0 ctx 0\} "
                 r"offset=0 len=\d+ flags=LAST colour=1", "completion entry (from rank 0)")
    find(entries, entry, 1, r"MSIX vector \d+ address 0x[0-9a-f]+ data", "MSI-X of the receive")

    # The Perfetto trace: a "pcie" track per node, holding the same transactions.
    with open(trace) as handle:
        document = json.load(handle)
    tracks = {(e["pid"], e["tid"]) for e in document["traceEvents"]
              if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"]["name"] == "pcie"}
    slices = [e for e in document["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "pcie"]
    if {pid for pid, _ in tracks} != {1, 2}:
        fail(f"Perfetto 'pcie' tracks of processes {sorted(tracks)}, expected one in process 1 and 2 (nodes 0, 1)")
    if len(slices) != len(entries):
        fail(f"{len(slices)} Perfetto pcie slices for {len(entries)} transactions")
    if not any(PAYLOAD in s["args"]["transaction"] and s["pid"] == 2 for s in slices):
        fail("the payload write on node 1 is not on its Perfetto pcie track")
    print(f"{len(entries)} transactions, the send's in order; Perfetto pcie tracks on both nodes: 1 passed, 0 failed")


def check_filters(isvp, program, directory):
    entries = transactions(run_send(isvp, program, directory, "node1", "trace.pcie_nodes=1"))
    nodes = {node for _, node, _ in entries}
    if nodes != {1}:
        fail(f"trace.pcie_nodes=1 logged nodes {sorted(nodes)}")
    find(entries, 0, 1, "c2h q\\d+ data to buffer .*" + PAYLOAD, "payload write on node 1")
    entries = transactions(run_send(isvp, program, directory, "doorbells", "trace.pcie_registers=0x8000-0x83ff"))
    mmio = [text for _, _, text in entries if text.startswith("MMIO")]
    offsets = [int(re.match(r"MMIO [WR]  (0x[0-9a-f]+)", text)[1], 16) for text in mmio]
    if not mmio or any(not 0x8000 <= offset <= 0x83FF for offset in offsets):
        fail(f"trace.pcie_registers=0x8000-0x83ff logged MMIO at {sorted(set(hex(o) for o in offsets))}")
    if not any(text.startswith("DMA") for _, _, text in entries) or not any(
            text.startswith("MSIX") for _, _, text in entries):
        fail("the register filter dropped DMA or MSI-X lines")
    print(f"node filter: only node 1; register filter: {len(mmio)} doorbell writes, DMA and MSI-X kept: "
          "1 passed, 0 failed")


def check_deterministic(isvp, program, directory):
    first = open(run_send(isvp, program, directory, "first")).read()
    second = open(run_send(isvp, program, directory, "second")).read()
    if first != second:
        fail("two runs wrote different logs")
    print(f"two runs, identical logs ({len(first.splitlines())} lines): 1 passed, 0 failed")


def check_truncated(isvp, program, directory):
    log = run_send(isvp, program, directory, "capped", "trace.pcie_max_events=20")
    entries = transactions(log)
    notes = [line for line in open(log) if line.startswith("# TRUNCATED")]
    if len(entries) != 20 or len(notes) != 1 or "trace.pcie_max_events=20" not in notes[0]:
        fail(f"{len(entries)} transactions and notes {notes}: expected 20 and one truncation note")
    print(f"20 transactions, then: {notes[0].strip()}: 1 passed, 0 failed")


def check_unchanged(isvp, directory):
    quiet = os.path.join(directory, "without")
    os.makedirs(quiet, exist_ok=True)
    bench = [isvp, "bench", "pingpong", "--nodes", "2", "--sizes", "8:64"]
    without = run(bench, quiet).stdout
    if os.listdir(quiet):
        fail(f"without trace.pcie the run wrote {os.listdir(quiet)}")
    log = os.path.join(directory, "pingpong.log")
    with_log = run(bench + ["--set", f"trace.pcie={log}"], directory).stdout
    rows = lambda text: [line for line in text.splitlines() if not line.startswith("# simulated")]
    if rows(without) != rows(with_log):
        fail("simulated results differ with trace.pcie on")
    transactions(log)
    print("pingpong rows identical with and without the log; nothing written without it: 1 passed, 0 failed")


def main():
    if len(sys.argv) < 4:
        fail(__doc__)
    check, isvp = sys.argv[1], os.path.abspath(sys.argv[2])
    directory = os.path.abspath(sys.argv[-1])
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    if check == "unchanged":
        check_unchanged(isvp, directory)
        return
    program = os.path.abspath(sys.argv[3])
    {"send": check_send, "filters": check_filters, "deterministic": check_deterministic,
     "truncated": check_truncated}[check](isvp, program, directory)


if __name__ == "__main__":
    main()
