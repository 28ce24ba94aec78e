#!/usr/bin/env bash
# The test suite from a fresh Debian 12 machine: installs dependencies,
# builds, runs every CTest test. ISVP_LONG_TESTS=1 adds the long regression
# tier. Extra arguments go to ctest, e.g. -R aglu.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
long=OFF
[[ ${ISVP_LONG_TESTS:-0} == 1 ]] && long=ON
./scripts/build.sh -DISVP_LONG_TESTS="$long"
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
