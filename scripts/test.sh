#!/usr/bin/env bash
# Builds ironbench and runs its tests on each build:
#   release  the optimised build (CUDA code compiled too where the toolkit is installed): every test
#   asan     AddressSanitizer + UndefinedBehaviorSanitizer: every test
#   tsan     ThreadSanitizer: the threaded parts (telemetry sampler, serving client, serve-sim)
# Usage: scripts/test.sh [release|asan|tsan ...]   (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."

presets=("$@")
((${#presets[@]})) || presets=(release asan tsan)
jobs=$(nproc)
for preset in "${presets[@]}"; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
