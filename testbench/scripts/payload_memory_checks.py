#!/usr/bin/python3
"""Memory with payload bounded by what the hardware holds (issue 12 item 2).

  bounded ISVP DIR
      Gather-type collectives of 64 KiB blocks on 16 nodes, offloaded, with
      payload and --check (every result against the reference): their results
      are 16 x 64 KiB per node, yet the driver stages no result (the switch's
      result packets go straight into the guest's receive buffer, as C2H DMA
      does), and the engines' buffer peak stays well under the whole message
      (pages of the collective buffer live only while something still reads
      them: about half the message for the recursive-doubling Allgather,
      whose last step sends the half it holds, less for the binomial
      Gather). The guest's own buffers hold the whole message, as they must.
      With offload off (software collectives over point-to-point messages)
      a message whose receive is already waiting is written straight into
      the receive's buffer: the driver buffers none of the half-message
      messages of the last recursive-doubling step.
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


def measure(isvp, directory, collective, offload="on"):
    path = os.path.join(directory, f"{collective}_64K_offload_{offload}.json")
    out = run([isvp, "bench", "collectives", "--topology", "torus:4x2x2", "--collectives", collective, "--sizes",
               "64K", "--iterations", "1", "--warmup", "0", "--offload", offload, "--check", "--json", path])
    if "mismatch" in out:
        fail(f"{collective}: a result differs from the reference")
    memory = json.load(open(path))["payload_memory"]
    print(f"{collective}: payload memory, max over nodes: {memory}")
    return memory


def bounded(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    message = NODES * BLOCK  # an Allgather's result on every node, the Gather's on the root
    # The engine's bound per collective: what its schedule still has to read.
    for collective, engine_bound in (("allgather", 0.6), ("gather", 0.4)):
        memory = measure(isvp, directory, collective)
        if memory["guest_buffers_resident_bytes"] < message:
            fail(f"{collective}: the guest's buffers have {memory['guest_buffers_resident_bytes']} bytes: less "
                 f"than the {message}-byte result (the counter does not see them)")
        driver = memory["driver_largest_payload_buffer_bytes"]
        if driver >= BLOCK:
            fail(f"{collective}: the driver allocated a {driver}-byte payload buffer: a result was staged, not "
                 f"delivered into the receive buffer")
        engine = memory["engine_buffers_peak_bytes"]
        if engine >= engine_bound * message:
            fail(f"{collective}: the engine's buffers peaked at {engine} bytes, not under {engine_bound} x the "
                 f"{message}-byte message")
        if engine < BLOCK:
            fail(f"{collective}: the engine's buffer peak {engine} is under one block (the counter does not count)")
        print(f"ok: {collective}: {message}-byte results; driver largest payload buffer {driver} bytes, "
              f"engine buffers peak {engine} bytes ({engine / message:.2f} x the message)")
    largest_message = NODES // 2 * BLOCK  # the last recursive-doubling step's
    memory = measure(isvp, directory, "allgather", "off")
    driver = memory["driver_largest_payload_buffer_bytes"]
    if driver >= largest_message:
        fail(f"software allgather: the driver buffered a {driver}-byte message whose receive was waiting")
    print(f"ok: software allgather: driver largest payload buffer {driver} bytes (messages up to {largest_message})")


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "bounded":
        print(__doc__)
        sys.exit(2)
    bounded(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
