#!/usr/bin/python3
"""Debugging a guest rank end to end (testbench/cmake/mpi_debug.cmake runs
these; docs/DEBUGGING.md): `isvp run` of testbench/mpi/debug_rank.c on 4
ranks (torus 4x1x1).

  gdb ISVP PROGRAM
      --debug-rank 1 --debugger "gdb -batch -ex 'break isvp::guest::Driver::send'
      -ex run -ex bt -ex continue --args": the breakpoint is hit in the
      driver's send function, the backtrace goes through MPI_Sendrecv to
      main (MPI_Sendrecv is PMPI_Sendrecv's alias), the program runs on to its end, the job's status is 0, and every
      rank's results and simulated time are those of a run without the
      debugger. Exit status 77 (skipped) when gdb is not installed.
  walkthrough ISVP PROGRAM
      docs/DEBUGGING.md's walkthrough, testbench/scripts/debug_rank_walkthrough.gdb,
      on rank 2 under gdb -batch: the value mmio_read32 returns for
      ACCEL_CAPABILITIES is printed, the read took simulated time, the
      breakpoint on the H2C doorbell write (BAR0 0x8000) is in
      Driver::post_packet, stepping over it moves the rank's clock by
      host.mmio_write_ns (50 ns); status 0, results as without gdb.
  interactive ISVP PROGRAM
      the default debugger (gdb --args) on a terminal (a pseudo-terminal the
      test drives; 2 ranks, --debug-rank 1): gdb gets the terminal (its
      prompt comes, it reads commands: it is the foreground process group),
      Ctrl-C at the prompt reaches gdb ("Quit"), not the launcher; Ctrl-Z
      stops gdb, and the launcher continues it (else the terminal would hang
      with gdb stopped); break in
      Driver::send, run, continue, quit: the job ends with status 0, rank
      0's output came through.
  tostop ISVP PROGRAM
      no gdb needed: on a pseudo-terminal with `stty tostop` (a background
      process writing to the terminal is stopped by SIGTTOU), rank 1 runs
      under --debugger "sh -c 'read line; echo got:$line; exec ...'": it
      reads a line from the terminal (so it has the foreground), and the
      launcher, in the background meanwhile, still passes rank 0's output
      on (it ignores SIGTTOU while the terminal is given away); status 0. Exit status 77 when gdb is not installed.
  stopped ISVP PROGRAM
      rank 1 stops itself (SIGSTOP) in the middle of the job, as at a
      breakpoint; 4 s later (wall) the job still runs (stall notices every
      second, job.stall_notice_s=1, but no watchdog ends it; job.kill_grace_ms
      is 200 ms), then SIGCONT: the job completes with status 0 and the
      results and simulated times of an undisturbed run. The rank's pid comes
      from --print-pids.
  stopped-debug-rank ISVP PROGRAM
      the same with rank 1 as the --debug-rank (under --debugger env, which
      just runs the program): no stall notice names it.
"""

import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import termios
import threading
import time

RANKS = 4
BASE = ["run", "-n", str(RANKS), "--set", "topology.torus=4x1x1"]


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def run(command):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    print(done.stdout + done.stderr, flush=True)
    return done


def results(stdout):
    """The ranks' result lines, sorted, and a check that every rank ended ok.
    Found anywhere, not only at the start of a line: under --debug-rank the
    debugger writes to the launcher's stdout directly, so another rank's
    line may come in the middle of one of the debugger's."""
    lines = sorted(re.findall(r"result rank \d+: [^\r\n]*", stdout))
    if len(lines) != RANKS:
        fail(f"{len(lines)} result lines, expected {RANKS}")
    for rank in range(RANKS):
        if f"debug_rank ok (rank {rank})" not in stdout:
            fail(f"rank {rank} did not end ok")
    return lines


def without_ranks(text, ranks):
    """`text` without the whole lines the launcher passed on for `ranks`
    (which may have come in the middle of the debugger's lines)."""
    pattern = "|".join(rf"result rank {rank}: [^\r\n]*\r?\n|debug_rank ok \(rank {rank}\)\r?\n" for rank in ranks)
    return re.sub(pattern, "", text)


