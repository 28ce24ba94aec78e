#!/usr/bin/env bash
# The main job on the default platform, from a fresh Debian 12 machine:
# installs dependencies, builds, then runs a short version of the collective
# sweep (scripts/sweep.py) on the default 4x4x4 torus: every collective
# (bcast, reduce, allreduce, scatter, gather, allgather, reduce_scatter,
# barrier) at 8 B, 1 KiB and 64 KiB per rank, offloaded to the switches and
# in host software, every result checked against a plain C++ reference, the
# LogGP model beside each figure. Leaves report.md, results.csv/json and PNG
# plots in results/<date-time>/ (also reachable as results/latest) and prints
# that folder. Extra arguments go to scripts/sweep.py, e.g. --sizes 8:1M.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
out="results/$(date +%Y%m%d-%H%M%S)"
/usr/bin/python3 scripts/sweep.py --isvp build/platform/isvp --out "$out" --nodes 4x4x4 --timing-only-nodes "" \
  --sizes 8,1K,64K --iterations 2 --check "$@"
ln -sfn "$(basename "$out")" results/latest
echo "report: $out/report.md (plots beside it; results/latest points there)"
