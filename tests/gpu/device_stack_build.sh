#!/usr/bin/env bash
# The device-stack build of a GPU lease, repeated here without a GPU (docs/gpu.md): the lease
# machine's PyTorch and NCCL wheels in a private environment, bench/gpu/build_device_stack.sh,
# then checks that what a lease runs was built against them and starts without a GPU:
# ironbench links the wheel's NCCL, its GPU tests list themselves (nothing at build or listing
# time loads a driver library), and ironbench-train links the wheel's libtorch.
# Usage: tests/gpu/device_stack_build.sh SOURCE_DIR BUILD_DIR VENV   (exit 77: no CUDA toolkit)
set -euo pipefail
(($# == 3)) || { echo "usage: $0 SOURCE_DIR BUILD_DIR VENV" >&2; exit 2; }
source_dir=$1 build_dir=$2 venv=$3
command -v nvcc >/dev/null || { echo "skipped: no CUDA toolkit (nvcc) to build the GPU code with"; exit 77; }
"$source_dir/bench/gpu/build_device_stack.sh" "$venv" "$build_dir"

fail() { echo "device_stack_build: $*" >&2; exit 1; }
ldd "$build_dir/ironbench" | grep "libnccl.so.2 => $venv/.*/nvidia/nccl/lib/" >/dev/null ||
  fail "ironbench does not link the wheel's NCCL: $(ldd "$build_dir/ironbench" | grep -E 'nccl|not found')"
"$build_dir/ironbench" version | grep '"cuda": true' >/dev/null || fail "ironbench was built without CUDA"
listed=$("$build_dir/tests/gpu/gpu_tests" --gtest_list_tests) || fail "gpu_tests cannot list its tests"
for suite in GpuGemm GpuStream GpuCopy GpuCollectives GpuTpInfer GpuTelemetry; do
  grep -q "^$suite\." <<<"$listed" || fail "gpu_tests lacks $suite"
done
[[ -x $build_dir/tests/unit/train_torch_tests ]] || fail "train_torch_tests was not built"
# ironbench-train cannot start here: --no-deps leaves out libraries libtorch_cuda loads (cuFile,
# cuSPARSELt), which the lease machine has. It must link the wheel's libtorch.
ldd "$build_dir/ironbench-train" | grep "libtorch_cpu.so => $venv/.*/torch/lib/" >/dev/null ||
  fail "ironbench-train does not link the wheel's libtorch"
echo "device_stack_build: ironbench (CUDA, the wheel's NCCL), ironbench-train (its libtorch) and the GPU tests built"
