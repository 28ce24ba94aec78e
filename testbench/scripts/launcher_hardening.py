#!/usr/bin/env python3
"""Hardening of the launcher and its inputs (issue 16), checked end to end.

    launcher_hardening.py CHECK ARGS...

  config ISVP                 a platform file nested 50,000 levels deep, and
                              --config /dev/zero: refused promptly, one line
  memory ISVP                 64x32x32 refused before it is built, naming the
                              estimate and the limit (run, bench collectives,
                              bench pingpong); job.memory_limit_gib applies
  build-signal ISVP           SIGTERM / SIGINT while a 1024-node platform is
                              being built end the launcher at once (run,
                              bench pingpong, bench collectives)
  sigkill ISVP                the launcher SIGKILLed during start-up and while
                              building: no /tmp/isvp-PID-* left, no process a
                              rank forked survives
  rogue ISVP P2P_GUEST        another process connecting to a rank's socket
                              is refused; the real rank still runs
  end-of-time JOB_TB GUEST    a guest clock near 2^62 ps: no answer past it,
                              compute() past it refused, Finish accepted

Prints one line per expectation and "N passed, M failed"; exits 1 on failure.
"""
import glob
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

passed = 0
failed = 0


def expect(ok, what, output=None):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok and output is not None:
        print("----- output -----\n" + output + "\n------------------", flush=True)


def run(argv, timeout=60):
    """Runs argv; returns (status, output, seconds). status None: timed out (killed)."""
    start = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        status = None
    return status, output, time.monotonic() - start


def processes_with_argument(marker):
    """Pids of live processes whose command line holds `marker` as an argument."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as cmdline:
                arguments = cmdline.read().split(b"\0")
            with open("/proc/%s/stat" % entry) as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in arguments and state != "Z":
            found.append(int(entry))
    return found


def job_leftovers(pid):
    """Files and sockets a launcher of pid `pid` may have left."""
    left = glob.glob("/tmp/isvp-%d-*" % pid) + glob.glob("/dev/shm/isvp-%d-*" % pid)
    with open("/proc/net/unix") as table:
        left += [line.split()[-1] for line in table if "isvp-%d-" % pid in line]
    return left


def wait_until(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# --------------------------------------------------------------------------

def check_config(isvp):
    with tempfile.TemporaryDirectory() as directory:
        deep = os.path.join(directory, "deep.json")
        with open(deep, "w") as out:
            out.write('{"a": ' * 50000 + "1" + "}" * 50000)
        status, output, seconds = run([isvp, "run", "-n", "1", "--config", deep, "--", "true"], 30)
        lines = output.strip().splitlines()
        expect(status == 2 and len(lines) == 1 and
               "nests objects or arrays more than 32 levels deep" in output and deep in output,
               "a config nested 50,000 levels deep: one-line error, status 2 (got %s)" % status, output)
        status, output, seconds = run([isvp, "bench", "pingpong", "--config", "/dev/zero"], 30)
        expect(status == 2 and seconds < 10 and len(output.strip().splitlines()) == 1 and
               output.strip().endswith("config: /dev/zero is larger than 16 MiB (a platform file is a few KiB)"),
               "--config /dev/zero refused in %.2f s (status %s)" % (seconds, status), output)


def check_memory(isvp):
    estimate = re.compile(r"topology 64x32x32 \(65536 nodes\) needs about [0-9.]+ GiB to build, more than the "
                          r"[0-9.]+ GiB available \(MemAvailable; set job.memory_limit_gib to override\)")
    for argv in ([isvp, "run", "-n", "2", "--set", "topology.torus=64x32x32", "--", "true"],
                 [isvp, "bench", "collectives", "--topology", "torus:64x32x32", "--collectives", "barrier"]):
        status, output, seconds = run(argv, 20)
        expect(status == 2 and seconds < 5 and estimate.search(output) and len(output.strip().splitlines()) == 1,
               "%s on 64x32x32: refused before building in %.2f s (status %s)" % (argv[1], seconds, status),
               output)
    status, output, seconds = run([isvp, "bench", "pingpong", "--nodes", "65536"], 20)
    expect(status == 2 and seconds < 5 and "topology 65536x1x1 (65536 nodes) needs about" in output,
           "bench pingpong --nodes 65536: refused before building (status %s)" % status, output)
    status, output, seconds = run([isvp, "bench", "collectives", "--topology", "torus:16x16x8", "--collectives",
                                   "barrier", "--set", "job.memory_limit_gib=1"], 20)
    expect(status == 2 and seconds < 5 and
           re.search(r"topology 16x16x8 \(2048 nodes\) needs about [0-9.]+ GiB to build, more than "
                     r"job.memory_limit_gib = 1 GiB", output),
           "job.memory_limit_gib=1 refuses 2048 nodes (status %s)" % status, output)
    status, output, seconds = run([isvp, "bench", "pingpong", "--nodes", "2", "--sizes", "8", "--iterations", "1",
                                   "--set", "job.memory_limit_gib=1"], 60)
    expect(status == 0 and "# size latency_us" in output, "job.memory_limit_gib=1 lets 2 nodes run", output)


def signal_while_building(argv, signal_number, what):
    """Signals `argv` 0.8 s after start: the launcher must end at once and
    leave nothing. While it builds, the signal's default action ends it
    (status -signal); once the guests are launched it has taken the signal
    over and ends the job cleanly with status 128 + signal. A fast machine
    can be past building after 0.8 s: that phase is checked instead."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    # 1024 nodes take seconds to build and elaborate (job.memory_limit_gib:
    # not refused on a machine short of memory right now).
    time.sleep(0.8)
    still_running = process.poll() is None
    sent = time.monotonic()
    process.send_signal(signal_number)
    try:
        output, _ = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    seconds = time.monotonic() - sent
    name = signal.Signals(signal_number).name
    taken_over = "[isvp] %s: ending the job" % name in output
    if taken_over:
        what += " (past building: the job was running)"
        expected_status = 128 + signal_number
        expect(re.search(r"job aborted at [0-9.]+ us: the launcher received " + name, output),
               "%s: the job's abort names %s" % (what, name), output)
    else:
        expected_status = -signal_number
    expect(still_running and seconds < 3 and process.returncode == expected_status,
           "%s: %s ends the launcher in %.2f s (status %s, expected %s)" %
           (what, name, seconds, process.returncode, expected_status), output)
    expect(wait_until(lambda: not job_leftovers(process.pid), 2),
           "%s: nothing of the job left (%s)" % (what, job_leftovers(process.pid)))


