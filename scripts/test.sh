#!/usr/bin/env bash
# Builds ironbench and runs its tests on each build:
#   release  the optimised build (CUDA code compiled too where the toolkit is installed): every test
#   asan     AddressSanitizer + UndefinedBehaviorSanitizer: every test
#   tsan     ThreadSanitizer: the threaded parts (telemetry sampler, serving client, serve-sim)
# Usage: scripts/test.sh [--slow] [release|asan|tsan ...]   (default: all three)
#   --slow   also run the long checks (ctest label "slow", docs/testing.md) on the release build
set -euo pipefail
cd "$(dirname "$0")/.."

slow=false
presets=()
for arg in "$@"; do
  if [[ $arg == --slow ]]; then slow=true; else presets+=("$arg"); fi
done
((${#presets[@]})) || presets=(release asan tsan)
jobs=$(nproc)
for preset in "${presets[@]}"; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
if $slow; then
  echo "== release: the slow checks (ctest label slow)"
  cmake --preset release
  cmake --build --preset release -j "$jobs"
  ctest --test-dir build/release -L slow --output-on-failure
fi
