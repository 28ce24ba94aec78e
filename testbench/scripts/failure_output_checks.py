#!/usr/bin/python3
"""How a failed job reads (testbench/cmake/link_fault.cmake and mpi.cmake run these; sw/transport/README.md,
docs/MPI.md "Ending a job"): the cause is stated once, in full, in user terms; ranks that stop because the
job was aborted share one line; a rank that failed for a reason of its own keeps its own line and text.

  bench-platform-failure ISVP [bench collectives options]
      the platform fails (a dead link: SC_REPORT_ERROR in the reliable-delivery layer) under
      `isvp bench collectives` (ranks as fibers): exit status 1; the failure text at most twice (the
      platform's line, the job's summary), with the model instance and simulated time but no SystemC
      "In file:" line (anywhere: warnings neither); no per-rank "[r] isvp: the guest failed" and no
      per-rank "  rank r: aborted" line, one line for all of them instead.
  bench-own-failure ISVP [bench collectives options]
      a rank's program fails on its own (a link fault lost for good fails its collective) under
      `isvp bench collectives`: exit status 1; the rank's error on its own "[r] isvp: the guest
      failed: ..." line, the job's lines say "rank r failed (above)" (not that it returned without
      finish(), nor that an MPI program must call MPI_Finalize), and the summary's "job failed: ..."
      line gives the rank's error in full.
  run-platform-failure ISVP STATUS [isvp run options] -- GUEST [args]
      the same under `isvp run` (a process per rank): exit status STATUS (the guests' own, as before);
      the failure text once; what each guest was told is short; the ranks' exits share one line.
  run-own-failure ISVP STATUS RANK PATTERN [isvp run options] -- PROGRAM [args]
      rank RANK fails for a reason of its own (PATTERN, its own text, on the output): exit status
      STATUS, the launcher's line for RANK's exit is its own, the ranks that stopped because the job
      was aborted share one line naming them.
  run-deadlock ISVP STATUS [isvp run options] -- PROGRAM [args]
      every rank waits for good: the deadlock report, then one line for all the ranks' exits
      ("[isvp] ranks 0-7 exited with status 1 after the deadlock"), no line per rank.
"""

import re
import subprocess
import sys

RANKS = 8
# The platform's error for a path that makes no progress (models/reliable/README.md).
DEAD_LINK = re.compile(r"link fault: no progress from node \d+ to node \d+")
PLATFORM_LINE = re.compile(r"^\[isvp\] the platform failed in platform\.reliable\d+\.run at [0-9.]+ us: "
                           r"isvp/reliable: link fault: no progress from node \d+ to node \d+: .*the job cannot go on$",
                           re.M)
ALL_RANKS = f"ranks 0-{RANKS - 1}"


def fail(message, output=""):
    if output:
        print(output[-6000:])
    print(f"FAIL: {message}")
    sys.exit(1)


def run(command):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def show(output):
    """The output without the platform's warnings (their count is limited, not the subject here)."""
    lines = [l for l in output.splitlines() if not re.match(r"^(Warning: |In process: |isvp: (further|suppressed))", l)]
    print("\n".join(lines)[-4000:], flush=True)


def check_stated_once(output):
    """The platform's failure: one full statement with where and when, the text at most once more."""
    copies = len(DEAD_LINK.findall(output))
    if copies == 0:
        fail("the dead link is not named", output)
    if copies > 2:
        fail(f"the failure text appears {copies} times (at most 2: the platform's line and the summary)", output)
    if len(PLATFORM_LINE.findall(output)) != 1:
        fail("not one '[isvp] the platform failed in platform.reliableN.run at T us: isvp/reliable: "
             "link fault: no progress ...' line", output)
    if "In file:" in output:
        fail("an 'In file:' line (the C++ source of a report) on the output", output)
    if not re.search(r"^\[isvp\] job aborted at [0-9.]+ us: the platform failed \(above\)$", output, re.M):
        fail("no '[isvp] job aborted at T us: the platform failed (above)' line", output)


