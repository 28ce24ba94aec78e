#!/usr/bin/python3
"""Link faults end to end (testbench/cmake/link_fault.cmake runs these; models/reliable/README.md):

  recovered ISVP [--set k=v ...] [bench options]
      bench collectives --check under Aurora bit errors completes correct: the
      links dropped packets, the reliable-delivery layer retransmitted them and
      lost none (the footer line says so).
  deterministic ISVP [--set k=v ...] [bench options]
      two runs with the same seed give the same rows and the same recovery
      counters (bit errors, drops and retransmissions are reproducible).
  p2p-run ISVP GUEST STATS [isvp run options]
      point-to-point messages of separate guest processes (isvp run,
      testbench/guests/p2p_guest alltoall: verified) arrive under bit errors;
      the --stats JSON shows each node's reliable counters, retransmissions
      made and nothing lost.
  named-link ISVP [--set k=v ...] [bench options]
      with recovery off or exhausted packets are lost for good: the platform
      names the link (nodes, direction) and the lost-packet count in a
      warning, the operation that lost them fails on a rank with a
      link-fault error, and the benchmark (which does not go on after a
      failed call) ends promptly -- no deadlock report, no 'arguments disagree'.
  dead-link ISVP [--set k=v ...] [bench options]
      at a bit-error rate where a path loses (nearly) every packet, the run
      ends promptly (within DEAD_LINK_WALL_S of wall time and DEAD_LINK_US
      simulated) with a non-zero status and the platform's error naming the
      path, the link that dropped the packets and the parameters
      (reliable.max_losses_in_a_row, aurora.bit_error_rate) -- before, the
      retransmissions and the guests' stream probes kept it busy for ever.
  mpi-return ISVP PROGRAM STATS [isvp run options]
      testbench/mpi/mpi_link_fault under MPI_ERRORS_RETURN: calls that lost
      packets return MPI_ERR_OTHER naming the link fault (collective and
      point-to-point), the others give correct results, the job goes on and
      ends with status 0; the warning on stderr and the --stats JSON name
      the link; every error names the cable (switch and port at both ends,
      and on a torus nodes and direction: "node 3 +x -> node 2") that the
      warning names (but a switch error 6 learnt from an agreement
      record, which names no pair); a second
      run with the same seed fails the same calls. With --offload off the
      collectives run in software: a member that loses a message gives the
      collective up and tells the others (abort notices), so the same holds.
  mpi-return-high-loss ISVP PROGRAM STATS [isvp run options]
      mpi-return at an error rate where most calls lose packets (several
      messages of one peer lost between two reads of the device's report):
      the same checks, but only some calls must succeed -- the job ends
      with status 0 within HIGH_LOSS_US simulated, no rank waits for a lost
      message (no deadlock report) or leaves MPI_Finalize early.
  mpi-seed-sweep ISVP PROGRAM FIRST LAST RATES [isvp run options]
      mpi_link_fault under MPI_ERRORS_RETURN with aurora.seed FIRST..LAST at
      each bit-error rate of RATES (comma-separated): every run ends with
      status 0, every rank's summary, no FAIL (a wrong result, a wrong
      error such as MPI_ERR_TRUNCATE from a later message of an abandoned
      collective) and no deadlock report (a lost message that failed no
      receive, or failed the wrong one).
  mpi-seed-sweep-communicators ISVP PROGRAM FIRST LAST RATES [isvp run options]
      the same with a fresh MPI_Comm_dup of the world per iteration (freed
      after its MPI_Allreduce): the driver's own exchanges (ID and
      communicator-table agreements) lose messages too (a member that gives
      one up tells the others), and the new communicator reuses the freed
      one's ID (its collective sequence starts from the parent's, so a late
      message of a collective the freed one gave up matches nothing). A
      dup that failed on some members and succeeded on others must not
      deadlock: the others find the new communicator revoked.
  mpi-seed-sweep-split-communicators ISVP PROGRAM FIRST LAST RATES [options]
      the same with MPI_Comm_split of the world by rank parity.
  mpi-seed-sweep-nonblocking-communicators ISVP PROGRAM FIRST LAST RATES [options]
      the same with MPI_Iallreduce and MPI_Wait on the new communicator.
  mpi-seed-sweep-revoked-offloaded ISVP PROGRAM FIRST LAST RATES [options]
      mpi-seed-sweep-communicators, and at least one run must show an
      offloaded MPI_Allreduce ended because its communicator was revoked
      (the wait released the CT row, which aborted it in the switch).
  mpi-fatal ISVP PROGRAM [isvp run options]
      the same under MPI_ERRORS_ARE_FATAL: the first failed call ends the
      job promptly with its link-fault message, no deadlock.
  mpi-return-collectives, mpi-fatal-collectives: the same with the program's
      MPI_Allreduce calls only (no ring exchange), so that the failures are
      the collective's (under MPI_ERRORS_ARE_FATAL: an MPI_Allreduce ends
      the job); mpi-return-nonblocking, mpi-fatal-nonblocking: with
      MPI_Iallreduce and MPI_Wait; mpi-return-persistent,
      mpi-fatal-persistent: with MPI_Start and MPI_Wait of one
      MPI_Allreduce_init request (every rank fails once at least: the
      request is broken from its first failed start on);
      mpi-return-offloaded-persistent: the same request in the switch
      (each start a fresh switch run: later starts succeed again).
  mpi-return-tree ISVP PROGRAM STATS [isvp run options]
      the program's MPI_Allreduce calls through the switch engines
      (collective.placement=switch or collective.mode=sharp on a fat tree):
      packets lost on cables to and from the engines end the collective with
      the link-fault error naming the cable (switch and port at both ends),
      no deadlock report, no other cause; later calls work (most succeed,
      with correct results), the job ends with status 0, the switch engines
      counted the faults (--stats), and a second run prints the same.
  mpi-return-tree-communicators ISVP PROGRAM STATS [isvp run options]
      the same with each MPI_Allreduce on a fresh MPI_Comm_dup freed after
      it: tree joins, configurations and leaves interleave with the faults.
"""

