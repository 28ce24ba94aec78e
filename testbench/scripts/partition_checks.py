#!/usr/bin/env python3
"""Distributed simulation (docs/PARTITIONS.md) end to end.

  partition_checks.py same ISVP PARTITIONS ARGS...
      `isvp bench collectives ARGS` with one process and with --partitions
      PARTITIONS (mpiexec, started by isvp itself) print the same rows,
      header and simulated time (the wall-time parts and the simulator's own
      counters left out); the partitioned run really synchronised (windows
      and cut traffic > 0).
  partition_checks.py same-pingpong ISVP PARTITIONS ARGS...
      The same for `isvp bench pingpong ARGS`.
  partition_checks.py killed ISVP ARGS...
      `isvp bench collectives ARGS --partitions 2`, partition 1 SIGKILLed
      once running: the job ends (non-zero, mpiexec names process rank 1)
      within a minute and leaves no simulator process behind.
  partition_checks.py refused ISVP EXPECTED ARGS...
      `isvp bench collectives ARGS` fails with a message containing EXPECTED,
      promptly (no hang).
"""
import os
import re
import signal
import subprocess
import sys
import time

TIMEOUT = 600


def environment():
    env = dict(os.environ)
    # As root (CI, containers) Open MPI refuses to start without these.
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def run(isvp, args, command="collectives"):
    return subprocess.run([isvp, "bench", command] + args, capture_output=True, text=True,
                          timeout=TIMEOUT, env=environment())


def comparable(stdout):
    lines = []
    for line in stdout.splitlines():
        if line.startswith("# simulator:") or line.startswith("# partitions:"):
            continue
        lines.append(re.sub(r" in [0-9.e+-]+ s wall.*", "", line))
    return lines


def same(isvp, partitions, args, command="collectives"):
    one = run(isvp, args, command)
    if one.returncode != 0:
        sys.exit(f"one process failed ({one.returncode}):\n{one.stdout}\n{one.stderr}")
    many = run(isvp, args + ["--partitions", partitions], command)
    if many.returncode != 0:
        sys.exit(f"--partitions {partitions} failed ({many.returncode}):\n{many.stdout}\n{many.stderr}")
    a, b = comparable(one.stdout), comparable(many.stdout)
    if a != b:
        diff = "\n".join(f"  1: {x}\n  {partitions}: {y}" for x, y in zip(a, b) if x != y)
        sys.exit(f"--partitions {partitions} printed different rows:\n{diff}\n--- one process:\n{one.stdout}"
                 f"--- {partitions} partitions:\n{many.stdout}")
    if "mismatch" in many.stdout:
        sys.exit("a result differs from the reference")
    summary = [line for line in many.stdout.splitlines() if line.startswith("# partitions:")]
    if len(summary) != 1:
        sys.exit(f"expected one '# partitions:' line (printed once, by partition 0):\n{many.stdout}")
    match = re.search(r"# partitions: (\d+) .*; (\d+) windows, (\d+) bytes of cut traffic", summary[0])
    if not match or match.group(1) != partitions or int(match.group(2)) == 0 or int(match.group(3)) == 0:
        sys.exit(f"the partitions did not synchronise: {summary[0]}")
    rows = [line for line in many.stdout.splitlines() if line and not line.startswith("#")]
    print(f"{len(rows)} rows identical with {partitions} partitions; {summary[0]}")


def refused(isvp, expected, args):
    result = run(isvp, args)
    output = result.stdout + result.stderr
    if result.returncode == 0 or expected not in output:
        sys.exit(f"expected a failure naming '{expected}', got status {result.returncode}:\n{output}")
    print(f"refused: {output.strip().splitlines()[-1]}")


def partition_processes(marker):
    """Pids of the job's simulator processes (their environment holds `marker`), by MPI rank."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = dict(item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item)
        except OSError:
            continue
        if env.get(b"ISVP_PARTITION_TEST") == marker.encode() and b"OMPI_COMM_WORLD_RANK" in env:
            found[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(entry)
    return found


def killed(isvp, args):
    marker = f"{os.getpid()}-{time.time()}"
    env = environment()
    env["ISVP_PARTITION_TEST"] = marker
    job = subprocess.Popen([isvp, "bench", "collectives"] + args + ["--partitions", "2"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env)
    deadline = time.time() + 120
    victim = None
    while time.time() < deadline and job.poll() is None:
        victim = partition_processes(marker).get(1)
        if victim:
            break
        time.sleep(0.1)
    if victim is None:
        job.kill()
        sys.exit(f"partition 1 never started:\n{job.communicate()[0]}")
    time.sleep(2)  # let it synchronise a while
    os.kill(victim, signal.SIGKILL)
    try:
        output, _ = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        sys.exit("the job did not end within 60 s after partition 1 was killed (a partition waits for good)")
    if job.returncode == 0 or "rank 1" not in output:
        sys.exit(f"expected a failure naming rank 1, got status {job.returncode}:\n{output}")
    time.sleep(0.5)
    left = partition_processes(marker)
    if left:
        sys.exit(f"simulator processes left behind: {left}")
    print(f"ended with status {job.returncode}: " + " ".join(line.strip() for line in output.splitlines()
                                                              if "rank 1" in line))


def main():
    mode, isvp = sys.argv[1], sys.argv[2]
    if mode == "same":
        same(isvp, sys.argv[3], sys.argv[4:])
    elif mode == "same-pingpong":
        same(isvp, sys.argv[3], sys.argv[4:], "pingpong")
    elif mode == "killed":
        killed(isvp, sys.argv[3:])
    elif mode == "refused":
        refused(isvp, sys.argv[3], sys.argv[4:])
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
