#!/usr/bin/env bash
# prefetches_kept.sh BINARY SYMBOL... : each function (mangled name) holds
# at least one prefetch instruction. GCC drops every call to a function that
# only prefetches (it finds no side effect), which once left the wake-up
# scheduler's process without its prefetches and the 512-node bench ~10 %
# slower with every figure unchanged (docs/PERFORMANCE.md, "Session 31").
set -uo pipefail
binary=$1; shift
failed=0
for symbol in "$@"; do
  count=$(objdump -d --no-show-raw-insn "$binary" | awk -v s="<$symbol>:" '$2 == s {on=1; next} on && /^$/ {exit} on' | grep -c prefetch)
  if [[ "$count" -gt 0 ]]; then echo "ok   $symbol: $count prefetch instructions"; else echo "FAIL $symbol: no prefetch instruction"; failed=1; fi
done
if ((failed)); then echo "0 passed, 1 failed"; exit 1; fi
echo "1 passed, 0 failed"
