#!/usr/bin/env bash
# bench/gpu/verify.sh on a machine without a GPU, with binaries built elsewhere (--prebuilt):
#  1. with the real ironbench: every GPU step is skipped with the reason, and --package DIR
#     holds summary.md and one archive of the logs;
#  2. a run killed from outside (as a device call's time limit does) leaves the steps that
#     finished in DIR/summary.md;
#  3. --deadline stops a running step and skips the later ones, saying so.
# Usage: verify_without_gpu.sh SOURCE_DIR IRONBENCH WORK_DIR
set -uo pipefail
source_dir=$1 ironbench=$2 work=$3
verify=$source_dir/bench/gpu/verify.sh
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAILED: $*"; exit 1; }
# Without a GPU on the PATH: nvidia-smi and amd-smi are hidden where a machine has them.
path=$(tr ':' '\n' <<<"$PATH" | while read -r d; do [[ -x $d/nvidia-smi || -x $d/amd-smi ]] || echo "$d"; done | paste -sd:)

# 1. The real binary, every GPU step skipped with the reason, the package written.
PATH=$path "$verify" "$work/out1" --prebuilt --build-dir "$(dirname "$ironbench")" --package "$work/pkg1" \
  >"$work/verify1.log" 2>&1 || fail "verify.sh exited with $? ($(tail -n 1 "$work/verify1.log"))"
[[ -s $work/pkg1/summary.md ]] || fail "no summary.md in the package"
grep -q '^| sysinfo | ok' "$work/pkg1/summary.md" || fail "sysinfo did not run: $(cat "$work/pkg1/summary.md")"
grep -q '^| build | skipped: --prebuilt' "$work/pkg1/summary.md" || fail "the build was not skipped"
for s in gpu_tests gemm_vs_torch stream_vs_babelstream copy_vs_nvbandwidth train_vs_pytorch collectives_nccl \
  collectives_nccl_graph tp_infer_nccl validate_quick burn_in_gpu; do
  grep -q "^| $s | skipped: ." "$work/pkg1/summary.md" || fail "GPU step $s was not skipped with a reason"
done
tar -tzf "$work/pkg1/verify-logs.tar.gz" | grep '^logs/sysinfo.log$' >/dev/null || fail "the archive lacks logs/sysinfo.log"
[[ $(find "$work/pkg1" -type f | wc -l) -eq 2 ]] || fail "the package holds more than summary.md and the archive"

# A stand-in ironbench whose sysinfo takes a minute.
mkdir -p "$work/slow"
printf '#!/bin/sh\n[ "$1" = sysinfo ] && exec sleep 60\necho "$@"\n' >"$work/slow/ironbench"
chmod +x "$work/slow/ironbench"

# 2. Killed during sysinfo: the steps before it are in the package's summary.
PATH=$path setsid "$verify" "$work/out2" --prebuilt --build-dir "$work/slow" --package "$work/pkg2" \
  >"$work/verify2.log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q 'sysinfo \.\.\.' "$work/verify2.log" 2>/dev/null && break; sleep 0.1; done
kill -KILL -- -"$pid" 2>/dev/null
wait "$pid" 2>/dev/null
grep -q '^| machine | ok' "$work/pkg2/summary.md" || fail "a killed run left no summary of its finished steps"
tar -tzf "$work/pkg2/verify-logs.tar.gz" | grep '^logs/machine.log$' >/dev/null || fail "a killed run left no archive"

# 3. A 2-s deadline stops sysinfo and says so; the run ends within seconds.
t0=$SECONDS
PATH=$path "$verify" "$work/out3" --prebuilt --build-dir "$work/slow" --deadline 2 --package "$work/pkg3" \
  >"$work/verify3.log" 2>&1
rc=$?
((rc == 1)) || fail "a run with a stopped step exited with $rc, not 1"
((SECONDS - t0 < 20)) || fail "the deadline did not stop the run ($((SECONDS - t0)) s)"
grep -q '^| sysinfo | FAILED (exit 124): stopped after [12] s (the 2-s deadline' "$work/pkg3/summary.md" ||
  fail "sysinfo was not stopped at the deadline: $(cat "$work/pkg3/summary.md")"
echo "verify.sh without a GPU: package, killed run and deadline as expected"
