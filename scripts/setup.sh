#!/usr/bin/env bash
# Installs every Debian/Ubuntu package ironbench needs to build and test.
# Works on Debian 12 and Ubuntu 22.04 or newer, as root or through sudo.
#   scripts/setup.sh            build and test dependencies
#   scripts/setup.sh --dry-run  print the package list and exit
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libopenblas-openmp-dev   # GEMM provider on the CPU (OpenMP threading, like the STREAM kernels)
  libcli11-dev             # command line
  nlohmann-json3-dev       # JSON results
  libfmt-dev               # formatting
  libgtest-dev             # tests
)

if [[ "${1:-}" == "--dry-run" ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi

run_as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}
echo "setup: installing ${missing[*]}"
run_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
run_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
