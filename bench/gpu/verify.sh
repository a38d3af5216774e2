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
set -uo pipefail

usage() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() {
  echo "verify: $*" >&2
  exit 2
}

repo=$(cd "$(dirname "$0")/../.." && pwd)
outdir='' bundle='' deps='' build_dir=$repo/build/gpu-verify babelstream_src='' nvbandwidth_src='' peer_debs=''
quick=false extra_cmake_args=()
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
  -h | --help) usage ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) [[ -z $outdir ]] || die "one OUTDIR only ('$1')"; outdir=$1 ;;
  esac
  shift
done
[[ -n $outdir ]] || usage
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

# step NAME COMMAND...: runs COMMAND with its output in logs/NAME.log and records the outcome.
step() {
  local name=$1 t0=$SECONDS rc
  shift
  echo "verify: $name ..." >&2
  "$@" >"$outdir/logs/$name.log" 2>&1
  rc=$?
  if ((rc == 0)); then
    echo "| $name | ok | $((SECONDS - t0)) s |" >>"$steps"
  else
    failed=1
    echo "| $name | FAILED (exit $rc): $(tail -n 1 "$outdir/logs/$name.log" | tr '|' '/') | $((SECONDS - t0)) s |" >>"$steps"
  fi
  return $rc
}
skip() {
  echo "verify: $1 skipped: $2" >&2
  echo "| $1 | skipped: $2 | - |" >>"$steps"
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
  machine_python -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", torch.version.hip)' 2>&1 |
    tail -n 1
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
cmake_args=(-S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release)
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
if ! step build build; then
  { echo "# ironbench GPU verification"; echo; echo "| step | outcome | time |"; echo "| --- | --- | --- |"; cat "$steps"; } >"$summary"
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
torch_why=$(machine_python -c 'import torch, triton
if not torch.cuda.is_available(): print("PyTorch sees no GPU")' 2>&1 | tail -n 1)

# ---- GPU tests and measurements
run_gpu_steps() {
  step gpu_tests ctest --test-dir "$build_dir" -R '^(Gpu|TorchTrainingGpu)' --output-on-failure --timeout 600
  local gemm_args=() stream_args=() train_args=(--model "small:32,medium:16,large:8,1.5b:4" --repeats 3)
  local sweep=(-b 8 -e 1G -f 2)
  if $quick; then
    gemm_args=(--dtypes bf16 --rounds 1)
    stream_args=(--rounds 1)
    train_args=(--model small:32 --repeats 1)
    sweep=(-b 8 -e 64M -f 8)
  fi
  if [[ -z $torch_why ]]; then
    step gemm_vs_torch machine_python "$repo/bench/gpu/gemm_vs_torch.py" --ironbench "$ib_for_python" "${gemm_args[@]}"
  else
    skip gemm_vs_torch "PyTorch with Triton is needed: $torch_why"
  fi
  if ! $quick; then
    step gemm_cublaslt_vs_cublas "$ib" run gemm --device cuda:0 --axis dtype=fp16,bf16 --axis provider=cublaslt,cublas \
      --axis M=8192 --no-save --md - --json "$outdir/raw/gemm_providers.json"
  fi
  if [[ -n $peer_debs ]]; then
    rm -rf "$outdir/peer-deps" && mkdir -p "$outdir/peer-deps"
    for deb in "$peer_debs"/*.deb; do dpkg-deb -x "$deb" "$outdir/peer-deps"; done
  fi
  if [[ -n $babelstream_src ]] && step babelstream_build build_peer babelstream "$babelstream_src" \
    -DMODEL=cuda -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DCUDA_ARCH="sm_$arch"; then
    step stream_vs_babelstream machine_python "$repo/bench/gpu/stream_vs_babelstream.py" --ironbench "$ib_for_python" \
      --babelstream "$outdir/peers/babelstream/build/cuda-stream" "${stream_args[@]}"
  elif [[ -z $babelstream_src ]]; then
    skip stream_vs_babelstream "no --babelstream source given"
  fi
  if [[ -n $nvbandwidth_src ]] && step nvbandwidth_build build_peer nvbandwidth "$nvbandwidth_src" \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_PREFIX_PATH="$outdir/peer-deps/usr" \
    -DBoost_INCLUDE_DIR="$outdir/peer-deps/usr/include"; then
    step copy_vs_nvbandwidth machine_python "$repo/bench/gpu/copy_vs_nvbandwidth.py" --ironbench "$ib_for_python" \
      --nvbandwidth "$outdir/peers/nvbandwidth/build/nvbandwidth" "${stream_args[@]}"
  elif [[ -z $nvbandwidth_src ]]; then
    skip copy_vs_nvbandwidth "no --nvbandwidth source given"
  fi
  if [[ -n $torch_why ]]; then
    skip train_vs_pytorch "PyTorch is needed: $torch_why"
  elif [[ -x $build_dir/ironbench-train ]]; then
    step train_vs_pytorch machine_python "$repo/bench/train_vs_pytorch.py" --ironbench "$ib_for_python" --device cuda \
      --dtype bf16 --steps 10 --warmup 3 "${train_args[@]}"
  else
    skip train_vs_pytorch "ironbench-train was not built (no libtorch found)"
  fi
  step collectives_nccl "$ib" collectives all -d float -o sum --backend nccl "${sweep[@]}" -G 1 --no-save \
    --json "$outdir/raw/collectives_nccl.json"
  step tp_infer_nccl "$ib" tp_infer --backend nccl --no-save --json "$outdir/raw/tp_infer.json"
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
  for s in gpu_tests gemm_vs_torch stream_vs_babelstream copy_vs_nvbandwidth train_vs_pytorch collectives_nccl tp_infer_nccl; do
    skip "$s" "$gpu_why"
  done
else
  run_gpu_steps
fi

# ---- summary
{
  echo "# ironbench GPU verification"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$repo" describe --always --dirty 2>/dev/null || echo "revision unknown"), $((SECONDS - started)) s in all$($quick && echo ", --quick")"
  echo
  [[ $vendor == nvidia ]] && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'
  echo
  echo "| step | outcome | time |"
  echo "| --- | --- | --- |"
  cat "$steps"
  for log in gpu_tests gemm_vs_torch gemm_cublaslt_vs_cublas stream_vs_babelstream copy_vs_nvbandwidth train_vs_pytorch \
    collectives_nccl tp_infer_nccl; do
    [[ -s $outdir/logs/$log.log ]] || continue
    echo
    echo "## $log"
    echo
    if [[ $log == gpu_tests ]]; then grep -E 'tests passed|tests failed|\*\*\*|Passed|Failed|Skipped' "$outdir/logs/$log.log" | tail -n 40
    else grep -E '^\||^[a-z0-9.]+ repeat|^fp|^#' "$outdir/logs/$log.log" | tail -n 80; fi
  done
} >"$summary"
echo "verify: summary in $summary" >&2
exit $failed