def check_build_signal(isvp):
    # Each job runs for seconds once built: a fast machine builds 1024 nodes
    # in under 0.8 s, and a job already over then would prove nothing (the
    # 8 B ping-pong alone ended after 0.7 s on one).
    signal_while_building([isvp, "bench", "pingpong", "--nodes", "1024", "--sizes", "8:4M", "--iterations", "20",
                           "--set", "job.memory_limit_gib=8"],
                          signal.SIGTERM, "bench pingpong, 1024 nodes")
    signal_while_building([isvp, "run", "-n", "2", "--set", "topology.torus=16x8x8", "--set",
                           "job.memory_limit_gib=8", "--", "sleep", "30"], signal.SIGINT,
                          "run, 1024 nodes")
    signal_while_building([isvp, "bench", "collectives", "--topology", "torus:16x8x8", "--collectives", "barrier",
                           "--sizes", "8", "--iterations", "1", "--warmup", "0", "--set", "job.memory_limit_gib=8"],
                          signal.SIGINT,
                          "bench collectives, 1024 nodes")


def check_sigkill(isvp):
    marker = "%d.5" % (3000 + os.getpid() % 1000)  # sleep's argument names this test's processes
    launcher = subprocess.Popen([isvp, "run", "-n", "2", "-l", "--set", "topology.torus=2x1x1", "--", "sh", "-c",
                                 "sleep %s & sleep %s" % (marker, marker)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    started = wait_until(lambda: len(processes_with_argument(marker)) >= 4, 20)
    expect(started, "sigkill: both ranks started, each with a forked sleep")
    during = job_leftovers(launcher.pid)
    os.kill(launcher.pid, signal.SIGKILL)
    launcher.wait()
    gone = wait_until(lambda: not processes_with_argument(marker), 3)
    expect(gone, "sigkill during start-up (ranks not connected): no forked process survives (%s)" %
           processes_with_argument(marker))
    expect(wait_until(lambda: not job_leftovers(launcher.pid), 2),
           "sigkill during start-up: no /tmp/isvp-%d-* or socket left (had %s, left %s)" %
           (launcher.pid, during, job_leftovers(launcher.pid)))
    for pid in processes_with_argument(marker):
        os.kill(pid, signal.SIGKILL)

    building = subprocess.Popen([isvp, "run", "-n", "2", "--set", "topology.torus=16x8x8", "--set",
                                 "job.memory_limit_gib=8", "--", "sleep", "2"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(0.8)  # building on this machine; a fast one may be running the guests (alive either way)
    alive = building.poll() is None
    os.kill(building.pid, signal.SIGKILL)
    building.wait()
    expect(alive and wait_until(lambda: not job_leftovers(building.pid), 2),
           "sigkill while building 1024 nodes: nothing left (%s)" % job_leftovers(building.pid))


def rank_socket(pid, rank):
    """The address of rank `rank`'s socket of launcher `pid`, from /proc/net/unix."""
    with open("/proc/net/unix") as table:
        for line in table:
            fields = line.split()
            if len(fields) >= 8 and ("isvp-%d-" % pid) in fields[-1] and \
                    (fields[-1].endswith("-r%d" % rank) or fields[-1].endswith("/rank%d.sock" % rank)):
                name = fields[-1]
                return "\0" + name[1:] if name.startswith("@") else name
    return None


def check_rogue(isvp, guest):
    # The ranks connect after 2 s: a stranger comes first.
    launcher = subprocess.Popen([isvp, "run", "-n", "2", "-l", "--set", "topology.torus=2x1x1", "--", "sh", "-c",
                                 "sleep 2; exec %s pingpong" % guest],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    address = None
    wait_until(lambda: rank_socket(launcher.pid, 0) is not None, 10)
    address = rank_socket(launcher.pid, 0)
    reply = b""
    if address is not None:
        rogue = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        rogue.settimeout(10)
        try:
            rogue.connect(address)
            hello = struct.pack("<IHHIIQQQ", 0x54565349, 1, 1, 0, 40, 0, 2, os.getpid())
            try:
                rogue.sendall(hello)
            except OSError:
                pass  # refused before the Hello went out: the answer is still there to read
            while True:
                chunk = rogue.recv(4096)
                if not chunk:
                    break
                reply += chunk
        except OSError as error:
            print("rogue: %s after %d bytes" % (error, len(reply)))
        rogue.close()
    try:
        output, _ = launcher.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)
        output, _ = launcher.communicate()
    expect(address is not None, "rogue: found rank 0's socket")
    kind = struct.unpack("<H", reply[6:8])[0] if len(reply) >= 40 else None
    text = reply[40:].decode(errors="replace")
    expect(kind == 9 and "connection refused: this socket belongs to rank 0" in text and
           "is not rank 0's process" in text,
           "rogue: the stranger's Hello is answered with an Error (%r)" % text)
    expect(launcher.returncode == 0 and "[0] p2p pingpong ok" in output and "[1] p2p pingpong ok" in output,
           "rogue: the real ranks still run, the job succeeds (status %s)" % launcher.returncode, output)
    expect(re.search(r"\[isvp\] rank 0: refused a connection to its socket: pid \d+ is not rank 0's process", output)
           is not None, "rogue: the launcher says it refused the stranger", output)


def check_end_of_time(job_tb, guest):
    logs = []
    for mode in ("remote", "local"):
        status, output, seconds = run([job_tb, "--mode", mode, "--ranks", "2", "--scenario", "end-of-time",
                                       "--guest", guest], 60)
        limit = [line for line in output.splitlines() if line.startswith("[isvp] simulated-time limit")]
        expect(status == 124, "end-of-time %s: the job ends at the limit, status 124 (got %s)" % (mode, status),
               output)
        expect(len(limit) == 1 and
               "simulated-time limit 2^62 ps = 4611686018427.387904 us (the end of simulated time) reached "
               "(rank 1's MmioRead of BAR0 0xc at 4611686018427.287904 us would be answered at "
               "4611686018428.187904 us, past it)" in limit[0],
               "end-of-time %s: no answer past 2^62 ps; the message names the read" % mode, output)
        expect("[0] trace refused: isvp transport: rank 0: compute(2000000 ps) at 4611686018426.387904 us would "
               "pass the end of simulated time, 4611686018427.387904 us (2^62 ps)" in output and
               "[0] trace clock 4611686018426387904" in output and
               "[0] trace answered at 4611686018427287904" in output and
               "[tb] rank 0 status 0 finished" in output,
               "end-of-time %s: compute() past the end is refused, the clock kept; the rank reads and finishes" %
               mode, output)
        expect("[1] trace told: isvp transport: rank 1: job aborted at" in output and "FAIL" not in output,
               "end-of-time %s: the reading rank is told, never answered past the end" % mode, output)
        logs.append(limit)
    expect(logs[0] == logs[1], "end-of-time: remote and local messages identical")


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    check, args = sys.argv[1], sys.argv[2:]
    checks = {"config": check_config, "memory": check_memory, "build-signal": check_build_signal,
              "sigkill": check_sigkill, "rogue": check_rogue, "end-of-time": check_end_of_time}
    if check not in checks:
        print("unknown check " + check)
        return 2
    checks[check](*args)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