def parse_ranks(text):
    """'ranks 0, 2-7' -> {0, 2, 3, 4, 5, 6, 7}"""
    ranks = set()
    for run in re.sub(r"^ranks? ", "", text).split(", "):
        first, _, last = run.partition("-")
        ranks.update(range(int(first), int(last or first) + 1))
    return ranks


def shared_exits(output):
    """The ranks named by '[isvp] ranks ... exited/killed ... after the job was aborted' lines."""
    ranks = set()
    for named in re.findall(r"^\[isvp\] (ranks? [0-9, -]+) (?:exited|killed) .* after the job was aborted$", output,
                            re.M):
        ranks |= parse_ranks(named)
    return ranks


def bench_platform_failure(isvp, extra):
    status, output = run([isvp, "bench", "collectives", "--topology", "torus:2x2x2"] + extra)
    show(output)
    if status != 1:
        fail(f"exit status {status}, expected 1", output)
    check_stated_once(output)
    if re.search(r"^\[\d+\] isvp: the guest failed:", output, re.M):
        fail("a rank's '[r] isvp: the guest failed: ...' line for a failure that was the abort's", output)
    if f"[isvp] {ALL_RANKS}: the guest failed because the job was aborted\n" not in output:
        fail(f"no '[isvp] {ALL_RANKS}: the guest failed because the job was aborted' line", output)
    if re.search(r"^  rank \d+: ", output, re.M):
        fail("a per-rank '  rank r: ...' summary line", output)
    if f"\n  {ALL_RANKS}: aborted: the platform failed (above)\n" not in output:
        fail(f"no '  {ALL_RANKS}: aborted: the platform failed (above)' summary line", output)
    if not re.search(r"^isvp bench collectives: job failed: job aborted at [0-9.]+ us: the platform failed in "
                     r"platform\.reliable\d+\.run: isvp/reliable: link fault: no progress", output, re.M):
        fail("the summary's 'job failed: ...' line does not give the cause in full", output)
    print(f"OK: exit status 1, the failure stated once ({len(DEAD_LINK.findall(output))} copies with the summary), "
          "one line for the aborted ranks")


def bench_own_failure(isvp, extra):
    status, output = run([isvp, "bench", "collectives"] + extra)
    show(output)
    if status != 1:
        fail(f"exit status {status}, expected 1", output)
    own = re.findall(r"^\[(\d+)\] isvp: the guest failed: (.*lost for good.*)$", output, re.M)
    if not own:
        fail("no rank's '[r] isvp: the guest failed: ... lost for good ...' line", output)
    for bad in ("returned without finish()", "MPI_Finalize"):
        if bad in output:
            fail(f"the output says '{bad}' of a rank whose program failed", output)
    ended = re.search(r"^\[isvp\] job aborted at ([0-9.]+) us: rank (\d+) failed \(above\)$", output, re.M)
    if not ended:
        fail("no '[isvp] job aborted at T us: rank R failed (above)' line", output)
    rank = ended.group(2)
    errors = [text for r, text in own if r == rank]
    if not errors:
        fail(f"rank {rank}, named by the abort, has no '[{rank}] isvp: the guest failed: ...' line", output)
    if not re.search(rf"^\[isvp\] rank {rank} left at [0-9.]+ us: its program failed \(above\)$", output, re.M):
        fail(f"no '[isvp] rank {rank} left at T us: its program failed (above)' line", output)
    summary = f"isvp bench collectives: job failed: job aborted at {ended.group(1)} us: rank {rank} failed: {errors[0]}"
    if summary not in output.splitlines():
        fail(f"the summary's 'job failed: ...' line does not give rank {rank}'s error in full: expected\n{summary}",
             output)
    print(f"OK: exit status 1, rank {rank}'s own failure stated on its line and in full in the summary")