import json
import os
import re
import signal
import subprocess
import sys

COMMON = ["bench", "collectives", "--topology", "torus:2x2x2", "--iterations", "1", "--warmup", "0", "--check"]
RANKS = 8
# Simulated time by which the loss must have been reported: the runs lose a
# packet within their first collectives, and a loss is reported at the latest
# reliable.timeout_ns (10 us) x 2^retransmissions after it.
PROMPT_US = 2000.0
# mpi-return-high-loss: 20 iterations end well before this when every lost
# message fails its receive at once (a rank left waiting would end the job
# with a deadlock report instead).
HIGH_LOSS_US = 3000.0
# dead-link: reliable.max_losses_in_a_row (16) losses of about 15 ms each
# (reliable.timeout_ns doubling over 8 retransmissions) end the job near
# 250 ms simulated, in well under a second of wall time.
DEAD_LINK_US = 1e6
DEAD_LINK_WALL_S = 30


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(isvp, extra):
    command = [isvp] + COMMON + extra
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    # Every drop is also a warning on stderr: show only the rest.
    noise = re.compile(r"^(Warning: isvp/aurora|In file:|In process:|$)")
    print(done.stdout, flush=True)
    print("\n".join(l for l in done.stderr.splitlines() if not noise.match(l)), flush=True)
    return done


