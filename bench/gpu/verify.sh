#!/usr/bin/env bash
# Verifies ironbench on a GPU machine in one command: builds it (from a dependency bundle when
# given), records the machine (nvidia-smi / amd-smi), runs the GPU tests, then the peer
# comparisons of bench/gpu/ and the one-rank collectives and tp_infer runs, and writes
# OUTDIR/summary.md with each step's outcome and tables, and OUTDIR/logs/ and OUTDIR/raw/.
# A step that fails is recorded and the next one runs; without a GPU every GPU step is skipped
# with the reason. Exit status: 0 when no step failed, 1 otherwise, 2 for a usage error.
#
# Usage: bench/gpu/verify.sh OUTDIR [options]
#   --bundle FILE        dependency bundle (scripts/setup.sh --bundle) to build from, unpacked in OUTDIR/deps
#   --deps DIR           a prefix already made by scripts/setup.sh --prefix
#   --build-dir DIR      build directory (default build/gpu-verify; an existing one is reused)
#   --babelstream SRC    BabelStream's source (a directory or a .tar.gz): built and compared with
#   --nvbandwidth SRC    nvbandwidth's source (directory or .tar.gz; needs Boost program_options)
#   --peer-deps DIR      .deb files the peers need (Boost), unpacked in OUTDIR/peer-deps
#   --quick              bf16 only, one round, GPT Small, a sweep to 64 MiB (for a short slot)
#   --jobs N             build jobs (default: all cores)
#   --cmake-arg ARG      one more argument for CMake's configure step (repeatable)
#   --prebuilt           the build directory already holds the binaries (built elsewhere): no build
#   --only STEPS         run only these measurement steps (comma-separated names; the rest are skipped)
#   --deadline SECONDS   start no step after this many seconds; a running one is stopped at it
#   --package DIR        after every step, copy summary.md and logs+raw (one .tar.gz) into DIR
#   --llama-carry DIR    a folder with peers/llama-server.tar.xz and wheels/ (gguf) for serve_llama
#   --gemm-dtypes LIST   the dtypes gemm_vs_torch compares (default fp16,bf16,fp8)
# BabelStream and nvbandwidth may also be given as executables built elsewhere (not rebuilt).
set -uo pipefail

usage() {
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() {
  echo "verify: $*" >&2
  exit 2
}

repo=$(cd "$(dirname "$0")/../.." && pwd)
outdir='' bundle='' deps='' build_dir=$repo/build/gpu-verify babelstream_src='' nvbandwidth_src='' peer_debs=''
quick=false extra_cmake_args=() prebuilt=false only='' deadline=0 package='' llama_carry='' gemm_dtypes=''
jobs=$(nproc)
while (($#)); do
  case $1 in
  --bundle) bundle=${2:?}; shift ;;
  --deps) deps=${2:?}; shift ;;
  --build-dir) build_dir=${2:?}; shift ;;
  --babelstream) babelstream_src=${2:?}; shift ;;
  --nvbandwidth) nvbandwidth_src=${2:?}; shift ;;
  --peer-deps) peer_debs=${2:?}; shift ;;
  --quick) quick=true ;;
  --jobs) jobs=${2:?}; shift ;;
  --cmake-arg) extra_cmake_args+=("${2:?}"); shift ;;
  --prebuilt) prebuilt=true ;;
  --only) only=,${2:?},; shift ;;
  --deadline) deadline=${2:?}; shift ;;
  --package) package=${2:?}; shift ;;
  --llama-carry) llama_carry=${2:?}; shift ;;
  --gemm-dtypes) gemm_dtypes=${2:?}; shift ;;
  -h | --help) usage ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) [[ -z $outdir ]] || die "one OUTDIR only ('$1')"; outdir=$1 ;;
  esac
  shift
done
[[ -n $outdir ]] || usage
[[ $deadline =~ ^[0-9]+$ ]] || die "--deadline takes whole seconds ('$deadline')"
[[ -z $package ]] || mkdir -p "$package" || die "cannot create '$package'"
[[ -z $bundle || -r $bundle ]] || die "cannot read bundle '$bundle'"
[[ -z $deps || -r $deps/env.sh ]] || die "'$deps' is not a prefix made by scripts/setup.sh --prefix (no env.sh)"
for src in "$babelstream_src" "$nvbandwidth_src"; do
  [[ -z $src || -e $src ]] || die "no such peer source '$src'"
