#!/usr/bin/env python3
"""Builds MPICH's own test programs against isvp's MPI shim and runs them.

MPICH's test suite (test/mpi in an MPICH source tree; not part of isvp) is
the broadest conformance check of an MPI library there is. This script
compiles the programs of the chosen folders unchanged with isvp-mpicc,
runs each testlist entry with `isvp run` (but those MPICH marks xfail and
those that need a configure-time feature: counted as not run), and reports per folder how many
built, how many passed ("No Errors" and exit status 0), and why the others
did not. It answers "how much of what an MPI code base uses works here?".

    scripts/mpich_tests.py --tests ~/mpich/test/mpi                 # default folders
    scripts/mpich_tests.py --tests DIR --folders comm,topo --jobs 2 --offload off
    scripts/mpich_tests.py --tests DIR --only comm/ic1,coll/allred --verbose

Programs that need MPICH's datatype pool (dtpools) or a Fortran compiler
are counted as "not built". The configure-generated headers mtest needs
(mpitestconf.h, mtest_mpix.h) are written into the work directory.
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import time

# What a passing MPICH test prints (runtests accepts either case of "errors").
NO_ERRORS = re.compile(r"^\s*No [Ee]rrors\s*$", re.M)
DEFAULT_FOLDERS = "coll,comm,pt2pt,datatype,group,init,topo,errhan,attr"

# What mtest's configure would have found on a Debian 12 machine.
MPITESTCONF = """\
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_INT64_T 1
#define HAVE_UINT64_T 1
#define HAVE_STDINT_H 1
#define HAVE_MPI_INTEGER16 1
#define HAVE_INTTYPES_H 1
#define HAVE_PTHREAD_H 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define USE_STRICT_MPI 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_VOID_P 8
"""


def parse_testlist(folder: pathlib.Path, left_out: dict):
    """Yields (name, ranks, args, env, result test, time limit) for each
    runnable testlist entry (the result test as MPICH's runtests names it:
    "" for the normal one);
    counts in left_out[folder name] the entries it does not run: those
    marked xfail (MPICH expects them to fail on itself) and those that
    depend on a configure substitution (an optional feature)."""
    for listname in ("testlist", "testlist.in"):
        path = folder / listname
        if path.exists():
            break
    else:
        return
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "@" in line:  # configure substitutions: optional features
            left_out.setdefault(folder.name, {}).setdefault("configure-only", 0)
            left_out[folder.name]["configure-only"] += 1
            continue
        words = line.split()
        if len(words) < 2 or not words[1].isdigit():
            continue  # a sub-folder or a malformed line
        name, ranks, args, env = words[0], int(words[1]), [], {}
        result_test, time_limit = "", None
        for option in words[2:]:
            key, _, value = option.partition("=")
            if key == "arg":
                args.append(value)
            elif key == "resultTest":
                result_test = value
            elif key == "timeLimit":
                time_limit = float(value)
            elif key == "env":
                k, _, v = value.partition("=")
                env[k] = v
            elif key == "xfail":
                env = None  # known to fail even under MPICH: not run
                left_out.setdefault(folder.name, {}).setdefault("xfail", 0)
                left_out[folder.name]["xfail"] += 1
                break
        if env is not None:
            yield name, ranks, args, env, result_test, time_limit


def compile_program(mpicc, include, work, library, source, output):
    command = [mpicc, "-O1", "-w", f"-I{include}", f"-I{work}", str(source), str(library), "-o", str(output), "-lm"]
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode == 0, result.stderr


def classify_failure(output: str, status: int, timed_out: bool) -> str:
    if timed_out:
        return "timeout"
    match = re.search(r"(MPI_\w+)[^\n]*(not supported|unsupported)", output)
    if match:
        return f"unsupported {match.group(1)}"
    if "deadlock" in output:
        return "deadlock"
    if status == 0:
        return "wrong output"
    return f"exit {status}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", required=True, type=pathlib.Path, help="MPICH's test/mpi folder")
    parser.add_argument("--folders", default=DEFAULT_FOLDERS, help=f"comma-separated (default {DEFAULT_FOLDERS})")
    parser.add_argument("--only", default="", help="comma-separated folder/name entries to run, e.g. comm/ic1")
    parser.add_argument("--build", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent / "build")
    parser.add_argument("--work", type=pathlib.Path, help="where programs are built (default: a temporary folder)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=120.0, help="wall seconds per run (default 120)")
    parser.add_argument("--max-ranks", type=int, default=16, help="skip entries with more ranks (default 16)")
    parser.add_argument("--offload", choices=("on", "off"), default="on")
    parser.add_argument("--json", type=pathlib.Path, help="write every entry's result here")
    parser.add_argument("--verbose", action="store_true", help="print each entry's result and failing output")
    options = parser.parse_args()

    tests = options.tests.resolve()
    isvp = options.build / "platform" / "isvp"
    mpicc = options.build / "bin" / "isvp-mpicc"
    for path, what in ((tests / "util" / "mtest.c", "MPICH's test/mpi folder"), (isvp, "the isvp build"), (mpicc, "isvp-mpicc")):
        if not path.exists():
            sys.exit(f"mpich_tests: {path} not found: is {what} there? (build with scripts/build.sh)")
    if options.json and not os.access(options.json.parent, os.W_OK):  # before the runs, not after them
        sys.exit(f"mpich_tests: --json {options.json}: cannot write in {options.json.parent}")
    work = options.work or pathlib.Path(tempfile.mkdtemp(prefix="isvp-mpich-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "mpitestconf.h").write_text(MPITESTCONF)
    (work / "mtest_mpix.h").write_text("/* no MPIX extensions in isvp */\n")

    # MPICH's util/ as one static archive, as its build makes libmtest,
    # libmtest_single, libdtypes and librun_mpitests: a program pulls in what
    # it uses (run_mpitests.c's main only where the program defines run()).
    include = tests / "include"
    objects = []
    for util in ("mtest.c", "mtest_common.c", "mtest_single.c", "dtypes.c", "run_mpitests.c"):
        obj = work / (util + ".o")
        result = subprocess.run([mpicc, "-c", "-O1", "-w", f"-I{include}", f"-I{work}", tests / "util" / util, "-o", obj],
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"mpich_tests: util/{util} does not compile against isvp's mpi.h:\n{result.stderr[-3000:]}")
        objects.append(str(obj))
    library = work / "libmtest.a"
    library.unlink(missing_ok=True)
    subprocess.run(["ar", "rcs", library, *objects], check=True)

    only = {entry for entry in options.only.split(",") if entry}
    entries, left_out = [], {}
    for folder in options.folders.split(","):
        for name, ranks, args, env, result_test, time_limit in parse_testlist(tests / folder, left_out):
            if only and f"{folder}/{name}" not in only:
                continue
            entries.append((folder, name, ranks, args, env, result_test, time_limit))

    built = {}

    def build(folder, name):
        key = (folder, name)
        if key not in built:
            source = tests / folder / f"{name}.c"
            output = work / folder / name
            output.parent.mkdir(exist_ok=True)
            if not source.exists():
                built[key] = (False, "no C source (C++, Fortran or several sources)")
            else:
                built[key] = compile_program(mpicc, include, work, library, source, output)
        return built[key]

    def run(entry):
        folder, name, ranks, args, env, result_test, time_limit = entry
        ok, error = build(folder, name)
        if not ok:
            first = next((line for line in error.splitlines() if "error" in line), error.strip()[:200])
            return entry, "not built", first
        if ranks > options.max_ranks:
            return entry, "skipped", f"{ranks} ranks"
        limit = min(options.timeout, time_limit) if time_limit else options.timeout
        command = [str(isvp), "run", "-n", str(ranks), "--offload", options.offload,
                   "--timeout", str(max(1, int(limit))), "--", str(work / folder / name), *args]
        started = time.monotonic()
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=options.timeout + 30,
                                    env={**os.environ, **env}, cwd=work / folder)
            output, status, timed_out = result.stdout + result.stderr, result.returncode, result.returncode == 124
        except subprocess.TimeoutExpired as expired:
            output, status, timed_out = str(expired.stdout or "") + str(expired.stderr or ""), -1, True
        wall = time.monotonic() - started
        # MPICH's runtests: TestStatus and TestErrFatal pass when the job
        # fails (the program checks that a failing rank fails the job),
        # TestStatusNoErrors when it fails after printing "No Errors".
        if result_test in ("TestStatus", "TestErrFatal") and status != 0:
            return entry, "passed", f"{wall:.1f} s, status {status} as expected"
        if result_test == "TestStatusNoErrors" and status != 0 and NO_ERRORS.search(output) is not None:
            return entry, "passed", f"{wall:.1f} s, status {status} as expected"
        if result_test not in ("TestStatus", "TestErrFatal", "TestStatusNoErrors") and status == 0:
            if NO_ERRORS.search(output) is not None:
                return entry, "passed", f"{wall:.1f} s"
            if "Test Skipped" in output:
                return entry, "skipped", "the program skipped itself"
        return entry, classify_failure(output, status, timed_out), output[-1500:]

    # Build serially (programs share util objects and folders), run in parallel.
    for folder, name, *_ in entries:  # (folder, name, ranks, args, env, result test, time limit)
        build(folder, name)
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        for done, (entry, outcome, detail) in enumerate(pool.map(run, entries), 1):
            folder, name, ranks, args = entry[:4]
            results.append({"test": f"{folder}/{name}", "ranks": ranks, "args": args, "outcome": outcome,
                            "detail": detail})
            if options.verbose:
                print(f"{folder}/{name} -n {ranks} {' '.join(args)}: {outcome}"
                      + (f"\n    {detail.strip()[-600:]}" if outcome not in ("passed", "skipped") else ""))
            else:
                print(f"\r{done}/{len(entries)} run", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    print(f"{'folder':<10} {'entries':>7} {'built':>6} {'passed':>6}  failures; not run")
    for folder in options.folders.split(","):
        rows = [r for r in results if r["test"].startswith(folder + "/")]
        if not rows:
            continue
        causes = {}
        for r in rows:
            if r["outcome"] not in ("passed", "not built", "skipped"):
                cause = r["outcome"].split()[0] if not r["outcome"].startswith("unsupported") else "unsupported"
                causes[cause] = causes.get(cause, 0) + 1
        built_rows = [r for r in rows if r["outcome"] != "not built"]
        passed = sum(r["outcome"] == "passed" for r in rows)
        skipped = left_out.get(folder, {})
        print(f"{folder:<10} {len(rows):>7} {len(built_rows):>6} {passed:>6}  "
              + ", ".join(f"{k} {v}" for k, v in sorted(causes.items()))
              + ("; " + ", ".join(f"{k} {v}" for k, v in sorted(skipped.items())) if skipped else ""))
    total = len(results)
    passed = sum(r["outcome"] == "passed" for r in results)
    not_run = sum(sum(counts.values()) for counts in left_out.values())
    print(f"total: {passed} of {total} entries passed ({sum(r['outcome'] == 'not built' for r in results)} not built; "
          f"{not_run} more entries not run: xfail in MPICH or configure-only)")
    if options.json:
        options.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