def recovered(isvp, extra):
    done = run(isvp, extra)
    if done.returncode != 0:
        fail(f"exit status {done.returncode}: the run did not complete")
    if "mismatch" in done.stdout:
        fail("a result differs from the reference")
    footer = re.search(r"# reliable delivery: links dropped (\d+) packets; (\d+) packets sent, (\d+) retransmitted.*"
                       r" (\d+) lost", done.stdout)
    if not footer:
        fail("no '# reliable delivery' footer: the layer was not built")
    drops, sent, retransmitted, lost = (int(g) for g in footer.groups())
    if drops == 0 or retransmitted == 0:
        fail(f"links dropped {drops} packets and {retransmitted} were retransmitted: nothing was recovered, "
             "the test proves nothing (raise the error rate)")
    if lost != 0:
        fail(f"{lost} packets lost")
    # Recovered drops are routine: each link names its first few only.
    warned = len(re.findall(r"dropped packet \d+", done.stdout + done.stderr))
    links = 24  # 2x2x2: 8 nodes x 3 dimensions, a + and a - cable each
    if warned > 3 * links:
        fail(f"{warned} drop warnings for {drops} drops: more than 3 per link")
    print(f"OK: {drops} packets dropped by links, {retransmitted} retransmissions, all {sent} delivered, "
          f"results correct; {warned} drop warnings")


def deterministic(isvp, extra):
    first, second = run(isvp, extra), run(isvp, extra)
    if first.returncode != 0 or second.returncode != 0:
        fail(f"exit status {first.returncode}, {second.returncode}")
    def rows(done):
        return [l for l in done.stdout.splitlines()
                if re.match(r"^[a-z_]+\s+\d+\s", l) or l.startswith("# reliable delivery:")]
    a, b = rows(first), rows(second)
    if not a or not any(l.startswith("# reliable delivery:") for l in a):
        fail("no rows or no '# reliable delivery' footer")
    if a != b:
        fail("the two runs differ:\n" + "\n".join(a) + "\n---\n" + "\n".join(b))
    print(f"OK: {len(a)} lines identical in both runs")


def p2p_run(isvp, guest, stats, extra):
    command = [isvp, "run", "--stats", stats] + extra + ["--", guest, "alltoall"]
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    print("\n".join(l for l in (done.stdout + done.stderr).splitlines() if "alltoall" in l or "FAIL" in l))
    if done.returncode != 0:
        fail(f"exit status {done.returncode}: {done.stderr[-2000:]}")
    with open(stats) as f:
        nodes = json.load(f)["platform"]["nodes"]
    if any("reliable" not in n for n in nodes):
        fail("a node has no 'reliable' statistics: the layer was not built")
    total = {k: sum(n["reliable"][k] for n in nodes) for k in nodes[0]["reliable"]}
    print(total)
    if total["retransmissions"] == 0:
        fail("nothing was retransmitted: the test proves nothing (raise the error rate)")
    if total["lost_sent"] or total["lost_received"]:
        fail("packets lost")
    if total["delivered"] != total["data_packets"]:
        fail(f"{total['data_packets']} packets sent, {total['delivered']} delivered")
    print(f"OK: all verified; {total['retransmissions']} retransmissions, {total['delivered']} packets delivered")


# The platform's warning for a loss: the pair, the count and the link(s).
LINK = re.compile(r"Warning: isvp/reliable: link fault: (\d+) packets? from node \d+ to node \d+ lost.*; "
                  r"dropped by link node \d+ -> node \d+ \((x|y|z)(plus|minus)\)")


def check_link_named(text):
    for wrong in ("deadlock", "disagree"):
        if wrong in text:
            fail(f"'{wrong}' in the output: the loss was not reported as such")
    if not LINK.search(text):
        fail("no 'Warning: isvp/reliable: link fault: ... dropped by link node A -> node B (dir)' on stderr")


def check_prompt(text):
    when = re.search(r"job aborted at ([0-9.]+) us", text)
    if not when:
        fail("no 'job aborted at ... us'")
    if float(when.group(1)) > PROMPT_US:
        fail(f"ended at {when.group(1)} us, later than {PROMPT_US} us")
    return when.group(1)


def named_link(isvp, extra):
    done = run(isvp, extra)
    if done.returncode == 0:
        fail("the run succeeded: no packet was lost (raise the error rate)")
    text = done.stdout + done.stderr
    check_link_named(text)
    if not re.search(r"isvp: the guest failed: .*link fault: \d+ packets? from node \d+ to node \d+|"
                     r"error code 6 \(link fault", text):
        fail("no rank failed with a link-fault error")
    when = check_prompt(text)
    print(f"OK: the link is named, a rank's call failed with the link fault; the job ended at {when} us")


