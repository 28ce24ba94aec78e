#!/usr/bin/python3
"""Memory independent of message size in timing-only mode (issue 12 item 2).

  timing-only-size-independent ISVP DIR
      The same collectives at 64 KiB and 1 MiB with --timing-only: the
      payload-memory counters the bench reports (guest buffer pages in RAM,
      the driver's largest payload buffer and data bytes staged, the engines'
      buffer peak) are the same small figures at both sizes, and the peak RSS
      of the 1 MiB run is within 25 % of the 64 KiB run's. A run with payload
      shows the counters do count (each at least the message size; not the
      driver's largest payload buffer, which results and messages with a
      receive waiting no longer need: payload_memory_checks.py bounds it).
"""
import json
import os
import resource
import subprocess
import sys


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


def peak_rss_kib():
    """Largest peak RSS of any child waited for so far (KiB)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def timing_only_size_independent(isvp, directory):
    os.makedirs(directory, exist_ok=True)
    common = [isvp, "bench", "collectives", "--topology", "torus:2x2x1", "--collectives",
              "allreduce,allgather,reduce_scatter", "--iterations", "1", "--warmup", "0", "--offload", "both"]
    memory, rss = {}, {}
    for size in ("64K", "1M"):  # the smaller first: RUSAGE_CHILDREN keeps the maximum
        path = os.path.join(directory, f"timing_only_{size}.json")
        run(common + ["--sizes", size, "--timing-only", "--json", path])
        memory[size] = json.load(open(path))["payload_memory"]
        rss[size] = peak_rss_kib()
    print(f"payload memory: {memory}\npeak RSS (KiB, max so far): {rss}")
    for size, counted in memory.items():
        if counted["guest_buffers_resident_bytes"] != 0:
            fail(f"{size}: the guest's buffers have {counted['guest_buffers_resident_bytes']} bytes in RAM")
        for key in ("driver_largest_payload_buffer_bytes", "engine_buffers_peak_bytes"):
            if counted[key] > 64:  # bring-up's communicator agreement: a few bytes
                fail(f"{size}: {key} is {counted[key]} bytes in timing-only mode")
    # The ranks' host memory is rings (C2H buffers the packets stream through,
    # a page per standing H2C slot a header lands in): bounded by their
    # sizes, not by the message, though a longer message touches more of them.
    ring_bound = 10 << 20
    for size, counted in memory.items():
        if counted.get("host_memory_resident_bytes", 0) > ring_bound:
            fail(f"{size}: {counted['host_memory_resident_bytes']} bytes of a rank's host memory resident, more "
                 f"than its rings ({ring_bound})")
    payload = {size: {key: value for key, value in counted.items() if key != "host_memory_resident_bytes"}
               for size, counted in memory.items()}
    if payload["64K"] != payload["1M"]:
        fail(f"payload memory depends on the message size: {payload['64K']} at 64 KiB, {payload['1M']} at 1 MiB")
    if rss["1M"] > 1.25 * rss["64K"]:
        fail(f"peak RSS grew with the message size: {rss['64K']} KiB at 64 KiB, {rss['1M']} KiB at 1 MiB")

    path = os.path.join(directory, "payload_64K.json")
    run(common + ["--sizes", "64K", "--json", path])
    counted = json.load(open(path))["payload_memory"]
    for key in ("guest_buffers_resident_bytes", "driver_data_staged_bytes", "engine_buffers_peak_bytes"):
        if counted[key] < 65536:
            fail(f"with payload, {key} is {counted[key]} bytes: less than the 64 KiB message")
    print(f"ok: timing-only payload memory {memory['1M']} at both sizes, peak RSS {rss['64K']} -> {rss['1M']} KiB; "
          f"with payload the counters see the buffers ({counted})")


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "timing-only-size-independent":
        print(__doc__)
        sys.exit(2)
    timing_only_size_independent(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