def baseline(isvp, program, extra=()):
    done = run([isvp] + BASE + list(extra) + ["--", program])
    if done.returncode != 0:
        fail(f"the run without a debugger ended with status {done.returncode}")
    return results(done.stdout)


def check_gdb(isvp, program):
    need_gdb()
    expected = baseline(isvp, program)
    debugger = "gdb -batch -ex 'break isvp::guest::Driver::send' -ex run -ex bt -ex continue --args"
    done = run([isvp] + BASE + ["--debug-rank", "1", "--debugger", debugger, "--", program])
    if done.returncode != 0:
        fail(f"the run under gdb ended with status {done.returncode}")
    if "[isvp] rank 1 runs under gdb; simulated time waits for it while it is stopped" not in done.stderr:
        fail("no note that rank 1 runs under gdb")
    gdb_output = without_ranks(done.stdout, [0, 2, 3])
    if not re.search(r"^Breakpoint 1, isvp::guest::Driver::send \(", gdb_output, re.M):
        fail("the breakpoint in Driver::send was not hit")
    frames = re.findall(r"^#(\d+) +(?:0x[0-9a-f]+ in )?(\S+)", gdb_output, re.M)
    names = [name for _, name in frames]
    if not names or not names[0].startswith("isvp::guest::Driver::send"):
        fail(f"the backtrace does not start in Driver::send: {names}")
    if not any(re.match(r"P?MPI_Sendrecv\b", name) for name in names) or "main" not in names:
        fail(f"the backtrace does not go through MPI_Sendrecv to main: {names}")
    if not re.search(r"^\[Inferior 1 \(process \d+\) exited normally\]", gdb_output, re.M):
        fail("the program under gdb did not run to its end")
    got = results(done.stdout)
    if got != expected:
        fail(f"results under gdb differ:\n{got}\nwithout:\n{expected}")