def dead_link(isvp, extra):
    command = [isvp] + COMMON + extra
    print("$ " + " ".join(command), flush=True)
    # A session of its own: a hanging run is ended with everything it started.
    done = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = done.communicate(timeout=DEAD_LINK_WALL_S)
    except subprocess.TimeoutExpired:
        os.killpg(done.pid, signal.SIGKILL)
        done.communicate()
        fail(f"no end within {DEAD_LINK_WALL_S} s of wall time: the run hangs on the dead link")
    text = stdout + stderr
    print("\n".join(l for l in text.splitlines() if "no progress" in l or "job aborted" in l)[-3000:], flush=True)
    if done.returncode == 0:
        fail("exit status 0: the run succeeded over a link that loses every packet")
    if "deadlock" in text:
        fail("'deadlock' in the output: the dead link was not named as the cause")
    named = re.search(r"link fault: no progress from node \d+ to node \d+: (\d+) packets in a row lost, none "
                      r"acknowledged in between \(reliable\.max_losses_in_a_row = (\d+)\);.* dropped by link "
                      r"node \d+ -> node \d+ \((x|y|z)(plus|minus)\).*aurora\.bit_error_rate = ", text)
    if not named:
        fail("no 'link fault: no progress from node A to node B: ... dropped by link node A -> node B (dir) ... "
             "aurora.bit_error_rate = ...' error")
    when = re.search(r"job aborted at ([0-9.]+) us", text)
    if not when or float(when.group(1)) > DEAD_LINK_US:
        fail(f"the job did not end by {DEAD_LINK_US} us simulated")
    print(f"OK: exit status {done.returncode}, the dead path and its link named after {named.group(1)} losses in "
          f"a row; the job ended at {when.group(1)} us")


def run_mpi(isvp, program, mode, extra, stats=None, variant=None):
    command = ([isvp, "run"] + (["--stats", stats] if stats else []) + extra + ["--", program, mode, "20"] +
               ([variant] if variant else []))
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    noise = re.compile(r"^(Warning: isvp/aurora|In file:|In process:|$)")
    print(done.stdout, flush=True)
    print("\n".join(l for l in done.stderr.splitlines() if not noise.match(l)), flush=True)
    return done


