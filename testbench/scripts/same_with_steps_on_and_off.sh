#!/usr/bin/env bash
# Runs a testbench with `off`, `on` and `traced` (the fabric's scheduler
# taking SystemC's time steps itself or not; on, with a trace being
# written) and requires all three to pass with the same output up to the
# line "activations: N": the same simulation, to the delta cycle.
set -uo pipefail
upto_activations() { sed -n '1,/^activations: /p' <<<"$1"; }
off=$("$1" off 2>&1) || { echo "off failed:"; echo "$off"; echo "0 passed, 1 failed"; exit 1; }
for mode in on traced; do
  out=$("$1" "$mode" 2>&1) || { echo "$mode failed:"; echo "$out"; echo "0 passed, 1 failed"; exit 1; }
  if [[ "$(upto_activations "$off")" != "$(upto_activations "$out")" ]]; then
    echo "off and $mode differ:"; diff <(upto_activations "$off") <(upto_activations "$out") | head -40
    echo "0 passed, 1 failed"; exit 1
  fi
  echo "$mode:"; grep -E "^activations|^steps taken|^ok|^FAIL" <<<"$out"
done
echo "1 passed, 0 failed"
