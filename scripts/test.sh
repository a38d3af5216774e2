#!/usr/bin/env bash
# Builds ironbench and runs its tests on each build:
#   release  the optimised build (CUDA code compiled too where the toolkit is installed): its
#            tests, then scripts/lint.sh --changed (clang-format on every file, clang-tidy on the
#            files this change touched; both must pass; --slow runs clang-tidy on every file)
#   asan     AddressSanitizer + UndefinedBehaviorSanitizer: its tests
#            With both release and asan (the default), each test runs once: those that
#            tests/release_only.txt names (wall-clock and peak-memory judgements, four ranks,
#            libtorch) in release, every other one under the sanitizers; alone, a stage runs all.
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
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
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

# The tests that run in release only when asan runs too (tests/release_only.txt: one regex a
# line, comments and blank lines left out).
release_only=$(grep -v -E '^[[:space:]]*(#|$)' tests/release_only.txt | paste -s -d '|')
split=false
if [[ " ${presets[*]} " == *" release "* && " ${presets[*]} " == *" asan "* ]]; then split=true; fi

# build_stage PRESET: configures and builds one stage (fuzz: the clang build of the targets).
build_stage() {
  local preset=$1
  if [[ $preset == fuzz ]]; then
    # Without clang (Ubuntu 22.04 has no clang 16 packaged) the fuzz stage is skipped (exit 3).
    scripts/fuzz.sh --build-only all
    return
  fi
  if [[ $preset == release ]]; then
    # Unity mode (16 sources a translation unit, CMakeLists.txt's CMAKE_UNITY_BUILD_BATCH_SIZE:
    # the headers parsed once for all 16) cuts the build by a third and more on two cores; the
    # asan and tsan presets set it themselves, and
    # scripts/lint.sh gives clang-tidy a per-file database (build/tidy). A plain
    # `cmake --preset release` stays per-file, for incremental builds.
    cmake --preset release -DCMAKE_UNITY_BUILD=ON
  else
    cmake --preset "$preset"
  fi
  if [[ $preset == release ]] && $split; then
    # Every other test runs under the sanitizers: release builds what its tests need.
    cmake --build --preset release -j "$jobs" --target ironbench release_checks
  elif [[ $preset == debug ]]; then
    # The whole tree builds in release; debug checks that the same code compiles without
    # optimisation (other warnings) and that the command line works there.
    cmake --build --preset debug -j "$jobs" --target ironbench cli_tests
  else
    cmake --build --preset "$preset" -j "$jobs"
  fi
}

# An internal mode: the background builds below run this script again for each later stage.
if [[ ${presets[0]:-} == --build-stages ]]; then
  for preset in "${presets[@]:1}"; do
    status=0
    build_stage "$preset" > "build/stages/$preset.log" 2>&1 || status=$?
    echo "$status" > "build/stages/$preset.status"
    ((status == 0 || status == 3)) || exit "$status"
  done
  exit 0
fi

# test_stage PRESET: runs one built stage's tests (fuzz: every target).
test_stage() {
  local preset=$1
  case $preset in
    fuzz)
      # About two minutes on two cores: 15 targets of 10 s two at a time (docs/testing.md).
      scripts/fuzz.sh --jobs "$jobs" all "${IRONBENCH_FUZZ_SECONDS:-10}" ;;
    debug) ctest --preset debug -j "$jobs" -R '^CliOptions\.' ;;
    release | asan)
      local only=()
      if $split && [[ $preset == release ]]; then only=(-R "$release_only"); fi
      if $split && [[ $preset == asan ]]; then only=(-E "$release_only"); fi
      ctest --preset "$preset" -j "$jobs" "${only[@]}"
      if $split && [[ $preset == asan ]]; then
        check_release_only_skips
        check_release_only_built
      fi
      if [[ $preset == release ]] && $lint; then
        echo "== lint: clang-format and clang-tidy"
        scripts/lint.sh --changed -j "$jobs"
      fi ;;
    *) ctest --preset "$preset" -j "$jobs" ;;
  esac
}

# check_release_only_skips: fails when a test skipped under the sanitizers for the release build
# ("... in the release build") is not in tests/release_only.txt: with the split, it ran nowhere.
check_release_only_skips() {
  local missing
  missing=$(awk '/^[0-9]+\/[0-9]+ Testing: /{name=$3} /\[  SKIPPED \]/{skipped[name]=1}
                 /release build/{release[name]=1}
                 END{for (n in skipped) if (n in release) print n}' build/asan/Testing/Temporary/LastTest.log |
    grep -v -E "$release_only" || true)
  if [[ -n $missing ]]; then
    echo "these tests skip under the sanitizers for the release build, which does not run them:" \
      "add them to tests/release_only.txt:" "${missing//$'\n'/ }" >&2
    return 1
  fi
}