def mpi_return(isvp, program, stats, extra, variant=None, high_loss=False):
    collectives_only = variant is not None
    done = run_mpi(isvp, program, "return", extra, stats, variant)
    if done.returncode != 0:
        fail(f"exit status {done.returncode}: the job did not go on after the link faults")
    check_link_named(done.stdout + done.stderr)
    if "FAIL" in done.stdout:
        fail("the program found a wrong result or a wrong error")
    summaries = re.findall(r"^mpi_link_fault: rank (\d+): (\d+) iterations, (\d+) failed \((\d+) MPI_Allreduce, "
                           r"(\d+) MPI_Sendrecv\)$", done.stdout, re.M)
    if sorted(int(s[0]) for s in summaries) != list(range(RANKS)):
        fail(f"summary lines from ranks {sorted(int(s[0]) for s in summaries)}, expected all {RANKS}")
    collective = sum(int(s[3]) for s in summaries)
    p2p = sum(int(s[4]) for s in summaries)
    calls = sum((1 if collectives_only else 2) * int(s[1]) for s in summaries)
    failed = sum(int(s[2]) for s in summaries)
    if collective == 0 or (p2p == 0 and not collectives_only):
        fail(f"{collective} MPI_Allreduce and {p2p} MPI_Sendrecv failures: both kinds must fail once at least "
             "(change the error rate)")
    if high_loss and failed >= calls:
        fail(f"all {calls} calls failed: later traffic does not work again after a fault")
    if variant in ("persistent", "persistent-mixed"):
        # A broken request fails every later start: each rank fails from its
        # first failure on, and every rank fails.
        for s in summaries:
            if int(s[2]) == 0:
                fail(f"rank {s[0]} never failed: a member of the broken persistent request was not told")
    elif not high_loss and failed * 2 > calls:
        fail(f"{failed} of {calls} calls failed: later traffic does not work again after a fault")
    errors = re.findall(r"^mpi_link_fault: rank \d+: iteration \d+: (MPI_\w+) failed: (.*)$", done.stdout, re.M)
    if len(errors) != failed:
        fail(f"{failed} failures counted, {len(errors)} printed")
    # The links the platform names: its warnings (rate-limited on stderr) and,
    # complete, the --stats JSON.
    with open(stats) as f:
        named = json.load(f)["platform"].get("link_faults", [])
    warned = {(int(a), int(b)) for line in done.stderr.splitlines() + named if "link fault" in line
              for a, b in re.findall(r"node (\d+) -> node (\d+) \(", line)}
    cables = 0
    for call, text in errors:
        if not text.startswith("MPI_ERR_OTHER") or "link fault" not in text:
            fail(f"{call}'s error is not MPI_ERR_OTHER naming the link fault: {text}")
        if "link fault: packets between members" in text:
            continue  # learnt from a member's agreement record, which names no pair (docs/COLLECTIVES.md)
        cable = re.search(r"lost for good on the link (?:node \d+ [+-][xyz] -> node \d+ \()?"
                          r"switch (\d+) port \d+ -> switch (\d+) port \d+", text)
        # On a torus the guests name the cable by nodes and direction too, as the warning does.
        if "torus" in " ".join(extra) and not re.search(r"on the link node \d+ [+-][xyz] -> node \d+ \(", text):
            fail(f"{call}'s error does not name the cable by nodes and direction: {text}")
        if not cable:
            fail(f"{call}'s error does not name the cable (switch and port at both ends): {text}")
        # On a torus each node has its own switch: the cable is one the platform's warning names.
        if (int(cable.group(1)), int(cable.group(2))) not in warned:
            fail(f"{call}'s error names switch {cable.group(1)} -> switch {cable.group(2)}, which no warning "
                 f"names (warned: {sorted(warned)})")
        cables += 1
    if cables == 0:
        fail("no error named a cable")
    with open(stats) as f:
        platform = json.load(f)["platform"]
    faults, simulated_us = platform.get("link_faults", []), platform.get("simulated_us")
    if not faults or not all(re.search(r"dropped by link node \d+ -> node \d+", f) for f in faults):
        fail(f"the --stats JSON does not name the links: {faults}")
    if high_loss and not (simulated_us is not None and simulated_us <= HIGH_LOSS_US):
        fail(f"the job ended at {simulated_us} us simulated, later than {HIGH_LOSS_US} us")
    # Same seed, same faults, same failed calls (ranks' lines interleave freely).
    again = run_mpi(isvp, program, "return", extra, stats, variant)
    if sorted(again.stdout.splitlines()) != sorted(done.stdout.splitlines()):
        fail("a second run with the same seed failed other calls")
    with open(stats) as f:
        platform = json.load(f)["platform"]
    if platform.get("link_faults", []) != faults:
        fail("a second run with the same seed reported other link faults")
    if platform.get("simulated_us") != simulated_us:
        fail(f"a second run with the same seed ended at {platform.get('simulated_us')} us, the first at {simulated_us} us")
    print(f"OK: {failed} of {calls} calls failed with MPI_ERR_OTHER naming the link fault ({collective} "
          f"MPI_Allreduce, {p2p} MPI_Sendrecv; {cables} errors name the cable), the others correct; {len(faults)} "
          f"link faults in the stats; status 0; a second run gave the same (and ended at the same {simulated_us} us)")


