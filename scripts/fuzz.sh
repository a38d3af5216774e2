#!/usr/bin/env bash
# Builds the libFuzzer targets of ironbench's parsers (tests/fuzz/, docs/reliability.md) with
# clang under AddressSanitizer and UndefinedBehaviorSanitizer, and runs them.
# Usage: scripts/fuzz.sh [--runs N] [--jobs J] [--workers W] [--build-dir DIR] [--merge] [--list] [--build-only] TARGET|all [SECONDS]
#   TARGET     a target's name (scripts/fuzz.sh --list names them), or "all"
#   SECONDS    how long each target runs (default 60); with --runs, at most this long (default
#              no limit)
#   --runs N   stop each target after N inputs (e.g. 10000000 for docs/reliability.md's runs)
#   --jobs J   targets run at a time (default 1)
#   --workers W  processes per target (default 1), fuzzing one corpus together (each picks up
#              what the others add): each runs N/W of --runs, the summary adds them up; one
#              target's long run on every core
#   --build-dir DIR  the clang build (default build/fuzz); each target's corpus grows in
#              DIR/corpus/TARGET from one run to the next, its findings land in DIR/findings/TARGET
#   --build-only  build the targets and stop (scripts/test.sh builds them while other tests run)
#   --merge    first shrink each target's corpus to the inputs that add coverage (libFuzzer's
#              -merge=1), then fuzz as asked: a corpus grown by long runs is read whole before
#              the SECONDS start (chat_template's 39,262 files after a 10-million-input run: 87 s
#              for a 5-s run; 22 s once merged to 5,004)
# Only the parsers' sources are compiled (cmake -S tests/fuzz), not the project. Prints the
# executions, their rate and the findings of every target (each finding's input in base64 too,
# up to 8 KiB: a finding in CI replays from its log); exits 1 when a target found a crash, a
# sanitizer report, an uncaught exception, a hang (an input over 10 s) or a leak; 3 when no
# clang++ is installed; 4 when a run was interrupted (SIGINT, SIGTERM) before its end without a
# finding.
# A finding's input goes into tests/fuzz/regressions/TARGET/ once fixed: ctest replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

runs=""
jobs=1
workers=1
build=build/fuzz
list=false
merge=false
build_only=false
positional=()
# usage [WHAT'S WRONG]: the one-line error, then the usage line; exit 2.
usage() {
  [[ -n ${1:-} ]] && echo "fuzz: $1" >&2
  echo "usage: scripts/fuzz.sh [--runs N] [--jobs J] [--workers W] [--build-dir DIR] [--merge] [--list] [--build-only] TARGET|all [SECONDS]" >&2
  exit 2
}
while (($#)); do
  case $1 in
    --runs | --jobs | --workers | --build-dir)
      (($# >= 2)) || usage "$1 needs a value"
      case $1 in
        --runs) runs=$2 ;;
        --jobs) jobs=$2 ;;
        --workers) workers=$2 ;;
        --build-dir) build=$2 ;;
      esac
      shift ;;
    --merge) merge=true ;;
    --build-only) build_only=true ;;
    --list) list=true ;;
    -h|--help) usage ;;
    -*) usage "unknown option '$1'" ;;
    *) positional+=("$1") ;;
  esac
  shift