def run_platform_failure(isvp, status_expected, extra):
    status, output = run([isvp, "run"] + extra)
    show(output)
    if status != status_expected:
        fail(f"exit status {status}, expected {status_expected}", output)
    check_stated_once(output)
    if len(DEAD_LINK.findall(output)) != 1:
        fail("the guests repeat the failure text: each should be told 'the platform failed (above)'", output)
    told = re.findall(r"job aborted at [0-9.]+ us: (.*)$", output, re.M)
    if len(told) < RANKS or any(t != "the platform failed (above)" for t in told):
        fail(f"every guest should be told 'job aborted at T us: the platform failed (above)'; got {told}", output)
    if re.search(r"^\[isvp\] rank \d+ (exited|killed)", output, re.M):
        fail("a per-rank '[isvp] rank r exited ...' line for a rank the abort ended", output)
    # (A rank computing outside the platform at the abort is ended by the
    # launcher instead: a line of its own kind, still shared.)
    if shared_exits(output) != set(range(RANKS)):
        fail(f"the '[isvp] ranks ... exited with status N after the job was aborted' lines name ranks "
             f"{sorted(shared_exits(output))}, not all {RANKS}", output)
    print(f"OK: exit status {status}, the failure stated once, one line for the ranks' exits")


def run_own_failure(isvp, status_expected, rank, pattern, extra):
    status, output = run([isvp, "run"] + extra)
    show(output)
    if status != status_expected:
        fail(f"exit status {status}, expected {status_expected}", output)
    if not re.search(pattern, output, re.M):
        fail(f"rank {rank}'s own failure /{pattern}/ is not on the output", output)
    if not re.search(rf"^\[isvp\] rank {rank} (exited|killed)", output, re.M):
        fail(f"no '[isvp] rank {rank} ...' line of its own for the rank that failed", output)
    # (A rank computing outside the platform at the abort is ended by the
    # launcher: its line says "... after the job was aborted", the shared kind.)
    others = [int(r) for r in re.findall(r"^\[isvp\] rank (\d+) (?:exited|killed)(?!.* after the job was aborted$)",
                                         output, re.M) if int(r) != rank]
    if others:
        fail(f"per-rank exit lines for ranks {others}, which stopped because the job was aborted", output)
    shared = shared_exits(output)
    if not shared or rank in shared:
        fail(f"the '[isvp] ranks ... after the job was aborted' lines name ranks {sorted(shared)}: expected some, "
             f"not rank {rank}", output)
    print(f"OK: exit status {status}, rank {rank} named with its own failure, ranks {sorted(shared)} share a line")


def run_deadlock(isvp, status_expected, extra):
    status, output = run([isvp, "run"] + extra)
    show(output)
    if status != status_expected:
        fail(f"exit status {status}, expected {status_expected}", output)
    if not re.search(r"^\[isvp\] deadlock at [0-9.]+ us: every live rank waits", output, re.M):
        fail("no deadlock report", output)
    if re.search(r"^\[isvp\] rank \d+ (exited|killed)", output, re.M):
        fail("a per-rank '[isvp] rank r exited ...' line for a rank the deadlock ended", output)
    line = f"[isvp] {ALL_RANKS} exited with status 1 after the deadlock"
    if not re.search("^" + re.escape(line) + "$", output, re.M):
        fail(f"no '{line}' line", output)
    print(f"OK: exit status {status}, the deadlock reported, one line for the ranks' exits")


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    mode, isvp, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "bench-platform-failure":
        bench_platform_failure(isvp, rest)
    elif mode == "bench-own-failure":
        bench_own_failure(isvp, rest)
    elif mode == "run-platform-failure":
        run_platform_failure(isvp, int(rest[0]), rest[1:])
    elif mode == "run-own-failure":
        run_own_failure(isvp, int(rest[0]), int(rest[1]), rest[2], rest[3:])
    elif mode == "run-deadlock":
        run_deadlock(isvp, int(rest[0]), rest[1:])
    else:
        fail(f"unknown mode {mode}\n{__doc__}")


if __name__ == "__main__":
    main()