def mpi_fatal(isvp, program, extra, variant=None):
    collectives_only = variant is not None
    done = run_mpi(isvp, program, "fatal", extra, variant=variant)
    if done.returncode == 0:
        fail("the job succeeded: no call failed (raise the error rate)")
    text = done.stdout + done.stderr
    check_link_named(text)
    call = r"MPI_(Allreduce|Wait|Start): .*" if collectives_only else r"MPI_\w+: .*"
    if not re.search("^" + call + r"link fault.*\n.*MPI_ERR_OTHER on rank \d+ .*with MPI_ERRORS_ARE_FATAL: ending the job",
                     done.stderr, re.M):
        fail("no rank ended the job with the link-fault message under MPI_ERRORS_ARE_FATAL")
    when = check_prompt(text)
    print(f"OK: the first failed call ended the job with its link-fault message at {when} us")


def mpi_seed_sweep(isvp, program, first, last, rates, extra, variant=None, require=None):
    failures = []
    runs = 0
    ranks = int(extra[extra.index("-n") + 1]) if "-n" in extra else RANKS
    required_seen = 0
    for rate in rates.split(","):
        for seed in range(int(first), int(last) + 1):
            command = ([isvp, "run"] + extra + ["--set", f"aurora.bit_error_rate={rate}", "--set",
                                                f"aurora.seed={seed}", "--", program, "return", "20"] +
                       ([variant] if variant else []))
            done = subprocess.run(command, capture_output=True, text=True, timeout=300)
            runs += 1
            summaries = re.findall(r"^mpi_link_fault: rank (\d+): 20 iterations, (\d+) failed", done.stdout, re.M)
            problems = []
            if done.returncode != 0:
                problems.append(f"exit status {done.returncode}")
            if len(summaries) != ranks:
                problems.append(f"{len(summaries)} of {ranks} summaries")
            if require and re.search(require, done.stdout):
                required_seen += 1
            problems += [line for line in done.stdout.splitlines() if "FAIL" in line][:3]
            problems += [line[:300] for line in done.stderr.splitlines() if "deadlock" in line][:1]
            failed = sum(int(f) for _, f in summaries)
            print(f"rate {rate} seed {seed}: status {done.returncode}, {failed} calls failed"
                  + ("" if not problems else ": " + "; ".join(problems)), flush=True)
            if problems:
                failures.append(f"rate {rate} seed {seed}")
    if failures:
        fail(f"{len(failures)} of {runs} runs went wrong: {', '.join(failures)}")
    if require and required_seen == 0:
        fail(f"no run printed a line matching {require!r}: the case these seeds were chosen for did not happen")
    print(f"OK: {runs} runs, each ended with status 0 and every rank's summary, no wrong result or error, no deadlock"
          + (f"; {required_seen} showed {require!r}" if require else ""))

