#!/usr/bin/env bash
# The main job on the default platform, from a fresh Debian 12 machine:
# installs dependencies, builds, then runs the AgLU demonstration (the TLM and
# the RTL AgLU reduce the same operands for every supported pair and are
# compared). Extra arguments go to `isvp aglu`, e.g. --vectors 100000.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
exec ./build/platform/isvp aglu "$@"
