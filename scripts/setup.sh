#!/usr/bin/env bash
# Installs every build and run dependency of isvp from Debian 12 packages.
# Idempotent: packages already installed are skipped, and apt is not touched
# at all when nothing is missing. Runs apt-get through sudo when not root.
set -euo pipefail

packages=(
  g++ make cmake pkg-config           # toolchain
  libsystemc-dev                      # SystemC 2.3 with TLM-2.0
  verilator                           # Verilator 5: the RTL AgLU
  libboost-dev libboost-program-options-dev
  libboost-context-dev                # local ranks as fibers (job.ranks=fibers)
  catch2                              # unit tests (v2)
  nlohmann-json3-dev                  # configuration and statistics
  python3-matplotlib                  # benchmark plots
  gdb                                 # debugging a guest rank (docs/DEBUGGING.md, the debug_rank_* tests)
  libopenmpi-dev openmpi-bin          # distributed simulation: partitions over MPI (docs/PARTITIONS.md)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} Debian packages present"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
