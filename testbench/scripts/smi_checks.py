#!/usr/bin/env python3
"""Checks around `isvp bench smi` (testbench/cmake/smi.cmake).

  smi_checks.py deterministic ISVP ARGS...   two runs print the same rows and checks
  smi_checks.py refused ISVP TEXT ARGS...    the command fails with TEXT in its error
"""
import subprocess
import sys


def run(isvp, args):
    return subprocess.run([isvp, "bench", "smi", *args], capture_output=True, text=True, timeout=280)


def rows(output):
    # Everything but the wall-clock line.
    return [line for line in output.splitlines() if not line.startswith("# simulated")]


def main():
    mode, isvp = sys.argv[1], sys.argv[2]
    if mode == "deterministic":
        first, second = run(isvp, sys.argv[3:]), run(isvp, sys.argv[3:])
        if first.returncode or second.returncode:
            print(first.stdout, first.stderr, second.stdout, second.stderr)
            return 1
        if rows(first.stdout) != rows(second.stdout):
            print("runs differ:\n" + first.stdout + "\n---\n" + second.stdout)
            return 1
        simulated = [l for l in first.stdout.splitlines() if l.startswith("# simulated")]
        simulated2 = [l for l in second.stdout.splitlines() if l.startswith("# simulated")]
        if [l.split(" in ")[0] for l in simulated] != [l.split(" in ")[0] for l in simulated2]:
            print("simulated times differ:", simulated, simulated2)
            return 1
        print("\n".join(rows(first.stdout)))
        return 0
    if mode == "refused":
        text = sys.argv[3]
        result = run(isvp, sys.argv[4:])
        if result.returncode == 0 or text not in result.stderr + result.stdout:
            print("expected a refusal naming:", text, "\ngot:", result.returncode, result.stdout, result.stderr)
            return 1
        print(result.stderr.strip())
        return 0
    print("unknown mode", mode)
    return 2


if __name__ == "__main__":
    sys.exit(main())