done
mkdir -p "$outdir/logs" "$outdir/raw" || die "cannot create '$outdir'"
outdir=$(cd "$outdir" && pwd)
summary=$outdir/summary.md
steps=$outdir/steps.md
: >"$steps"
failed=0
started=$SECONDS
base_ld_library_path=${LD_LIBRARY_PATH:-}

# step NAME COMMAND...: runs COMMAND with its output in logs/NAME.log, records the outcome and
# rewrites the summary, so that a run stopped from outside leaves every finished step behind.
# A step past --deadline is skipped; a running one is stopped when the deadline comes.
# With a deadline, no step may take more than its cap either, so that one that hangs (a
# collective that never completes, say) leaves time for the others.
declare -A step_cap=([gpu_tests]=240 [gemm_fp8_cublaslt_log]=30 [gemm_vs_torch]=180 [stream_vs_babelstream]=90 [copy_vs_nvbandwidth]=120
  [collectives_nccl]=120 [collectives_nccl_graph]=120 [tp_infer_nccl]=60 [train_vs_pytorch]=240
  [gemm_cublaslt_vs_cublas]=60 [validate_quick]=150 [burn_in_gpu]=60 [default_suite]=260 [serve_llama]=270 [copy_pageable_vs_torch]=60)
step() {
  local name=$1 t0=$SECONDS rc left
  shift
  if ((deadline > 0)); then
    left=$((deadline - (SECONDS - started)))
    if ((left <= 0)); then
      skip "$name" "not reached before the ${deadline}-s deadline"
      return 124
    fi
    ((${step_cap[$name]:-0} > 0 && step_cap[$name] < left)) && left=${step_cap[$name]}
  fi
  echo "verify: $name ... ($((SECONDS - started)) s)" >&2
  if ((deadline > 0)); then
    # A function (build, machine_facts ...) runs in a subshell, as timeout cannot call one.
    STEP_SECONDS_LEFT=$left timeout --kill-after=5 "$left" bash -c "$(declare -f); $(declare -p outdir repo build_dir ib base_ld_library_path prebuilt quick vendor \
      jobs cmake_args arch 2>/dev/null); \"\$@\"" step "$@" >"$outdir/logs/$name.log" 2>&1
  else
    "$@" >"$outdir/logs/$name.log" 2>&1
  fi
  rc=$?
  if ((rc == 0)); then
    echo "| $name | ok | $((SECONDS - t0)) s |" >>"$steps"
  else
    failed=1
    local why
    why=$(tail -n 1 "$outdir/logs/$name.log" | tr '|' '/' | cut -c1-300)
    ((rc == 124 && deadline > 0)) && why="stopped after ${left} s (the ${deadline}-s deadline or the step's cap); $why"
    echo "| $name | FAILED (exit $rc): $why | $((SECONDS - t0)) s |" >>"$steps"
  fi
  write_summary
  return $rc
}
skip() {
  echo "verify: $1 skipped: $2" >&2
  echo "| $1 | skipped: $2 | - |" >>"$steps"
  write_summary
}
# wanted NAME: whether --only (if given) names the step; otherwise it is recorded as skipped.
wanted() {
  [[ -z $only || $only == *",$1,"* ]] && return 0
  echo "| $1 | skipped: not in --only | - |" >>"$steps"
  return 1
}
# The summary: each step's outcome, then the tables of the steps' logs; with --package, copied
# with one archive of the logs and raw results.
write_summary() {
  {
    echo "# ironbench GPU verification"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$repo" describe --always --dirty 2>/dev/null || echo "revision unknown"), $((SECONDS - started)) s so far$($quick && echo ", --quick")$($prebuilt && echo ", prebuilt binaries")"
    echo
    [[ $vendor == nvidia ]] && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
    echo
    echo "| step | outcome | time |"
    echo "| --- | --- | --- |"
    cat "$steps"
    for log in gpu_tests gemm_fp8_cublaslt_log validate_quick burn_in_gpu gemm_vs_torch default_suite serve_llama gemm_cublaslt_vs_cublas \
      stream_vs_babelstream copy_vs_nvbandwidth copy_pageable_vs_torch train_vs_pytorch collectives_nccl collectives_nccl_graph tp_infer_nccl; do
      [[ -s $outdir/logs/$log.log ]] || continue
      echo
      echo "## $log"
      echo
      if [[ $log == gpu_tests ]]; then grep -E 'tests passed|tests failed|\*\*\*|Passed|Failed|Skipped|\[  (PASSED|FAILED|SKIPPED) |^\[==' "$outdir/logs/$log.log" | tail -n 60
      else grep -E '^\||^[a-z0-9.]+ repeat|^fp|^#|^run |^verdict|Verdict|\[cublasLt\]|^default suite|^serve' "$outdir/logs/$log.log" | tail -n 80; fi
    done
  } >"$summary"
  if [[ -n $package ]]; then
    cp "$summary" "$package/summary.md"
    tar -czf "$package/verify-logs.tar.gz.part" -C "$outdir" logs raw &&
      mv "$package/verify-logs.tar.gz.part" "$package/verify-logs.tar.gz"
  fi
}
# Python peers run with the machine's own libraries, not the prefix's.
machine_python() { LD_LIBRARY_PATH=$base_ld_library_path python3 "$@"; }

