#!/usr/bin/python3
"""Memory with payload bounded by what the hardware holds (issue 12 item 2).

  bounded ISVP DIR
      Gather-type collectives of 64 KiB blocks on 16 nodes, offloaded, with
      payload and --check (every result against the reference): their results
      are 16 x 64 KiB per node, yet the driver stages no result (the switch's
      result packets go straight into the guest's receive buffer, as C2H DMA
      does). The guest's own buffers hold the whole message, as they must.
"""
import json
import os
import subprocess
import sys

NODES = 16
BLOCK = 65536


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


def bounded(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "gathers_64K.json")
    out = run([isvp, "bench", "collectives", "--topology", "torus:4x2x2", "--collectives", "allgather,gather",
               "--sizes", "64K", "--iterations", "1", "--warmup", "0", "--offload", "on", "--check", "--json", path])
    if "mismatch" in out:
        fail("a result differs from the reference")
    memory = json.load(open(path))["payload_memory"]
    print(f"payload memory, max over nodes: {memory}")
    message = NODES * BLOCK  # an Allgather's result on every node, the Gather's on the root
    if memory["guest_buffers_resident_bytes"] < message:
        fail(f"the guest's buffers have {memory['guest_buffers_resident_bytes']} bytes: less than the "
             f"{message}-byte result (the counter does not see them)")
    driver = memory["driver_largest_payload_buffer_bytes"]
    if driver >= BLOCK:
        fail(f"the driver allocated a {driver}-byte payload buffer: a result was staged, not delivered "
             f"into the receive buffer")
    print(f"ok: {message}-byte results; driver largest payload buffer {driver} bytes")


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "bounded":
        print(__doc__)
        sys.exit(2)
    bounded(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
