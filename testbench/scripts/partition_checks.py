#!/usr/bin/env python3
"""Distributed simulation (docs/PARTITIONS.md) end to end.

  partition_checks.py same ISVP PARTITIONS ARGS...
      `isvp bench collectives ARGS` with one process and with --partitions
      PARTITIONS (mpiexec, started by isvp itself) print the same rows,
      header and simulated time (the wall-time parts and the simulator's own
      counters left out); the partitioned run really synchronised (windows
      and cut traffic > 0).
  partition_checks.py auto ISVP HOSTS SWITCHES ARGS...
      `isvp bench collectives ARGS --partitions auto` says on stderr how
      many partitions it chose: one per CPU this process may use, at most
      one per 32 ranks (here one per host) and one per switch (HOSTS,
      SWITCHES: the topology's; HOSTS "-": the options refuse partitions,
      so one, with the reason); then `same` with that many (one: no
      '# partitions:' line, the rows of one process).
  partition_checks.py auto-fewer ISVP HOSTS SWITCHES REASON ARGS...
      `auto`, where the cut cannot be planned: one partition, the reason
      containing REASON.
  partition_checks.py same-run-auto ISVP SWITCHES STATS_DIR ARGS...
      `same-run` with --partitions auto: the number chosen follows the
      ranks of `-n N` in ARGS (min(CPUs, SWITCHES, N / 32)).
  partition_checks.py whole-lines ISVP PARTITIONS RANKS LINES ARGS...
      `isvp run --partitions PARTITIONS -n RANKS ARGS flood LINES` (ARGS
      end with mpi_launcher): every rank's every 1-KiB line comes out whole
      and once.
  partition_checks.py closed-stdout ISVP ARGS...
      `isvp run --partitions 2 ARGS` whose stdout reader leaves after 100
      bytes: status 0, no monitor directory left in /tmp.
  partition_checks.py own-mpiexec-auto ISVP ARGS...
      The user's own `mpiexec -n 2` and `-n 1` with --partitions auto: the
      job's size, no choice printed, one process's rows; `mpiexec -n 1`
      with --partitions 2 is refused (no mpiexec inside mpiexec).
  partition_checks.py same-own-mpiexec ISVP PARTITIONS ARGS...
      `same`, with the partitions started by the user's own `mpiexec -n
      PARTITIONS isvp bench collectives ARGS` (no supervisor): the same
      rows, and partition 0 maps each partition (switches, hosts) to its
      process rank, machine and pid on stderr.
  partition_checks.py same-pingpong ISVP PARTITIONS ARGS...
      The same for `isvp bench pingpong ARGS`.
  partition_checks.py same-run ISVP PARTITIONS STATS_DIR ARGS...
      `isvp run ARGS` (guest processes) with one process and with
      --partitions PARTITIONS: the same exit status, the same output lines
      (sorted: ranks in different partitions print through different
      processes), each once, and the same --stats (every rank's outcome and
      simulated finish time, the simulated time, every node's statistics,
      merged from the partitions, the routers' and links' counters
      included).
  partition_checks.py killed-run ISVP ARGS...
      `isvp run --partitions 2 ARGS` (a long MPI program), partition 1
      SIGKILLed once running (`--victim=K` first: partition K): the job ends
      (non-zero) within a minute with one message naming the partition and
      the switches and hosts it owned as died, and neither a simulator nor a
      guest process of the job is left.
  partition_checks.py same-pingpong-json ISVP PARTITIONS DIR ARGS...
      `isvp bench pingpong ARGS --json`: the rows and every node's platform
      statistics equal one process's (merged from the partitions).
  partition_checks.py noise ISVP PERIOD_PS ARGS...
      `isvp bench collectives ARGS` prints the same rows, header and
      simulated time with ISVP_TEST_KERNEL_NOISE_PS=PERIOD_PS (a SystemC
      method that only notifies itself: the kernel's event-queue history
      changes, the model does not) as without: no block's behaviour depends
      on SystemC's order of same-time processes.
  partition_checks.py killed ISVP ARGS...
      `isvp bench collectives ARGS --partitions 2`, partition 1 SIGKILLed
      once running (`--victim=K` first: partition K): the job ends
      (non-zero) within a minute with one message naming the partition and
      its switches and hosts as died, and leaves no simulator process behind.
  partition_checks.py killed-stuck-launcher ISVP ARGS...
      `killed`, with an mpiexec that ends the job's processes when one dies
      but then does not exit itself (a wrapper that sleeps on): the
      supervisor ends it (SIGTERM) 20 s after the death and still names the
      partition; the job ends within 20-60 s, non-zero, nothing left.
  partition_checks.py failed ISVP ARGS...
      `isvp bench collectives ARGS --partitions 2` with
      ISVP_TEST_PARTITION_FAIL=1: partition 1 reports its own failure and
      ends the job (non-zero), and no partition is named as died.
  partition_checks.py platform-error ISVP ARGS...
      `isvp run ARGS` with ISVP_TEST_PLATFORM_ERROR (a model's process
      fails at 20 us), in one process and in partition 1 of two: the job
      ends non-zero, the failure is stated once with the process and the
      time, nobody is named as died, no process is left.
  partition_checks.py terminated ISVP ARGS...
      `isvp bench collectives ARGS --partitions 2`, SIGTERM to that isvp
      (the supervisor of mpiexec) once the partitions run: the job ends
      (non-zero) within a minute and no partition process is left.
  partition_checks.py refused ISVP EXPECTED ARGS...
      `isvp bench collectives ARGS` fails with a message containing EXPECTED,
      promptly (no hang).
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

# Per run, s; the long tier (partition_stats.cmake) sets more.
TIMEOUT = int(os.environ.get("PARTITION_CHECKS_TIMEOUT", "600"))


def environment():
    env = dict(os.environ)
    # As root (CI, containers) Open MPI refuses to start without these.
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def run(isvp, args, command="collectives", extra_env=None):
    env = environment()
    env.update(extra_env or {})
    return subprocess.run([isvp, "bench", command] + args, capture_output=True, text=True,
                          timeout=TIMEOUT, env=env)


def comparable(stdout):
    lines = []
    for line in stdout.splitlines():
        if line.startswith("# simulator:") or line.startswith("# partitions:"):
            continue
        lines.append(re.sub(r" in [0-9.e+-]+ s wall.*", "", line))
    return lines


AUTO_CHOICE = r"^\[isvp\] {command} --partitions auto: (\d+) partitions? \((.*)\)$"


def auto_choice(stderr, command, ranks, switches, reason=None):
    """The one choice `--partitions auto` printed; it must be min(its CPUs, switches, ranks / 32) (no more CPUs
    than this process's affinity), or 1 with a reason containing `reason`. Returns the count."""
    chosen = re.findall(AUTO_CHOICE.format(command=command), stderr, re.M)
    if len(chosen) != 1:
        sys.exit(f"--partitions auto must say once what it chose; stderr:\n{stderr}")
    count, why = int(chosen[0][0]), chosen[0][1]
    if reason is not None:
        if count != 1 or reason not in why:
            sys.exit(f"--partitions auto must choose one partition because of '{reason}'; it said: {chosen[0]}")
        return count
    cpus = re.match(r"(\d+) CPUs?, ", why)
    if not cpus or not 1 <= int(cpus.group(1)) <= len(os.sched_getaffinity(0)):
        sys.exit(f"--partitions auto must name the CPUs it may use (at most this process's affinity): {why}")
    expected = min(int(cpus.group(1)), int(switches), max(1, int(ranks) // 32))
    if count != expected or f"{ranks} rank" not in why:
        sys.exit(f"--partitions auto chose {count}, expected {expected} ({ranks} ranks, {switches} switches): {why}")
    return count


def auto(isvp, hosts, switches, args, reason=None):
    # HOSTS "-": the options refuse partitions, so auto must choose one and say why.
    if hosts == "-":
        reason = "partitions do not"
    elif reason is not None and len(os.sched_getaffinity(0)) < 2:
        print("one CPU: auto chooses one partition whatever the cut; nothing to check")
        sys.exit(77)
    one = run(isvp, args)
    many = run(isvp, args + ["--partitions", "auto"])
    expected = auto_choice(many.stderr, "bench collectives", hosts, switches, reason)
    if one.returncode != 0 or many.returncode != 0:
        sys.exit(f"a run failed ({one.returncode}, {many.returncode}):\n{one.stderr}\n{many.stderr}")
    if comparable(one.stdout) != comparable(many.stdout):
        sys.exit(f"--partitions auto printed other rows:\n{one.stdout}\n---\n{many.stdout}")
    summary = [line for line in many.stdout.splitlines() if line.startswith("# partitions:")]
    if expected == 1 and summary:
        sys.exit(f"one partition chosen, yet a partitioned run: {summary}")
    if expected > 1 and not (len(summary) == 1 and summary[0].startswith(f"# partitions: {expected} ")):
        sys.exit(f"expected one '# partitions: {expected}' line:\n{many.stdout}")
    print(f"--partitions auto chose {expected}; rows identical to one process")


def own_mpiexec_auto(isvp, args):
    """Under the user's own mpiexec, `--partitions auto` takes the job's size and says nothing about a choice;
    `mpiexec -n 1` is a job of one (no second mpiexec inside it), and a count it cannot be is refused."""
    env = environment()
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")

    def mpiexec(n, extra):
        return subprocess.run(["mpiexec", "-n", str(n), isvp, "bench", "collectives"] + args + extra,
                              capture_output=True, text=True, timeout=TIMEOUT, env=env)

    one = run(isvp, args)
    if one.returncode != 0:
        sys.exit(f"one process failed ({one.returncode}):\n{one.stdout}\n{one.stderr}")
    for n in (2, 1):
        job = mpiexec(n, ["--partitions", "auto"])
        if job.returncode != 0:
            sys.exit(f"mpiexec -n {n} ... --partitions auto failed ({job.returncode}):\n{job.stdout}\n{job.stderr}")
        if "--partitions auto:" in job.stderr:
            sys.exit(f"under mpiexec -n {n} the job's size decides; auto must not choose:\n{job.stderr}")
        if comparable(job.stdout) != comparable(one.stdout):
            sys.exit(f"mpiexec -n {n} ... --partitions auto printed other rows:\n{job.stdout}\n---\n{one.stdout}")
        summary = [line for line in job.stdout.splitlines() if line.startswith("# partitions:")]
        if (n == 1 and summary) or (n > 1 and not (len(summary) == 1 and summary[0].startswith(f"# partitions: {n} "))):
            sys.exit(f"mpiexec -n {n}: expected {n} partition(s), got {summary}")
    grown = mpiexec(1, ["--partitions", "2"])
    if grown.returncode == 0 or "--partitions 2 but mpiexec started 1 process" not in grown.stderr + grown.stdout:
        sys.exit(f"mpiexec -n 1 ... --partitions 2 must be refused, naming both sizes; got {grown.returncode}:\n"
                 f"{grown.stdout}\n{grown.stderr}")
    print("own mpiexec: -n 2 and -n 1 with --partitions auto give the job's size and one process's rows; "
          "-n 1 with --partitions 2 is refused")


def same(isvp, partitions, args, command="collectives", own_mpiexec=False):
    one = run(isvp, args, command)
    if one.returncode != 0:
        sys.exit(f"one process failed ({one.returncode}):\n{one.stdout}\n{one.stderr}")
    if own_mpiexec:  # as on a cluster: the user starts the partitions, no isvp supervises them
        env = environment()
        env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
        many = subprocess.run(["mpiexec", "-n", partitions, isvp, "bench", command] + args, capture_output=True,
                              text=True, timeout=TIMEOUT, env=env)
    else:
        many = run(isvp, args + ["--partitions", partitions], command)
    mapped = re.findall(r"^\[isvp\] partition (\d+) \(switches \d+\.\.\d+, hosts \d+\.\.\d+\) is mpiexec's "
                        r"process rank (\d+) on \S+ pid \d+$", many.stderr, re.M)
    if own_mpiexec and [(int(a), int(b)) for a, b in mapped] != [(k, k) for k in range(int(partitions))]:
        sys.exit(f"under the user's own mpiexec partition 0 must map every partition to its process rank, "
                 f"switches, hosts and machine on stderr; got {mapped}:\n{many.stderr}")
    if not own_mpiexec and mapped:
        sys.exit(f"isvp's supervisor names partitions itself; no map expected:\n{many.stderr}")
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


def same_run(isvp, partitions, directory, args, switches=None):
    import json
    os.makedirs(directory, exist_ok=True)
    results = {}
    if partitions == "auto":  # args name -n N
        ranks = args[args.index("-n") + 1]
    for p in ("1", partitions):
        stats = os.path.join(directory, f"stats_{p}.json")
        if os.path.exists(stats):
            os.remove(stats)
        done = subprocess.run([isvp, "run", "--partitions", p, "--stats", stats] + args, capture_output=True,
                              text=True, timeout=TIMEOUT, env=environment())
        if not os.path.exists(stats):
            sys.exit(f"--partitions {p} wrote no --stats (status {done.returncode}):\n{done.stdout}\n{done.stderr}")
        with open(stats) as f:
            results[p] = (done, json.load(f))
    (one, one_stats), (many, many_stats) = results["1"], results[partitions]
    if partitions == "auto":
        chosen = auto_choice(many.stderr, "run", ranks, switches)
        print(f"--partitions auto chose {chosen} for {ranks} ranks")
    if one.returncode != many.returncode:
        sys.exit(f"exit status {one.returncode} with one process, {many.returncode} with {partitions} partitions:\n"
                 f"{many.stdout}\n{many.stderr}")
    a, b = sorted(one.stdout.splitlines()), sorted(many.stdout.splitlines())
    if not a or a != b:
        sys.exit(f"different output with {partitions} partitions:\n--- one process:\n{one.stdout}"
                 f"--- {partitions} partitions:\n{many.stdout}--- their stderr (status {many.returncode}):\n"
                 f"{many.stderr}")
    # Everything but the parameters (which hold --partitions): the ranks'
    # outcomes, every node's, router's, link's and switch engine's counters.
    def compared(stats):
        return {"exit_status": stats["exit_status"], "ranks": stats["ranks"], "platform": stats["platform"]}
    one_stats, many_stats = compared(one_stats), compared(many_stats)
    if not one_stats["platform"]["fabric"]["links"]:
        sys.exit("--stats lists no link: nothing was compared")
    for part in ("exit_status", "ranks", "platform"):
        if one_stats[part] != many_stats[part]:
            x, y = json.dumps(one_stats[part], indent=1).splitlines(), json.dumps(many_stats[part], indent=1).splitlines()
            diff = "\n".join(f"  1: {u}\n  {partitions}: {v}" for u, v in zip(x, y) if u != v)
            sys.exit(f"--stats '{part}' differs with {partitions} partitions ({len(x)} vs {len(y)} lines):\n{diff[:4000]}")
    nodes = len(many_stats["platform"]["nodes"])
    links = len(many_stats["platform"]["fabric"]["links"])
    print(f"{len(a)} output lines, exit status {one.returncode}, --stats ({nodes} nodes, {links} links, "
          f"{many_stats['platform']['simulated_us']} us) identical with {partitions} partitions")


def whole_lines(isvp, partitions, ranks, lines, args):
    """`isvp run --partitions P -n RANKS ARGS mpi_launcher flood LINES`: every rank's every line comes out
    whole (mpiexec forwards a partition's output in pieces of its own size; isvp's supervisor prints it)."""
    done = subprocess.run([isvp, "run", "--partitions", partitions, "-n", ranks] + args + ["flood", lines],
                          capture_output=True, text=True, timeout=TIMEOUT, env=environment())
    if done.returncode != 0:
        sys.exit(f"the job failed ({done.returncode}):\n{done.stderr}")
    from collections import Counter
    seen, broken = Counter(), []
    for line in done.stdout.splitlines():
        match = re.fullmatch(r"rank (\d+) line (\d+) ([a-z]+)", line)
        if not match or len(line) != 1023 or set(match.group(3)) != {chr(ord("a") + int(match.group(1)) % 26)}:
            broken.append(line)
            continue
        seen[(int(match.group(1)), int(match.group(2)))] += 1
    expected = Counter((r, k) for r in range(int(ranks)) for k in range(int(lines)))
    if broken or seen != expected:
        sys.exit(f"{len(broken)} lines broken or mixed (first: {broken[:1]!r:.300}), "
                 f"{len(expected - seen)} of {len(expected)} missing, {len(seen - expected)} more than once")
    print(f"{len(seen)} lines of 1 KiB from {ranks} ranks in {partitions} partitions, every one whole")


def closed_stdout(isvp, args):
    """`isvp run --partitions 2 ARGS | head -c 100`: the reader goes away while guest output keeps coming; the job
    still ends with status 0 (as in one process, which ignores SIGPIPE) and leaves no monitor directory behind.
    The job gets a TMPDIR of its own, so partition runs of other tests beside it do not count."""
    import glob
    import shutil
    import tempfile
    tmpdir = tempfile.mkdtemp(prefix="isvp-closed-stdout-")
    try:
        job = subprocess.Popen([isvp, "run", "--partitions", "2"] + args, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(environment(), TMPDIR=tmpdir))
        job.stdout.read(100)
        job.stdout.close()
        try:
            _, stderr = job.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            job.kill()
            sys.exit("the job did not end once its stdout was closed")
        left = glob.glob(os.path.join(tmpdir, "isvp-partitions-*"))
        if job.returncode != 0 or left:
            sys.exit(f"status {job.returncode} (expected 0), left behind: {sorted(left)}\n{stderr.decode()[-2000:]}")
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    print("stdout closed early: status 0, nothing left behind")


def same_pingpong_json(isvp, partitions, directory, args):
    """bench pingpong --json: the platform statistics of every partition, merged (all nodes), as one process."""
    import json
    os.makedirs(directory, exist_ok=True)
    stats = {}
    for p in ("1", partitions):
        path = os.path.join(directory, f"pingpong_{p}.json")
        done = run(isvp, args + ["--partitions", p, "--json", path], "pingpong")
        if done.returncode != 0:
            sys.exit(f"--partitions {p} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        with open(path) as f:
            stats[p] = json.load(f)
    # Every node's, router's and link's counters.
    a, b = stats["1"]["platform"], stats[partitions]["platform"]
    if a != b or stats["1"]["rows"] != stats[partitions]["rows"]:
        x, y = json.dumps(a, indent=1).splitlines(), json.dumps(b, indent=1).splitlines()
        diff = "\n".join(f"  1: {u}\n  {partitions}: {v}" for u, v in zip(x, y) if u != v)
        sys.exit(f"--json differs with {partitions} partitions: {len(a.get('nodes', []))} vs "
                 f"{len(b.get('nodes', []))} nodes:\n{diff[:4000]}")
    routers = len(stats[partitions]["platform"]["fabric"]["routers"])
    if routers != len(stats["1"]["platform"]["fabric"]["routers"]):
        sys.exit(f"--json lists {routers} routers with {partitions} partitions")
    print(f"--json platform statistics ({len(b['nodes'])} nodes, {routers} routers) merged from {partitions} partitions")


def noise(isvp, period, args):
    quiet = run(isvp, args)
    if quiet.returncode != 0:
        sys.exit(f"the run without noise failed ({quiet.returncode}):\n{quiet.stdout}\n{quiet.stderr}")
    noisy = run(isvp, args, extra_env={"ISVP_TEST_KERNEL_NOISE_PS": period})
    if noisy.returncode != 0:
        sys.exit(f"the run with noise failed ({noisy.returncode}):\n{noisy.stdout}\n{noisy.stderr}")
    a, b = comparable(quiet.stdout), comparable(noisy.stdout)
    if a != b:
        diff = "\n".join(f"  quiet: {x}\n  noisy: {y}" for x, y in zip(a, b) if x != y)
        sys.exit(f"an unrelated SystemC method changed the rows:\n{diff}")
    rows = [line for line in a if line and not line.startswith("#")]
    if not rows or "mismatch" in quiet.stdout:
        sys.exit(f"no rows, or a result differs from the reference:\n{quiet.stdout}")
    print(f"{len(rows)} rows identical with a self-notifying method every {period} ps")


def refused(isvp, expected, args):
    result = run(isvp, args)
    output = result.stdout + result.stderr
    if result.returncode == 0 or expected not in output:
        sys.exit(f"expected a failure naming '{expected}', got status {result.returncode}:\n{output}")
    print(f"refused: {output.strip().splitlines()[-1]}")


def job_processes(marker):
    """Pids of every process whose environment holds PARTITION_RUN_TEST=`marker` (simulators and their
    guests: the launcher passes the ISVP_ variables on to guests, not the others)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if b"PARTITION_RUN_TEST=" + marker.encode() + b"\0" in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def processes_left(marker):
    """job_processes(marker) once the job has had 5 s to end them: guests end as their simulator ends
    (parent-death signal), a moment after it."""
    left = []
    for _ in range(50):
        left = job_processes(marker)
        if not left:
            break
        time.sleep(0.1)
    return left


def partition_processes(marker, isvp=None):
    """Pids of the job's simulator processes (their environment holds `marker`), by MPI rank;
    with `isvp`, only processes running that program (guests inherit the environment)."""
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
            if isvp is not None:
                try:
                    if os.path.realpath(f"/proc/{entry}/exe") != os.path.realpath(isvp):
                        continue
                except OSError:
                    continue
            found[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(entry)
    return found


def named_death(output, victim):
    """The supervisor's message names partition `victim` and the switches and hosts it owned, and no other."""
    named = re.findall(r"\[isvp\] partition (\d+) \(switches (\d+)\.\.(\d+), hosts (\d+)\.\.(\d+)\) died", output)
    if len(named) != 1 or int(named[0][0]) != victim:
        sys.exit(f"expected one message naming partition {victim} and its switches and hosts as died, got "
                 f"{named}:\n{output}")
    return named[0]


def victim_of(args):
    """`--victim=K` (default 1) before the arguments: the partition to kill."""
    if args and args[0].startswith("--victim="):
        return int(args[0].split("=", 1)[1]), args[1:]
    return 1, args


def killed(isvp, args, stuck_launcher=False):
    victim_partition, args = victim_of(args)
    marker = f"{os.getpid()}-{time.time()}"
    env = environment()
    env["ISVP_PARTITION_TEST"] = marker
    if stuck_launcher:
        # mpiexec ends the others when one dies; this launcher then lingers
        # (exec: the sleep is the process the supervisor started, and ends
        # with its SIGTERM, leaving nothing).
        wrapper = os.path.join(tempfile.mkdtemp(prefix="isvp-stuck-mpiexec-"), "mpiexec")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nmpiexec "$@"\nexec sleep 300.25\n')  # a length only this test sleeps
        os.chmod(wrapper, 0o755)
        env["ISVP_MPIEXEC"] = wrapper
    started = time.time()
    job = subprocess.Popen([isvp, "bench", "collectives"] + args + ["--partitions", "2"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env)
    deadline = time.time() + 120
    victim = None
    while time.time() < deadline and job.poll() is None:
        victim = partition_processes(marker).get(victim_partition)
        if victim:
            break
        time.sleep(0.1)
    if victim is None:
        job.kill()
        sys.exit(f"partition {victim_partition} never started:\n{job.communicate()[0]}")
    time.sleep(2)  # let it synchronise a while
    os.kill(victim, signal.SIGKILL)
    killed_at = time.time()
    try:
        output, _ = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        sys.exit(f"the job did not end within 60 s after partition {victim_partition} was killed "
                 "(a partition waits for good)")
    took = time.time() - killed_at
    if job.returncode == 0:
        sys.exit(f"expected a failure, got status 0:\n{output}")
    named_death(output, victim_partition)
    if stuck_launcher and took < 19:
        sys.exit(f"the job ended {took:.1f} s after the kill: the lingering launcher was not what it waited for")
    time.sleep(0.5)
    left = partition_processes(marker)
    if left:
        sys.exit(f"simulator processes left behind: {left}")
    if stuck_launcher:
        lingering = subprocess.run(["pgrep", "-fx", "sleep 300.25"], capture_output=True, text=True).stdout
        if lingering.strip():
            sys.exit(f"the lingering launcher was left behind: {lingering}")
    print(f"ended with status {job.returncode} {took:.1f} s after the kill (started {killed_at - started:.1f} s "
          "in): " + " ".join(line.strip() for line in output.splitlines() if "died" in line))


def killed_run(isvp, args):
    victim_partition, args = victim_of(args)
    marker = f"{os.getpid()}-{time.time()}"
    env = environment()
    env["ISVP_PARTITION_TEST"] = marker
    env["PARTITION_RUN_TEST"] = marker
    job = subprocess.Popen([isvp, "run", "--partitions", "2"] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env)
    deadline = time.time() + 120
    victim = None
    while time.time() < deadline and job.poll() is None:
        victim = partition_processes(marker, isvp).get(victim_partition)
        if victim:
            break
        time.sleep(0.1)
    if victim is None:
        job.kill()
        sys.exit(f"partition {victim_partition} never started:\n{job.communicate()[0]}")
    time.sleep(2)  # its guests connect and run a while
    running = len(job_processes(marker))
    if running < 2 + 8:
        job.kill()
        sys.exit(f"expected 2 partitions and their guests running, found {running} processes of the job")
    os.kill(victim, signal.SIGKILL)
    try:
        output, _ = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        sys.exit(f"the job did not end within 60 s after partition {victim_partition} was killed "
                 "(a partition waits for good)")
    if job.returncode == 0:
        sys.exit(f"expected a failure, got status 0:\n{output}")
    named_death(output, victim_partition)
    left = processes_left(marker)
    if left:
        sys.exit(f"processes left behind: {left}")
    print(f"ended with status {job.returncode} ({running} processes of the job were running): " +
          " ".join(line.strip() for line in output.splitlines() if "died" in line))


def failed(isvp, args):
    """ISVP_TEST_PARTITION_FAIL=1: partition 1 fails as a platform error would (it reports why, then
    MPI_Abort): the job ends at once, non-zero, with that partition's own message, and nobody is named as
    died (the others were ended by its abort, not lost)."""
    env = {"ISVP_TEST_PARTITION_FAIL": "1"}
    started = time.time()
    result = run(isvp, args + ["--partitions", "2"], extra_env=env)
    output = result.stdout + result.stderr
    if result.returncode == 0:
        sys.exit(f"expected a failure, got status 0:\n{output}")
    if not re.search(r"\[isvp\] partition 1 \(switches \d+\.\.\d+, hosts \d+\.\.\d+\) failed: "
                     r"ISVP_TEST_PARTITION_FAIL", output):
        sys.exit(f"expected partition 1's own failure message:\n{output}")
    if " died " in output:
        sys.exit(f"a partition was named as died, though partition 1 reported its failure:\n{output}")
    print(f"ended with status {result.returncode} after {time.time() - started:.1f} s: " +
          " ".join(line.strip() for line in output.splitlines() if "failed:" in line))


def platform_error(isvp, args):
    """`isvp run ARGS` (an MPI program) with ISVP_TEST_PLATFORM_ERROR: a model's process fails
    (SC_REPORT_ERROR) at 20 us, in one process and in partition 1 of two. Either way the job ends promptly,
    non-zero, the failure is stated once with the process and the time, nobody is named as died, and no
    simulator or guest process is left."""
    at = r"the platform failed in platform\.injected_error\.fire at 20\.000000 us: isvp/test: " \
         r"a platform error injected by a test \(ISVP_TEST_PLATFORM_ERROR\)"
    for partitions, failing, expected in (
            (1, 0, r"^\[isvp\] " + at + r"$"),
            (2, 1, r"^\[isvp\] partition 1 \(switches \d+\.\.\d+, hosts \d+\.\.\d+\) failed: " + at)):
        marker = f"{os.getpid()}-{time.time()}-{partitions}"
        extra = {"ISVP_TEST_PLATFORM_ERROR": f"{failing}:20000000", "PARTITION_RUN_TEST": marker}
        command = ["run"] + (["--partitions", str(partitions)] if partitions > 1 else []) + args
        env = dict(environment(), **extra)
        started = time.time()
        result = subprocess.run([isvp] + command, capture_output=True, text=True, timeout=TIMEOUT, env=env)
        output = result.stdout + result.stderr
        took = time.time() - started
        stated = re.findall(expected, output, re.M)
        if result.returncode == 0 or len(stated) != 1:
            sys.exit(f"{partitions} partition(s): expected a non-zero status and the failure stated once "
                     f"({expected}); got status {result.returncode}, {len(stated)} statements:\n{output[-3000:]}")
        if " died " in output:
            sys.exit(f"{partitions} partition(s): a partition was named as died:\n{output[-3000:]}")
        left = processes_left(marker)
        if left:
            sys.exit(f"{partitions} partition(s): processes left behind: {left}")
        print(f"{partitions} partition(s): status {result.returncode} after {took:.1f} s: {stated[0]}")


def terminated(isvp, args):
    """SIGTERM to the `isvp --partitions 2` that started mpiexec (the supervisor): the job ends and no
    partition process is left."""
    marker = f"{os.getpid()}-{time.time()}"
    env = environment()
    env["ISVP_PARTITION_TEST"] = marker
    job = subprocess.Popen([isvp, "bench", "collectives"] + args + ["--partitions", "2"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env)
    deadline = time.time() + 120
    while time.time() < deadline and job.poll() is None and len(partition_processes(marker)) < 2:
        time.sleep(0.1)
    if len(partition_processes(marker)) < 2:
        job.kill()
        sys.exit(f"the partitions never started:\n{job.communicate()[0]}")
    time.sleep(1)
    job.send_signal(signal.SIGTERM)
    try:
        output, _ = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        sys.exit("the job did not end within 60 s after SIGTERM to isvp")
    if job.returncode == 0:
        sys.exit(f"expected a failure status after SIGTERM, got 0:\n{output}")
    # mpiexec ends the partitions after isvp has gone; on a loaded machine
    # (CI's two cores running other tests) that can take seconds.
    left = []
    deadline = time.time() + 30
    while True:
        left = partition_processes(marker)
        if not left or time.time() > deadline:
            break
        time.sleep(0.1)
    if left:
        sys.exit(f"partition processes left behind 30 s after isvp ended: {left}\n{output}")
    print(f"ended with status {job.returncode}, nothing left")


def main():
    mode, isvp = sys.argv[1], sys.argv[2]
    if mode == "same":
        same(isvp, sys.argv[3], sys.argv[4:])
    elif mode == "same-pingpong":
        same(isvp, sys.argv[3], sys.argv[4:], "pingpong")
    elif mode == "same-run":
        same_run(isvp, sys.argv[3], sys.argv[4], sys.argv[5:])
    elif mode == "killed-run":
        killed_run(isvp, sys.argv[3:])
    elif mode == "same-pingpong-json":
        same_pingpong_json(isvp, sys.argv[3], sys.argv[4], sys.argv[5:])
    elif mode == "noise":
        noise(isvp, sys.argv[3], sys.argv[4:])
    elif mode == "auto":
        auto(isvp, sys.argv[3], sys.argv[4], sys.argv[5:])
    elif mode == "auto-fewer":
        auto(isvp, sys.argv[3], sys.argv[4], sys.argv[6:], reason=sys.argv[5])
    elif mode == "same-run-auto":
        same_run(isvp, "auto", sys.argv[4], sys.argv[5:], switches=sys.argv[3])
    elif mode == "closed-stdout":
        closed_stdout(isvp, sys.argv[3:])
    elif mode == "whole-lines":
        whole_lines(isvp, sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    elif mode == "own-mpiexec-auto":
        own_mpiexec_auto(isvp, sys.argv[3:])
    elif mode == "same-own-mpiexec":
        same(isvp, sys.argv[3], sys.argv[4:], own_mpiexec=True)
    elif mode == "killed":
        killed(isvp, sys.argv[3:])
    elif mode == "killed-stuck-launcher":
        killed(isvp, sys.argv[3:], stuck_launcher=True)
    elif mode == "failed":
        failed(isvp, sys.argv[3:])
    elif mode == "platform-error":
        platform_error(isvp, sys.argv[3:])
    elif mode == "terminated":
        terminated(isvp, sys.argv[3:])
    elif mode == "refused":
        refused(isvp, sys.argv[3], sys.argv[4:])
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