# ---- the machine
vendor=none gpu_why="no nvidia-smi or amd-smi found"
if command -v nvidia-smi >/dev/null; then
  if nvidia-smi -L >/dev/null 2>&1; then vendor=nvidia; else gpu_why="nvidia-smi sees no GPU: $(nvidia-smi -L 2>&1 | head -n 1)"; fi
elif command -v amd-smi >/dev/null; then
  if amd-smi list >/dev/null 2>&1; then vendor=amd; else gpu_why="amd-smi sees no GPU"; fi
fi
machine_facts() {
  uname -a
  grep -m1 PRETTY_NAME /etc/os-release
  if [[ $vendor == nvidia ]]; then
    nvidia-smi
    nvidia-smi --query-gpu=name,pci.bus_id,driver_version,compute_cap,memory.total,power.limit,clocks.max.sm,clocks.max.mem --format=csv
  elif [[ $vendor == amd ]]; then
    amd-smi static
  fi
  if command -v nvcc >/dev/null; then nvcc --version | tail -n 2; else echo "no nvcc"; fi
  machine_python -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", torch.version.hip)
import os; print("libtorch", os.path.dirname(torch.__file__) + "/lib")
try:
    import nvidia.nccl, os.path as p; print("nccl", p.dirname(nvidia.nccl.__path__[0] + "/"))
except Exception as e: print("nccl wheel:", e)' 2>&1 | tail -n 4
  command -v cmake >/dev/null && cmake --version | head -n 1
  command -v ninja >/dev/null && echo "ninja $(ninja --version)"
  c++ --version 2>/dev/null | head -n 1
  nproc
  free -g | sed -n 2p
  return 0  # facts only: a missing tool is written down, not a failure
}
step machine machine_facts

# ---- build
if [[ -n $bundle ]]; then
  rm -rf "$outdir/deps"
  step deps "$repo/scripts/setup.sh" --prefix "$outdir/deps" --from "$bundle" && deps=$outdir/deps
fi
if [[ -n $deps ]]; then
  # shellcheck source=/dev/null
  source "$deps/env.sh"
