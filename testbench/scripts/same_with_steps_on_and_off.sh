#!/usr/bin/env bash
# Runs a testbench with `off` and `on` (the fabric's scheduler taking
# SystemC's time steps itself, or not) and requires both to pass with the
# same output up to the line "activations: N": the same simulation, to the
# delta cycle.
set -uo pipefail
off=$("$1" off 2>&1) || { echo "off failed:"; echo "$off"; echo "0 passed, 1 failed"; exit 1; }
on=$("$1" on 2>&1) || { echo "on failed:"; echo "$on"; echo "0 passed, 1 failed"; exit 1; }
cut() { sed -n '1,/^activations: /p' <<<"$1"; }
if [[ "$(cut "$off")" != "$(cut "$on")" ]]; then
  echo "the runs differ:"; diff <(cut "$off") <(cut "$on") | head -40; echo "0 passed, 1 failed"; exit 1
fi
grep -E "^activations|^steps taken|^ok|^FAIL" <<<"$on"
echo "1 passed, 0 failed"
