#!/usr/bin/env bash
# The default suite's wall time by GPU count, on stand-in GPUs (IRONBENCH_STAND_IN_GPUS: each
# case sleeps its modelled time x SCALE, device/stand_in_gpus.hpp), the GPUs side by side and
# --sequential, with the cases per GPU and the binary's own estimate; with --cpu, the CPU part
# measured for real on this host.
# Usage: bench/default_suite_time.sh [--counts "1 2 4 8"] [--scale 0.02] [--cpu] [IRONBENCH]
set -euo pipefail
counts="1 2 4 8"
scale=0.02
cpu=0
ironbench=$(dirname "$0")/../build/release/ironbench
while (($#)); do
  case $1 in
    --counts) counts=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --cpu) cpu=1; shift ;;
    *) ironbench=$1; shift ;;
  esac
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Reads a run's JSON: cases per GPU (and skipped), the estimate and the wall time it recorded.
summary() {
  python3 - "$1" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
per, skipped = {}, {}
for c in run["cases"]:
    per[c["device"]] = per.get(c["device"], 0) + 1
    skipped[c["device"]] = skipped.get(c["device"], 0) + (c["status"] == "skipped")
s = run["settings"]["schedule"]
gpus = sorted(d for d in per if d != "cpu")
counts = sorted({per[d] for d in gpus})
print(f"{'/'.join(map(str, counts))}|{max(skipped[d] for d in gpus)}|{len(run['cases'])}|{s['estimate_s']:.0f}|{s['wall_s']:.1f}")
PY
}

echo "Stand-in GPUs (modelled on an H200), time scale $scale: modelled seconds = wall / $scale"
echo
echo "| GPUs | schedule | cases per GPU (skipped) | cases | estimate, modelled | wall | wall / scale |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
for n in $counts; do
  for mode in concurrent sequential; do
    flag=()
    [[ $mode == sequential ]] && flag=(--sequential)
    start=$(date +%s.%N)
    IRONBENCH_STAND_IN_GPUS=$n IRONBENCH_STAND_IN_TIME_SCALE=$scale \
      "$ironbench" run --device cuda --time-limit 0 --no-save -q --json "$out/run.json" "${flag[@]}" >/dev/null
    end=$(date +%s.%N)
    IFS='|' read -r per skipped cases estimate wall <<<"$(summary "$out/run.json")"
    total=$(echo "$end - $start" | bc)
    printf '| %s | %s | %s (%s) | %s | %s s | %.1f s | %.0f s |\n' "$n" "$mode" "$per" "$skipped" "$cases" "$estimate" \
      "$total" "$(echo "$wall / $scale" | bc -l)"
  done
done

if ((cpu)); then
  echo
  echo "The CPU part, measured on this host ($(nproc) CPUs):"
  start=$(date +%s.%N)
  "$ironbench" run --device cpu --no-save -q --json "$out/cpu.json" >/dev/null
  end=$(date +%s.%N)
  IFS='|' read -r _ _ cases estimate wall <<<"$(summary "$out/cpu.json" 2>/dev/null || echo "||||")"
  python3 - "$out/cpu.json" "$(echo "$end - $start" | bc)" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
s = run["settings"]["schedule"]
print(f"cpu: {len(run['cases'])} cases, estimate {s['estimate_s']:.0f} s, measured {s['wall_s']:.1f} s "
      f"(the process: {float(sys.argv[2]):.1f} s)")
PY
fi