# check_release_only_built: fails when a test of tests/release_only.txt that the asan build has
# is missing from the release build (its executable is not a dependency of release_checks).
check_release_only_built() {
  local missing
  missing=$(comm -23 <(list_release_only asan) <(list_release_only release))
  if [[ -n $missing ]]; then
    echo "tests/release_only.txt names tests the release build did not build: add their executables to" \
      "release_checks (tests/CMakeLists.txt):" "${missing//$'\n'/ }" >&2
    return 1
  fi
}

# list_release_only BUILD: the tests of build/BUILD that tests/release_only.txt names, sorted.
list_release_only() {
  (cd "build/$1" && ctest -N -R "$release_only" | awk '/Test +#[0-9]+:/{print $3}' | sort)
}

# The stages overlap: while one stage's tests run, the later stages build in one background
# chain at the lowest CPU priority (nice 19), in the time the tests leave the cores idle
# (tests wait on servers, ranks and timers); a test that judges time meets less load from it
# than the two busy loops its tolerance was measured beside (docs/testing.md). While no tests
# run, the chain builds at normal priority. A stage starts its tests once its build is done; a
# build that failed stops the run with its log.
mkdir -p build/stages
rm -f build/stages/*.status
chain=""
stop_chain() { if [[ -n $chain ]]; then kill -- "-$chain" 2> /dev/null || true; fi; }
# chain_priority NICE: the background chain's niceness: every process of its session (ninja
# starts each compiler in a process group of its own), and so what they start later. Lowering
# it back to 0 needs root (CAP_SYS_NICE): elsewhere it stays at 19.
chain_priority() {
  local pids
  if [[ -n $chain ]]; then
    mapfile -t pids < <(ps -o pid= -s "$chain" 2> /dev/null)
    if ((${#pids[@]})); then renice -n "$1" -p "${pids[@]}" > /dev/null 2>&1 || true; fi
  fi
}
trap stop_chain EXIT
echo "== ${presets[0]}: configure, build"
status=0
build_stage "${presets[0]}" || status=$?
echo "$status" > "build/stages/${presets[0]}.status"
if ((status != 0)) && ! [[ ${presets[0]} == fuzz && $status == 3 ]]; then
  exit "$status"
fi
if ((${#presets[@]} > 1)); then
  setsid nice -n 19 "$self" --build-stages "${presets[@]:1}" < /dev/null > build/stages/chain.log 2>&1 &
  chain=$!
fi
first=true
for preset in "${presets[@]}"; do
  if $first; then
    first=false
    if [[ $preset == fuzz && $(< build/stages/fuzz.status) == 3 ]]; then
      echo "== fuzz: skipped (no clang++ with libFuzzer)"
      continue
    fi
  else
    echo "== $preset: its build (started in the background)"
    # Nothing of ours runs meanwhile: the build gets the cores at normal priority (at nice 19
    # it would get almost nothing beside other busy work on the machine).
    chain_priority 0
    while [[ ! -f build/stages/$preset.status ]]; do
      if ! kill -0 "$chain" 2> /dev/null && [[ ! -f build/stages/$preset.status ]]; then
        echo "the background build stopped before $preset (build/stages/chain.log):" >&2
        tail -n 40 build/stages/chain.log >&2
        exit 1
      fi
      sleep 2
    done
    status=$(< "build/stages/$preset.status")
    if [[ $preset == fuzz && $status == 3 ]]; then
      echo "== fuzz: skipped (no clang++ with libFuzzer)"
      continue
    fi
    if ((status != 0)); then
      grep -E -B2 -A8 'error|FAILED' "build/stages/$preset.log" | head -n 80 >&2 || tail -n 60 "build/stages/$preset.log" >&2
      echo "== $preset: the build failed (exit $status; the whole log: build/stages/$preset.log)" >&2
      exit "$status"
    fi
    tail -n 1 "build/stages/$preset.log"
  fi
  echo "== $preset: test"
  chain_priority 19
  test_stage "$preset"
done
if $slow; then
  echo "== release: the slow checks (ctest label slow)"
  cmake --preset release
  cmake --build --preset release -j "$jobs"
  ctest --test-dir build/release -L slow --output-on-failure
fi