fi
torch_prefix=$(machine_python -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
# Warnings do not fail a build on a machine whose compiler is newer than the project's CI's.
cmake_args=(-S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIRONBENCH_WERROR=OFF)
[[ -n $torch_prefix ]] && cmake_args+=("-DCMAKE_PREFIX_PATH=$torch_prefix${CMAKE_PREFIX_PATH:+;${CMAKE_PREFIX_PATH//:/;}}")
if [[ $vendor == nvidia ]]; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
  cmake_args+=("-DCMAKE_CUDA_ARCHITECTURES=$arch")
elif [[ $vendor == amd ]]; then
  arch=$(amd-smi static --asic 2>/dev/null | grep -m1 -o 'gfx[0-9a-f]*')
  cmake_args+=(-DIRONBENCH_CUDA=OFF -DIRONBENCH_HIP=ON -DCMAKE_PREFIX_PATH=/opt/rocm ${arch:+"-DCMAKE_HIP_ARCHITECTURES=$arch"})
fi
cmake_args+=("${extra_cmake_args[@]}")
build() {
  cmake "${cmake_args[@]}" || return
  local targets=(ironbench gpu_tests)
  # The training binary and its tests exist where libtorch was found.
  ninja -C "$build_dir" -t query ironbench-train >/dev/null 2>&1 && targets+=(ironbench-train train_torch_tests)
  cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"
}
if $prebuilt; then
  skip build "--prebuilt: the binaries in $build_dir were built elsewhere"
  [[ -x $build_dir/ironbench ]] || { echo "verify: --prebuilt, but no $build_dir/ironbench" >&2; exit 1; }
elif ! step build build; then
  echo "verify: the build failed; see $outdir/logs/build.log" >&2
  exit 1
fi
ib=$build_dir/ironbench
# The Python peers run with the machine's own libraries; the ironbench they start needs the
# prefix's (Open MPI's libraries find each other through LD_LIBRARY_PATH): a wrapper sets them.
ib_for_python=$ib
if [[ -n $deps ]]; then
  ib_for_python=$outdir/ironbench
  printf '#!/bin/sh\n. "%s/env.sh"\nexec "%s" "$@"\n' "$deps" "$ib" >"$ib_for_python"
  chmod +x "$ib_for_python"
fi
step sysinfo "$ib" sysinfo
# Only what the check prints on stdout decides (an import warning on stderr is not a reason).
torch_why=$(machine_python -c 'import torch, triton
if not torch.cuda.is_available(): print("PyTorch sees no GPU")' 2>/dev/null) ||
  torch_why=${torch_why:-"python3 cannot import torch and triton"}
torch_why=$(tail -n 1 <<<"$torch_why")

# ---- GPU tests and measurements
run_gpu_steps() {
  wanted gpu_tests && step gpu_tests gpu_tests
  # cuBLASLt's own account of an fp8 product (its error log names what it does not support).
  if [[ $vendor == nvidia ]] && wanted gemm_fp8_cublaslt_log; then
    step gemm_fp8_cublaslt_log env CUBLASLT_LOG_LEVEL=2 "$ib" run gemm --device cuda:0 --axis dtype=fp8 \
      --axis provider=cublaslt --axis M=1024 --axis N=1024 --axis K=1024 --max-time 0.2s --no-save
  fi
  if wanted validate_quick; then
    step validate_quick "$ib" validate --level quick --no-save --json "$outdir/raw/validate_quick.json"
  fi
  # Burn-in on the first GPU (GEMM and STREAM triad per interval, its clocks, temperature, power
  # and NVML error counters); every run also records the error counters before and after.
  if ! $quick && wanted burn_in_gpu; then
    step burn_in_gpu "$ib" validate --level burn-in --device cuda:0 --duration 30s --interval 10s --no-save \
      --json "$outdir/raw/burn_in_gpu.json"
  fi
  local gemm_args=() stream_args=() train_args=(--model "small:32,medium:16,large:8,1.5b:4" --repeats 3)
  local sweep=(-b 8 -e 1G -f 2)
  if $quick; then
    gemm_args=(--dtypes bf16 --rounds 1)
    stream_args=(--rounds 1)
    train_args=(--model small:32 --repeats 1)
    sweep=(-b 8 -e 64M -f 8)
  fi
  [[ -n $gemm_dtypes ]] && gemm_args=(--dtypes "$gemm_dtypes" "${gemm_args[@]:2}")
  if ! wanted gemm_vs_torch; then :
  elif [[ -z $torch_why ]]; then
    step gemm_vs_torch machine_python "$repo/bench/gpu/gemm_vs_torch.py" --ironbench "$ib_for_python" "${gemm_args[@]}"
  else
    skip gemm_vs_torch "PyTorch with Triton is needed: $torch_why"
  fi
  if [[ -n $peer_debs ]]; then
    rm -rf "$outdir/peer-deps" && mkdir -p "$outdir/peer-deps"
    for deb in "$peer_debs"/*.deb; do dpkg-deb -x "$deb" "$outdir/peer-deps"; done
  fi
  local babelstream_bin=$babelstream_src nvbandwidth_bin=$nvbandwidth_src
  if ! wanted stream_vs_babelstream; then :
  elif [[ -z $babelstream_src ]]; then
    skip stream_vs_babelstream "no --babelstream source given"
  elif [[ -f $babelstream_src && -x $babelstream_src ]] || { step babelstream_build build_peer babelstream "$babelstream_src" \
    -DMODEL=cuda -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DCUDA_ARCH="sm_$arch" &&
    babelstream_bin=$outdir/peers/babelstream/build/cuda-stream; }; then
    step stream_vs_babelstream machine_python "$repo/bench/gpu/stream_vs_babelstream.py" --ironbench "$ib_for_python" \
      --babelstream "$babelstream_bin" "${stream_args[@]}"
  fi
  if ! wanted copy_vs_nvbandwidth; then :
  elif [[ -z $nvbandwidth_src ]]; then
    skip copy_vs_nvbandwidth "no --nvbandwidth source given"
  elif [[ -f $nvbandwidth_src && -x $nvbandwidth_src ]] || { step nvbandwidth_build build_peer nvbandwidth "$nvbandwidth_src" \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_PREFIX_PATH="$outdir/peer-deps/usr" \
    -DBoost_INCLUDE_DIR="$outdir/peer-deps/usr/include" &&
    nvbandwidth_bin=$outdir/peers/nvbandwidth/build/nvbandwidth; }; then
    step copy_vs_nvbandwidth machine_python "$repo/bench/gpu/copy_vs_nvbandwidth.py" --ironbench "$ib_for_python" \
      --nvbandwidth "$nvbandwidth_bin" "${stream_args[@]}"
  fi
  # The pageable copies against PyTorch's copy_ into tensors made beforehand (no nvbandwidth needed).
  if ! wanted copy_pageable_vs_torch; then :
  elif [[ -z $torch_why ]]; then
    step copy_pageable_vs_torch machine_python "$repo/bench/gpu/copy_vs_nvbandwidth.py" --ironbench "$ib_for_python" \
      --pageable-only "${stream_args[@]}"
  else
    skip copy_pageable_vs_torch "PyTorch is needed: $torch_why"
  fi
  # One process drives every GPU of the node (nccl-tests' -g), without MPI.
  local gpus=1
  [[ $vendor == nvidia ]] && gpus=$(nvidia-smi -L | grep -c '^GPU')
  sweep+=(-g "$gpus")
  if wanted collectives_nccl; then
    step collectives_nccl "$ib" collectives all -d float -o sum --backend nccl "${sweep[@]}" --no-save \
      --json "$outdir/raw/collectives_nccl.json"
  fi
  if wanted collectives_nccl_graph; then
    step collectives_nccl_graph "$ib" collectives all -d float -o sum --backend nccl "${sweep[@]}" -G 1 --no-save \
      --json "$outdir/raw/collectives_nccl_graph.json"
  fi
  if wanted tp_infer_nccl; then
    step tp_infer_nccl "$ib" tp_infer --backend nccl --no-save --json "$outdir/raw/tp_infer.json"
  fi
  if ! wanted train_vs_pytorch; then :
  elif [[ -n $torch_why ]]; then
    skip train_vs_pytorch "PyTorch is needed: $torch_why"
  elif [[ -x $build_dir/ironbench-train ]]; then
    step train_vs_pytorch machine_python "$repo/bench/train_vs_pytorch.py" --ironbench "$ib_for_python" --device cuda \
      --dtype bf16 --steps 10 --warmup 3 "${train_args[@]}"
  else
    skip train_vs_pytorch "ironbench-train was not built (no libtorch found)"
  fi
  if ! $quick && wanted gemm_cublaslt_vs_cublas; then
    step gemm_cublaslt_vs_cublas "$ib" run gemm --device cuda:0 --axis dtype=fp16,bf16 --axis provider=cublaslt,cublas \
      --axis M=8192 --no-save --md - --json "$outdir/raw/gemm_providers.json"
  fi
  # The README's main job as a new user runs it: every device, the default suite, no arguments.
  if wanted default_suite; then
    step default_suite default_suite
  fi
  # A real serving engine on the GPU (llama.cpp's llama-server, carried; the model made here).
  if ! wanted serve_llama; then :
  elif [[ -z $llama_carry ]]; then
    skip serve_llama "no --llama-carry folder given"
  else
    step serve_llama env IRONBENCH="$ib" CARRY="$llama_carry" bash "$repo/bench/gpu/serve_llama_gpu.sh" "$outdir/raw/serve_llama"
  fi
}
# default_suite: `ironbench run` with no arguments, stopped (SIGINT: the cases finished are
# written) a little before the step's cap; prints its wall time and the case counts per device.
default_suite() {
  local begin=$SECONDS rc limit=${DEFAULT_SUITE_LIMIT_S:-240}
  # Stopped by ironbench's own SIGINT handling before the step's time runs out, so the JSON is written.
  [[ -n ${STEP_SECONDS_LEFT:-} ]] && ((STEP_SECONDS_LEFT - 20 < limit)) && limit=$((STEP_SECONDS_LEFT - 20))
  ((limit > 10)) || { echo "default suite: too little time left ($limit s)"; return 1; }
  timeout -s INT -k 10 "$limit" "$ib" run --no-save --json "$outdir/raw/default_suite.json"
  rc=$?
  echo "default suite: exit $rc after $((SECONDS - begin)) s"
  machine_python - "$outdir/raw/default_suite.json" <<'PY' || true
import collections, json, sys
run = json.load(open(sys.argv[1]))
by = collections.defaultdict(collections.Counter)
for c in run["cases"]:
    by[c["device"]][c["status"]] += 1
print(f"default suite: status {run.get('status', '?')}, {len(run['cases'])} cases")
schedule = run.get("settings", {}).get("schedule", {})
if schedule:
    print(f"default suite: estimated {schedule.get('estimate_s', '?')} s, ran {schedule.get('wall_s', '?')} s "
          f"({schedule.get('mode', '?')})")
for device, counts in sorted(by.items()):
    print(f"default suite: {device}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
PY
  return $rc
}
# gpu_tests: the GPU tests through ctest where the build directory has them, else (binaries
# built elsewhere) the test executables themselves.
gpu_tests() {
  if [[ -f $build_dir/CTestTestfile.cmake ]] && ! $prebuilt; then
    ctest --test-dir "$build_dir" -R '^(Gpu|TorchTrainingGpu)' --output-on-failure --timeout 600
    return
  fi
  local rc=0 t
  for t in "$build_dir"/tests/gpu/gpu_tests "$build_dir"/tests/gpu_tests; do
    [[ -x $t ]] && { "$t" --gtest_filter='Gpu*' || rc=1; break; }
  done
  for t in "$build_dir"/tests/train_torch_tests "$build_dir"/tests/unit/train_torch_tests; do
    [[ -x $t ]] && { "$t" --gtest_filter='TorchTrainingGpu*' || rc=1; break; }
  done
  return $rc
}
# build_peer NAME SRC CMAKE_ARGS...: unpacks (or copies) SRC into OUTDIR/peers/NAME and builds it.
build_peer() {
  local name=$1 src=$2 dir=$outdir/peers/$1
  shift 2
  rm -rf "$dir" && mkdir -p "$dir"
  if [[ -d $src ]]; then cp -r "$src/." "$dir"; else tar -xf "$src" -C "$dir" --strip-components=1; fi
  cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release "$@" && cmake --build "$dir/build" -j "$jobs"
}

if [[ $vendor == none ]]; then
  for s in gpu_tests gemm_vs_torch stream_vs_babelstream copy_vs_nvbandwidth train_vs_pytorch collectives_nccl \
    collectives_nccl_graph tp_infer_nccl validate_quick burn_in_gpu default_suite serve_llama copy_pageable_vs_torch; do
    skip "$s" "$gpu_why"
  done
else
  run_gpu_steps
fi

# ---- summary
write_summary
echo "verify: summary in $summary ($((SECONDS - started)) s)" >&2
exit $failed
