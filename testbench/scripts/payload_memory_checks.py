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

  staging ISVP DIR
      Software Allgather of 1 MiB blocks on 8 nodes, 6 iterations, with
      payload and --check: every rank stages ~44 MB through the driver's
      standing H2C slots, more than the 32 MiB they span, so without the
      driver giving staging back once the device has read it every slot
      would be resident on every rank. The ranks' host memory resident at
      the end (rings, staging, C2H buffers) must stay under 20 MiB.
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


STAGING_BOUND = 20 << 20


def staging(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "allgather_1M_software.json")
    out = run([isvp, "bench", "collectives", "--topology", "torus:2x2x2", "--collectives", "allgather", "--sizes",
               "1M", "--iterations", "6", "--warmup", "0", "--offload", "off", "--check", "--json", path])
    if "mismatch" in out:
        fail("allgather: a result differs from the reference (staging given back too early?)")
    memory = json.load(open(path))["payload_memory"]
    staged = memory["driver_data_staged_bytes"]
    resident = memory["host_memory_resident_bytes"]
    if staged <= 32 << 20:
        fail(f"the driver staged {staged} bytes per rank: not more than its 32 MiB of slots, the check proves nothing")
    if resident >= STAGING_BOUND:
        fail(f"a rank's host memory has {resident} bytes resident after staging {staged}: the staging the device "
             f"has read is not given back (bound {STAGING_BOUND})")
    if resident < 1 << 20:
        fail(f"a rank's host memory has {resident} bytes resident: the counter does not see the rings")
    print(f"ok: {staged} bytes staged per rank, {resident} bytes of host memory resident at the end")


def main():
    modes = {"bounded": bounded, "staging": staging}
    if len(sys.argv) != 4 or sys.argv[1] not in modes:
        print(__doc__)
        sys.exit(2)
    modes[sys.argv[1]](sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