def state(pid):
    """The process state letter from /proc (T: stopped), or None once gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def need_gdb():
    """Skips (77) unless gdb is installed and may trace a program here (a
    container may forbid ptrace)."""
    if shutil.which("gdb") is None:
        print("gdb is not installed: skipped")
        sys.exit(77)
    probe = subprocess.run(["gdb", "-nx", "-batch", "-ex", "run", "--args", "/bin/true"], capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
    if "exited normally" not in probe.stdout + probe.stderr:
        print("gdb cannot run a program here (ptrace not permitted?): skipped\n" + probe.stdout + probe.stderr)
        sys.exit(77)


def check_walkthrough(isvp, program):
    need_gdb()
    fetch_msi = ["--set", "driver.send_path=fetch", "--set", "driver.completion=msi"]
    expected = baseline(isvp, program, fetch_msi)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debug_rank_walkthrough.gdb")
    # The walkthrough steps over a doorbell write: the descriptor-fetch path
    # with MSI-X (the default path sends small messages by PIO, no doorbell).
    done = run([isvp] + BASE + fetch_msi + ["--debug-rank", "2", "--debugger", f"gdb -batch -x {script} --args", "--",
                                            program])
    if done.returncode != 0:
        fail(f"the walkthrough ended with status {done.returncode}")
    gdb_output = without_ranks(done.stdout, [0, 1, 3])
    values = dict(re.findall(r"^\$(\d+) = (\S+)$", gdb_output, re.M))
    returned = re.search(r"^Value returned is \$2 = (\d+)$", gdb_output, re.M)
    if not returned or values.get("3") != hex(int(returned[1])):
        fail(f"no value returned by mmio_read32 for ACCEL_CAPABILITIES printed: {values}")
    if int(values.get("4", 0)) <= int(values.get("1", 0)):
        fail(f"the register read took no simulated time: {values}")
    if not re.search(r"MessageTransport::mmio_write32 \(this=\S+, offset=32768, value=\d+\)", gdb_output):
        fail("the breakpoint on the doorbell write was not hit")
    if not re.search(r"^#1 .* in isvp::guest::Driver::(post_packet|ring_h2c_doorbell) ", gdb_output, re.M):
        fail("the doorbell write is not in Driver::post_packet or ring_h2c_doorbell")
    if int(values.get("6", 0)) - int(values.get("5", 0)) != 50000:
        fail(f"stepping over the posted doorbell write did not move the clock by 50 ns: {values}")
    if results(done.stdout) != expected:
        fail("results under gdb differ from the run without it")


def open_terminal():
    """pty.fork(), or skipped (77) where no pseudo-terminal can be had."""
    try:
        return pty.fork()
    except OSError as error:
        print(f"no pseudo-terminal here ({error}): skipped")
        sys.exit(77)


def check_tostop(isvp, program):
    script = 'read line; echo "got:$line"; exec "$0" "$@"'
    command = [isvp, "run", "-n", "2", "--set", "topology.torus=2x1x1", "--debug-rank", "1", "--debugger",
               f"sh -c '{script}'", "--", program]
    print("$ " + " ".join(command) + "   (on a pseudo-terminal, stty tostop)", flush=True)
    pid, terminal = open_terminal()
    if pid == 0:
        attributes = termios.tcgetattr(0)
        attributes[3] |= termios.TOSTOP
        termios.tcsetattr(0, termios.TCSANOW, attributes)
        # isvp in the foreground of a shell that keeps the terminal open a
        # moment after it ends: Linux may drop what the last writer put on a
        # pseudo-terminal just before closing it (the master's read then fails
        # with EIO), which cost this test rank 0's last line once in a CI run.
        os.execv("/bin/sh", ["sh", "-c", '"$@"; status=$?; sleep 0.3; exit $status', "sh"] + command)
    text = b""
    sent = False
    until = time.monotonic() + 60
    while time.monotonic() < until:
        if not sent and b"runs under sh" in text:
            os.write(terminal, b"go\n")
            sent = True
        ready, _, _ = select.select([terminal], [], [], 0.2)
        if ready:
            try:
                data = os.read(terminal, 4096)
            except OSError:
                data = b""
            if not data:
                break
            text += data
    else:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    output = text.decode(errors="replace")
    print(output, flush=True)
    if "got:go" not in output:
        fail("rank 1 did not read the line from the terminal")
    for rank in range(2):
        if f"debug_rank ok (rank {rank})" not in output:
            fail(f"rank {rank} did not end ok (the launcher stopped by SIGTTOU?)")
    if os.waitstatus_to_exitcode(status) != 0:
        fail(f"the job ended with status {os.waitstatus_to_exitcode(status)}")


def check_interactive(isvp, program):
    need_gdb()
    command = [isvp, "run", "-n", "2", "--set", "topology.torus=2x1x1", "--debug-rank", "1", "--", program]
    print("$ " + " ".join(command) + "   (on a pseudo-terminal)", flush=True)
    pid, terminal = open_terminal()
    if pid == 0:
        os.environ["TERM"] = "dumb"
        os.execv(isvp, command)
    transcript = [b""]
    pending = [b""]

    def expect(pattern, timeout=60):
        until = time.monotonic() + timeout
        while True:
            text = without_ranks(pending[0].decode(errors="replace"), [0])
            match = re.search(pattern, text)
            if match:
                pending[0] = text[match.end():].encode()
                return
            if time.monotonic() > until:
                os.kill(pid, signal.SIGKILL)
                fail(f"no {pattern!r} on the terminal; it shows:\n" + transcript[0].decode(errors="replace"))
            ready, _, _ = select.select([terminal], [], [], 0.2)
            if ready:
                try:
                    data = os.read(terminal, 4096)
                except OSError:
                    data = b""
                if not data:
                    fail(f"the terminal closed before {pattern!r}:\n" + transcript[0].decode(errors="replace"))
                transcript[0] += data
                pending[0] += data

    def send(text):
        os.write(terminal, text.encode())

    prompt = r"\(gdb\) "
    expect(prompt)
    if os.tcgetpgrp(terminal) == pid:
        fail("the launcher, not gdb, is the terminal's foreground process group")
    send("\x03")  # Ctrl-C at the prompt: gdb's, the job goes on
    expect(r"Quit")
    expect(prompt)
    send("\x1a")  # Ctrl-Z would stop gdb for good: the launcher continues it
    expect(r"\[isvp\] rank 1 \(on the terminal\) was stopped by Ctrl-Z \(SIGTSTP\): continued")
    send("echo \\141live\\n\n")  # "alive" only in gdb's answer, not in the echoed command
    expect(r"alive")
    expect(prompt)
    send("set pagination off\n")
    expect(prompt)
    send("break isvp::guest::Driver::send\n")
    expect(prompt)
    send("run\n")
    expect(r"Breakpoint 1, isvp::guest::Driver::send")
    expect(prompt)
    send("bt\n")
    expect(r"in main ")
    expect(prompt)
    send("continue\n")
    expect(r"\[Inferior 1 \(process \d+\) exited normally\]")
    expect(prompt)
    send("quit\n")
    _, status = os.waitpid(pid, 0)
    while True:
        try:
            data = os.read(terminal, 4096)
        except OSError:
            break
        if not data:
            break
        transcript[0] += data
    text = transcript[0].decode(errors="replace")
    print(text, flush=True)
    if "SIGINT" in text:
        fail("Ctrl-C reached the launcher")
    if os.waitstatus_to_exitcode(status) != 0:
        fail(f"the job ended with status {os.waitstatus_to_exitcode(status)}")
    for rank in range(2):
        if f"debug_rank ok (rank {rank})" not in text:
            fail(f"rank {rank} did not end ok")


def check_stopped(isvp, program, debugged=False):
    expected = baseline(isvp, program)
    command = [isvp] + BASE + ["--print-pids", "--set", "job.stall_notice_s=1", "--set", "job.kill_grace_ms=200"]
    if debugged:
        command += ["--debug-rank", "1", "--debugger", "env"]
    command += ["--", program, "stop"]
    print("$ " + " ".join(command), flush=True)
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                           text=True)
    out_lines, err_lines = [], []
    readers = [threading.Thread(target=lambda s=s, l=l: l.extend(s), daemon=True)
               for s, l in ((job.stdout, out_lines), (job.stderr, err_lines))]
    for reader in readers:
        reader.start()
    try:
        pid = None
        until = time.monotonic() + 60
        while pid is None and time.monotonic() < until and job.poll() is None:
            for line in list(err_lines):
                match = re.match(r"\[isvp\] rank 1: pid (\d+)$", line.rstrip("\n"))
                if match:
                    pid = int(match[1])
            time.sleep(0.05)
        if pid is None:
            fail("no '[isvp] rank 1: pid P' line (--print-pids)")
        while state(pid) != "T" and time.monotonic() < until and job.poll() is None:
            time.sleep(0.05)
        if state(pid) != "T":
            fail(f"rank 1 (pid {pid}) did not stop")
        time.sleep(4)
        if job.poll() is not None:
            fail(f"the job ended (status {job.returncode}) while rank 1 was stopped")
        if state(pid) != "T":
            fail("rank 1 is no longer stopped")
        os.kill(pid, signal.SIGCONT)
        job.wait(timeout=60)
    finally:
        if job.poll() is None:
            job.kill()
            job.wait()
    for reader in readers:
        reader.join()
    stdout, stderr = "".join(out_lines), "".join(err_lines)
    print(stdout + stderr, flush=True)
    if job.returncode != 0:
        fail(f"the job ended with status {job.returncode}")
    noticed = "[isvp] waiting for rank 1: no call to the platform" in stderr
    if debugged and noticed:
        fail("a stall notice for the rank under the debugger")
    if not debugged and not noticed:
        fail("no stall notice while rank 1 was stopped")
    for rank in range(RANKS):
        if not re.search(rf"^\[isvp\] rank {rank}: pid \d+$", stderr, re.M):
            fail(f"no pid printed for rank {rank}")
    got = results(stdout)
    if got != expected:
        fail(f"results after the stop differ:\n{got}\nwithout:\n{expected}")


def main():
    if len(sys.argv) != 4:
        fail("usage: debug_rank_checks.py gdb|walkthrough|interactive|tostop|stopped|stopped-debug-rank ISVP PROGRAM")
    check, isvp, program = sys.argv[1:]
    checks = {
        "gdb": check_gdb,
        "walkthrough": check_walkthrough,
        "interactive": check_interactive,
        "tostop": check_tostop,
        "stopped": check_stopped,
        "stopped-debug-rank": lambda isvp, program: check_stopped(isvp, program, debugged=True),
    }
    checks.get(check, lambda *_: fail(f"unknown check {check}"))(isvp, program)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
