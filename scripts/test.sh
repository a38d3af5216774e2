#!/usr/bin/env bash
# Builds ironbench twice and runs the whole test suite on each build:
#   release  the optimised build (CUDA code compiled too where the toolkit is installed)
#   asan     AddressSanitizer + UndefinedBehaviorSanitizer
# Usage: scripts/test.sh [release|asan ...]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."

presets=("$@")
((${#presets[@]})) || presets=(release asan)
jobs=$(nproc)
for preset in "${presets[@]}"; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
