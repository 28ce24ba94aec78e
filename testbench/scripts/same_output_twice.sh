#!/usr/bin/env bash
# Runs a command twice and requires both runs to succeed with identical,
# non-empty output (lines sorted, since ranks print concurrently): the
# simulator is deterministic, simulated times included.
set -uo pipefail
first=$("$@" 2>&1 | sort) || { echo "first run failed:"; echo "$first"; echo "0 passed, 1 failed"; exit 1; }
second=$("$@" 2>&1 | sort) || { echo "second run failed:"; echo "$second"; echo "0 passed, 1 failed"; exit 1; }
if [[ -z "$first" ]]; then echo "no output"; echo "0 passed, 1 failed"; exit 1; fi
if [[ "$first" != "$second" ]]; then
  echo "runs differ:"; diff <(echo "$first") <(echo "$second"); echo "0 passed, 1 failed"; exit 1
fi
echo "$first"
echo "1 passed, 0 failed"
