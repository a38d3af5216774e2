#!/usr/bin/env bash
# Wall time of `ironbench run` (the default suite on every device), ROUNDS times.
# Usage: bench/default_suite_time.sh [ROUNDS] [IRONBENCH]
set -euo pipefail
rounds=${1:-3}
ironbench=${2:-$(dirname "$0")/../build/release/ironbench}
for ((i = 1; i <= rounds; i++)); do
  start=$(date +%s.%N)
  "$ironbench" run --no-save -q >/dev/null
  end=$(date +%s.%N)
  echo "round $i: $(echo "$end - $start" | bc) s"
done
