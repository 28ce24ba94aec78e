#!/usr/bin/env bash
# Configures and builds isvp into ./build (extra arguments go to cmake's
# configure step, e.g. -DISVP_LONG_TESTS=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build "$@"
cmake --build build -j "$(nproc)"
