#!/usr/bin/env bash
# Builds ironbench and runs its tests on each build:
#   release  the optimised build (CUDA code compiled too where the toolkit is installed): every
#            test, then scripts/lint.sh --changed (clang-format on every file, clang-tidy on the
#            files this change touched; both must pass; --slow runs clang-tidy on every file)
#   asan     AddressSanitizer + UndefinedBehaviorSanitizer: every test
#   tsan     ThreadSanitizer: the threaded parts (telemetry sampler, serving client, serve-sim,
#            experiments)
#   debug    the debug build of ironbench and the CLI tests (builds with -Werror too), and those
#            tests: with --slow, or when named
#   fuzz     every libFuzzer target (tests/fuzz/) for IRONBENCH_FUZZ_SECONDS (default 10) under
#            ASan/UBSan, two at a time, built with clang from the parsers' sources alone
#            (scripts/fuzz.sh; docs/reliability.md); a finding fails the run
# Usage: scripts/test.sh [--slow] [--no-lint] [release|asan|tsan|debug|fuzz ...]
#        (default: release, asan, tsan, fuzz; with --slow also debug)
#   --slow     also the debug build, and the long checks (ctest label "slow", docs/testing.md) on
#              the release build
#   --no-lint  leave out scripts/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."

slow=false
lint=true
presets=()
for arg in "$@"; do
  case $arg in
    --slow) slow=true ;;
    --no-lint) lint=false ;;
    *) presets+=("$arg") ;;
  esac
done
if ((${#presets[@]} == 0)); then
  presets=(release asan tsan fuzz)
  if $slow; then presets+=(debug); fi
fi
jobs=$(nproc)
for preset in "${presets[@]}"; do
  if [[ $preset == fuzz ]]; then
    # About three minutes on two cores: the clang build (1.5 min from scratch) and 13 targets
    # of 10 s two at a time; docs/testing.md has the measurement.
    echo "== fuzz: every parser's libFuzzer target under ASan/UBSan"
    status=0
    scripts/fuzz.sh --jobs "$jobs" all "${IRONBENCH_FUZZ_SECONDS:-10}" || status=$?
    # Without clang (Ubuntu 22.04 has no clang 16 packaged) the step is skipped, saying so.
    if ((status == 3)); then echo "== fuzz: skipped (no clang++ with libFuzzer)"; elif ((status != 0)); then exit "$status"; fi
    continue
  fi
  echo "== $preset: configure, build, test"
  if [[ $preset == release ]]; then
    # Unity mode (eight sources a translation unit: the headers parsed once for all eight) cuts
    # the build by a third on two cores; the asan and tsan presets set it themselves, and
    # scripts/lint.sh gives clang-tidy a per-file database (build/tidy). A plain
    # `cmake --preset release` stays per-file, for incremental builds.
    cmake --preset release -DCMAKE_UNITY_BUILD=ON
  else
    cmake --preset "$preset"
  fi
  if [[ $preset == debug ]]; then
    # The whole tree builds in release; debug checks that the same code compiles without
    # optimisation (other warnings) and that the command line works there.
    cmake --build --preset debug -j "$jobs" --target ironbench cli_tests
    ctest --preset debug -j "$jobs" -R '^CliOptions\.'
    continue
  fi
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
  if [[ $preset == release ]] && $lint; then
    echo "== lint: clang-format and clang-tidy"
    scripts/lint.sh --changed -j "$jobs"
  fi
done
if $slow; then
  echo "== release: the slow checks (ctest label slow)"
  cmake --preset release
  cmake --build --preset release -j "$jobs"
  ctest --test-dir build/release -L slow --output-on-failure
fi
