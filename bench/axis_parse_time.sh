#!/usr/bin/env bash
# Time `ironbench run gemm` takes to parse and refuse a long --axis list, ROUNDS times: RANGES
# short ranges ("1:9,1:9,...", 36 864 values for the default 4 096) and one M too large for
# the memory pre-check, so the command stops with exit 2 before measuring anything. Beside it,
# the same command with that one value alone: the difference is the list's parsing and case
# expansion, which must grow linearly with RANGES.
# Usage: bench/axis_parse_time.sh [ROUNDS] [RANGES] [IRONBENCH]
set -euo pipefail
rounds=${1:-3}
ranges=${2:-4096}
ironbench=${3:-$(dirname "$0")/../build/release/ironbench}
list="M=$(printf '1:9,%.0s' $(seq "$ranges"))3037000500"
time_of() {
  local start end
  start=$(date +%s.%N)
  local status=0 message
  message=$("$ironbench" run gemm --no-save --axis "$1" 2>&1 >/dev/null) || status=$?
  if [[ $status -ne 2 || $message != *"needs more bytes of memory"* ]]; then
    echo "axis_parse_time: expected the memory pre-check to refuse M=3037000500 (exit $status: $message)" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
for ((i = 1; i <= rounds; i++)); do
  list_seconds=$(time_of "$list")
  one_seconds=$(time_of M=3037000500)
  echo "round $i: ${ranges} ranges ${list_seconds} s, one value ${one_seconds} s"
done
