#!/usr/bin/env bash
# Builds, on a machine without a GPU, what a short H100/H200 lease runs (docs/gpu.md, "Made here
# first"), and times each step:
#   1. a Python environment with the lease machine's PyTorch and NCCL wheels (--no-deps: only
#      their headers, libtorch and libnccl are used to build);
#   2. BUILD_DIR configured for the lease machine (sm_90, no -march=native, libtorch and NCCL from
#      those wheels);
#   3. ironbench, ironbench-train and the GPU tests built;
#   4. with --carry DIR, DIR made by bench/gpu/prepare_carry.sh (the peers are built by hand from
#      their own repositories, docs/gpu.md).
# Usage: bench/gpu/build_device_stack.sh VENV BUILD_DIR [--carry DIR] [--jobs N]
#   VENV       the Python environment (made when missing; reused when its wheels match)
#   BUILD_DIR  inside this repository (prepare_carry.sh carries it by its relative path)
# Environment: TORCH_VERSION (2.11.0), NCCL_VERSION (2.28.9), CUDA_ARCHITECTURES (90).
set -euo pipefail
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
(($# >= 2)) || usage
venv=$1 build_dir=$2
shift 2
carry='' jobs=$(nproc)
while (($#)); do
  case $1 in
  --carry) (($# > 1)) || usage; carry=$2; shift ;;
  --jobs) (($# > 1)) || usage; jobs=$2; shift ;;
  *) echo "build_device_stack: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "build_device_stack: --jobs needs a positive integer, not '$jobs'" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
command -v nvcc >/dev/null || { echo "build_device_stack: nvcc is not on PATH (the CUDA toolkit builds the GPU code)" >&2; exit 2; }
command -v ninja >/dev/null || { echo "build_device_stack: ninja is not installed (scripts/setup.sh)" >&2; exit 2; }
torch_version=${TORCH_VERSION:-2.11.0}
nccl_version=${NCCL_VERSION:-2.28.9}
architectures=${CUDA_ARCHITECTURES:-90}

timed() {
  local name=$1 begin
  shift
  begin=$(date +%s.%N)
  "$@" || { echo "build_device_stack: step '$name' failed" >&2; exit 1; }
  printf 'build_device_stack: %-9s %7.1f s\n' "$name" "$(echo "$(date +%s.%N) - $begin" | bc)" >&2
}

wheels() {
  [[ -x $venv/bin/python3 ]] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --no-deps "torch==$torch_version" "nvidia-nccl-cu13==$nccl_version"
}
timed wheels wheels
site=$("$venv/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
torch_cmake=$site/torch/share/cmake
[[ -d $torch_cmake/Torch ]] || { echo "build_device_stack: the torch wheel has no $torch_cmake/Torch" >&2; exit 1; }

configure() {
  cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$architectures" -DIRONBENCH_NATIVE=OFF -DIRONBENCH_WERROR=OFF -DIRONBENCH_CUDA=ON -DIRONBENCH_TORCH=ON \
    -DCMAKE_PREFIX_PATH="$torch_cmake" -DTorch_DIR="$torch_cmake/Torch" \
    -DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined >"$build_dir.configure.log" 2>&1 ||
    { tail -20 "$build_dir.configure.log" >&2; return 1; }
}
mkdir -p "$build_dir"
timed configure configure
# A build that lost a part the lease needs would spend the lease finding out.
for part in 'GPU collectives (NCCL/RCCL) enabled'; do
  grep -q "$part" "$build_dir.configure.log" ||
    { echo "build_device_stack: configure did not enable '$part' (see $build_dir.configure.log)" >&2; exit 1; }
done
timed build ninja -C "$build_dir" -j "$jobs" ironbench gpu_tests ironbench-train train_torch_tests
if [[ -n $carry ]]; then
  timed carry "$repo/bench/gpu/prepare_carry.sh" "$build_dir" "$carry"
fi