def mpi_return_tree(isvp, program, stats, extra, variant="collectives"):
    done = run_mpi(isvp, program, "return", extra, stats, variant)
    text = done.stdout + done.stderr
    for wrong in ("deadlock", "disagree"):
        if wrong in text:
            fail(f"'{wrong}' in the output: the loss was not reported as such")
    if done.returncode != 0:
        fail(f"exit status {done.returncode}: the job did not go on after the link faults")
    if "FAIL" in done.stdout:
        fail("the program found a wrong result or a wrong error")
    # An end is a host ("node N") or a switch engine ("switch S (leafK)").
    end = r"(?:node \d+|switch \d+ \(\w+\))"
    if not re.search(r"Warning: isvp/reliable: link fault: \d+ packets? from " + end + " to " + end +
                     r" lost.*; dropped by link ", done.stderr):
        fail("no 'Warning: isvp/reliable: link fault: ... dropped by link ...' on stderr")
    ranks = int(extra[extra.index("-n") + 1])
    summaries = re.findall(r"^mpi_link_fault: rank (\d+): (\d+) iterations, (\d+) failed", done.stdout, re.M)
    if sorted(int(s[0]) for s in summaries) != list(range(ranks)):
        fail(f"summary lines from ranks {sorted(int(s[0]) for s in summaries)}, expected all {ranks}")
    calls = sum(int(s[1]) for s in summaries)
    failed = sum(int(s[2]) for s in summaries)
    if failed == 0:
        fail("no MPI_Allreduce failed: raise the error rate")
    if failed * 2 > calls:
        fail(f"{failed} of {calls} calls failed: later traffic does not work again after a fault")
    errors = re.findall(r"^mpi_link_fault: rank \d+: iteration \d+: (MPI_\w+) failed: (.*)$", done.stdout, re.M)
    if len(errors) != failed:
        fail(f"{failed} failures counted, {len(errors)} printed")
    for call, message in errors:
        if not message.startswith("MPI_ERR_OTHER") or "link fault" not in message:
            fail(f"{call}'s error is not MPI_ERR_OTHER naming the link fault: {message}")
        if not re.search(r"switch \d+ port \d+ -> switch \d+ port \d+", message):
            fail(f"{call}'s error does not name the cable (switch and port at both ends): {message}")
    with open(stats) as f:
        engines = json.load(f)["platform"]["switch_engines"]
    faults = sum(e["link_faults"] for e in engines.values())
    if faults == 0:
        fail("no switch engine ended a collective for a link fault")
    with open(stats) as f:
        endpoints = json.load(f)["platform"].get("switch_engine_reliable", {})
    if len(endpoints) != len(engines) or sum(e["lost_sent"] + e["lost_received"] for e in endpoints.values()) == 0:
        fail(f"the switch engines' reliable endpoints are not in --stats or lost nothing: {endpoints}")
    again = run_mpi(isvp, program, "return", extra, stats, variant)
    if again.stdout != done.stdout:
        fail("a second run with the same seed printed something else")
    print(f"PASSED: {failed} of {calls} calls failed naming the link, switch engines' link faults {faults}")
    sys.exit(0)


def main():
    checks = {"recovered": recovered, "deterministic": deterministic, "named-link": named_link,
              "dead-link": dead_link}
    if len(sys.argv) >= 5 and sys.argv[1] == "p2p-run":
        p2p_run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
        return
    if len(sys.argv) >= 7 and sys.argv[1] == "mpi-seed-sweep":
        mpi_seed_sweep(*sys.argv[2:7], sys.argv[7:])
        return
    if len(sys.argv) >= 7 and sys.argv[1] == "mpi-seed-sweep-revoked-offloaded":
        mpi_seed_sweep(*sys.argv[2:7], sys.argv[7:], variant="communicators",
                       require=r"last: MPI_Allreduce: collective: communicator \d+ is revoked")
        return
    for variant in ("communicators", "split-communicators", "nonblocking-communicators"):
        if len(sys.argv) >= 7 and sys.argv[1] == "mpi-seed-sweep-" + variant:
            mpi_seed_sweep(*sys.argv[2:7], sys.argv[7:], variant=variant)
            return
    if len(sys.argv) >= 5 and sys.argv[1] == "mpi-return-tree":
        mpi_return_tree(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    if len(sys.argv) >= 5 and sys.argv[1] == "mpi-return-tree-communicators":
        mpi_return_tree(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:], "communicators")
    if len(sys.argv) >= 5 and sys.argv[1] == "mpi-return-high-loss":
        mpi_return(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:], high_loss=True)
        return
    variants = {"": None, "-collectives": "collectives", "-nonblocking": "nonblocking", "-persistent": "persistent",
                "-offloaded-persistent": "offloaded-persistent", "-persistent-mixed": "persistent-mixed"}
    for suffix, variant in variants.items():
        if len(sys.argv) >= 5 and sys.argv[1] == "mpi-return" + suffix:
            mpi_return(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:], variant)
            return
        if len(sys.argv) >= 4 and sys.argv[1] == "mpi-fatal" + suffix:
            mpi_fatal(sys.argv[2], sys.argv[3], sys.argv[4:], variant)
            return
    if len(sys.argv) < 3 or sys.argv[1] not in checks:
        print(__doc__)
        sys.exit(2)
    checks[sys.argv[1]](sys.argv[2], sys.argv[3:])


if __name__ == "__main__":
    main()