done
[[ ${#positional[@]} -ge 1 || $list == true ]] || usage "no target named (scripts/fuzz.sh --list names them)"
((${#positional[@]} <= 2)) || usage "one target and one duration, not '${positional[*]}'"
target=${positional[0]:-all}
seconds=${positional[1]:-}
[[ -z $seconds && -z $runs ]] && seconds=60
[[ -z $seconds || $seconds =~ ^[0-9]+$ ]] || usage "SECONDS is a whole number of seconds, not '$seconds'"
[[ -z $runs || $runs =~ ^[0-9]+$ ]] || usage "--runs is a whole number of inputs, not '$runs'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage "--jobs is a count from 1, not '$jobs'"
[[ $workers =~ ^[1-9][0-9]*$ ]] || usage "--workers is a count from 1, not '$workers'"

cxx=$(command -v clang++-16 || command -v clang++-15 || command -v clang++ || true)
if [[ -z $cxx ]]; then
  echo "fuzz: no clang++ with libFuzzer (apt install clang-16 libclang-rt-16-dev; scripts/setup.sh does where the distribution has it)" >&2
  exit 3
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [[ ! -f $build/build.ninja ]]; then
  cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" >/dev/null
fi
mapfile -t table < <(cmake -S tests/fuzz -B "$build" >/dev/null && cat "$build/fuzz_targets.txt")
names=()
for line in "${table[@]}"; do names+=("${line%% *}"); done
if $list; then printf '%s\n' "${names[@]}"; exit 0; fi
if [[ $target == all ]]; then
  selected=("${names[@]}")
elif printf '%s\n' "${names[@]}" | grep -x -- "$target" >/dev/null; then
  selected=("$target")
else
  echo "fuzz: unknown target '$target' (known: ${names[*]})" >&2
  exit 2
fi

started=$(date +%s)
# The build's output is shown only when it fails (a target that no longer links, say).
if ! cmake --build "$build" -j "$(nproc)" --target "${selected[@]/%/_fuzz}" >"$build/fuzz-build.log" 2>&1; then
  grep -E -B2 -A6 'error|FAILED' "$build/fuzz-build.log" | head -n 60 >&2
  echo "fuzz: building the targets failed (the whole log: $build/fuzz-build.log)" >&2
  exit 1
fi
echo "fuzz: built ${#selected[@]} targets with $cxx in $(($(date +%s) - started)) s"
if $build_only; then exit 0; fi

# Leaks are findings; the libraries' own (yaml-cpp, PCRE2's JIT) are not ironbench's.
# Stack use after return is not checked: the parsers answer bad input by throwing, and every
# throw makes clang's runtime sweep its fake stacks (FakeStack::GC, 88 % of the units target's
# time, 2,700 inputs a second instead of 48,000). The ASan build of the project checks the rest.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/sanitizers/lsan.supp}

# merge_corpus TARGET MAX_LEN DIR: replaces DIR by the smallest set of its inputs that reaches
# the same coverage (libFuzzer's -merge=1 into a new directory), and says how many remain.
merge_corpus() {
  local name=$1 max_len=$2 dir=$3 before after
  before=$(find "$dir" -type f | wc -l)
  rm -rf "$dir.merging"
  mkdir -p "$dir.merging"
  if ! "$build/${name}_fuzz" -merge=1 -max_len="$max_len" -timeout=10 -rss_limit_mb=2560 \
    "$dir.merging" "$dir" > "$build/logs/$name.merge.log" 2>&1; then
    rm -rf "$dir.merging"
    echo "fuzz: $name: merging its corpus failed (its corpus is kept; log: $build/logs/$name.merge.log)"
    return 1
  fi
  rm -rf "$dir"
  mv "$dir.merging" "$dir"
  after=$(find "$dir" -type f | wc -l)
  echo "fuzz: $name: corpus merged from $before to $after inputs"
}

# Runs one target: $workers processes on its one corpus, each logging to
# $build/logs/TARGET.log (TARGET.wK.log for worker K of several); its summary line goes to stdout.
fuzz_one() {
  local name=$1 dirs=() line work findings limits=()
  local max_len=16384 dirs_line=""
  for line in "${table[@]}"; do
    # "NAME MAX_LEN SEED_DIR..." (tests/fuzz/CMakeLists.txt)
    if [[ ${line%% *} == "$name" ]]; then read -r _ max_len dirs_line <<< "$line" && read -r -a dirs <<< "$dirs_line"; fi
  done
  work=$build/corpus/$name
  findings=$build/findings/$name
  mkdir -p "$work" "$findings" "$build/logs"
  [[ -n $runs ]] && limits+=(-runs="$(((runs + workers - 1) / workers))")
  [[ -n $seconds ]] && limits+=(-max_total_time="$seconds")
  local seeds=()
  for line in "${dirs[@]}"; do [[ -d $line ]] && seeds+=("$line"); done
  if $merge; then merge_corpus "$name" "$max_len" "$work" || return 1; fi
  local logs=() k
  local -A log_of=()  # worker pid -> its log
  for ((k = 1; k <= workers; k++)); do
    if ((workers == 1)); then logs+=("$build/logs/$name.log"); else logs+=("$build/logs/$name.w$k.log"); fi
    "$build/${name}_fuzz" "${limits[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
      -artifact_prefix="$findings/" "$work" "${seeds[@]}" > "${logs[-1]}" 2>&1 &
    log_of[$!]=${logs[-1]}
  done
  # A worker's finding stops the others; exit 72 after "run interrupted" is a stop from outside.
  local status=0 worker_status pid
  while ((${#log_of[@]} > 0)); do
    worker_status=0
    wait -n -p pid "${!log_of[@]}" || worker_status=$?
    if ((worker_status == 72)) && grep -q 'libFuzzer: run interrupted' "${log_of[$pid]}"; then
      if ((status == 0)); then status=72; fi
    elif ((worker_status != 0)) && ((status == 0 || status == 72)); then
      status=$worker_status
    fi
    unset "log_of[$pid]"
    if ((status != 0 && status != 72 && ${#log_of[@]} > 0)); then kill -INT "${!log_of[@]}" 2> /dev/null || true; fi
  done
  local executed=0 rate=0 elapsed=0 log value
  for log in "${logs[@]}"; do
    value=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    executed=$((executed + ${value:-0}))
    value=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    rate=$((rate + ${value:-0}))
    value=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1 | awk '{print $5}' || true)
    if ((${value:-0} > elapsed)); then elapsed=$value; fi
  done
  if ((status == 0)); then
    echo "fuzz: $name: $executed executions in $elapsed s ($rate exec/s), no finding"
  elif ((status == 72)); then
    echo "fuzz: $name: interrupted after $executed executions ($rate exec/s), no finding until then"
    return 4
  else
    local artifact
    artifact=$(cat "${logs[@]}" | grep -o "Test unit written to [^ ]*" | tail -1 | awk '{print $5}' || true)
    echo "fuzz: $name: FINDING after $executed executions (exit $status): ${artifact:-see ${logs[*]}}"
    cat "${logs[@]}" | grep -m 3 -E 'ERROR: |runtime error|terminate called|what\(\)|deadly signal|Timeout|out-of-memory' |
      sed 's/^/fuzz:   /' || true
    echo "fuzz:   reproduce: $build/${name}_fuzz ${artifact:-INPUT}; log: ${logs[*]}"
    # The input itself, so that a finding on another machine (CI) replays from its log alone.
    if [[ -n $artifact && -f $artifact ]] && (($(stat -c %s "$artifact") <= max_printed_input)); then
      echo "fuzz:   input (base64; base64 -d > INPUT): $(base64 -w 0 "$artifact")"
    fi
    return 1
  fi
}

max_printed_input=8192  # bytes: a finding's input up to this size is printed in base64
failed=0
interrupted=0
running=0
# Waits for one target: exit 1 is a finding, 4 an interrupted run.
wait_for_one() {
  local status=0
  wait -n || status=$?
  if ((status == 4)); then interrupted=1; elif ((status != 0)); then failed=1; fi
  running=$((running - 1))
}
for name in "${selected[@]}"; do
  ((running >= jobs)) && wait_for_one
  fuzz_one "$name" &
  running=$((running + 1))
done
while ((running > 0)); do wait_for_one; done
outcome="no finding"
((interrupted)) && outcome="no finding, but interrupted (above)"
((failed)) && outcome="FINDINGS (above)"
echo "fuzz: ${#selected[@]} targets in $(($(date +%s) - started)) s: $outcome"
((failed)) && exit 1
((interrupted)) && exit 4
exit 0
