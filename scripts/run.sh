#!/usr/bin/env bash
# The main job on the default platform, from a fresh Debian 12 machine:
# installs dependencies, builds, then sweeps every collective (bcast, reduce,
# allreduce, scatter, gather, allgather, reduce_scatter, barrier) from 8 B to
# 64 KiB per rank on the default 4x4x4 torus with offload to the switches,
# checking every result against a plain C++ reference, and prints the latency
# table (OSU style: max over ranks). Extra arguments go to
# `isvp bench collectives`, e.g. --offload off for the software baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
exec ./build/platform/isvp bench collectives --sizes 8:64K --iterations 2 --check "$@"
