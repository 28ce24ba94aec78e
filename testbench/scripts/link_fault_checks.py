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
      with recovery off or exhausted the job fails promptly, and every rank's
      error names the link (nodes, direction) and the lost-packet count --
      no deadlock report, no 'arguments disagree'.
"""

import json
import re
import subprocess
import sys

COMMON = ["bench", "collectives", "--topology", "torus:2x2x2", "--iterations", "1", "--warmup", "0", "--check"]
RANKS = 8
# Simulated time by which the loss must have been reported: the runs lose a
# packet within their first collectives, and a loss is reported at the latest
# reliable.timeout_ns (10 us) x 2^retransmissions after it.
PROMPT_US = 2000.0


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


def named_link(isvp, extra):
    done = run(isvp, extra)
    if done.returncode == 0:
        fail("the run succeeded: no packet was lost (raise the error rate)")
    text = done.stdout + done.stderr
    for wrong in ("deadlock", "disagree"):
        if wrong in text:
            fail(f"'{wrong}' in the output: the loss was not reported as such")
    link = re.compile(r"link fault: (\d+) packets? from node \d+ to node \d+ lost.*; dropped by link "
                      r"node \d+ -> node \d+ \((x|y|z)(plus|minus)\)")
    for rank in range(RANKS):
        line = re.search(rf"^  rank {rank}: (.*)$", done.stderr, re.M)
        if not line:
            fail(f"rank {rank} got no error")
        if not link.search(line.group(1)):
            fail(f"rank {rank}'s error does not name the link and the lost-packet count: {line.group(1)}")
    when = re.search(r"job aborted at ([0-9.]+) us", text)
    if not when:
        fail("no 'job aborted at ... us'")
    if float(when.group(1)) > PROMPT_US:
        fail(f"reported at {when.group(1)} us, later than {PROMPT_US} us")
    print(f"OK: every rank's error names the link; reported at {when.group(1)} us")


def main():
    checks = {"recovered": recovered, "deterministic": deterministic, "named-link": named_link}
    if len(sys.argv) >= 5 and sys.argv[1] == "p2p-run":
        p2p_run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
        return
    if len(sys.argv) < 3 or sys.argv[1] not in checks:
        print(__doc__)
        sys.exit(2)
    checks[sys.argv[1]](sys.argv[2], sys.argv[3:])


if __name__ == "__main__":
    main()
