#!/usr/bin/env bash
# Builds llama.cpp's own C++ server (llama-server, which answers Prometheus /metrics with
# --metrics) for the slow server-metrics test: from the llama.cpp sources that
# llama-cpp-python's PyPI source distribution carries (vendor/llama.cpp), for the CPU, into
# BUILD_DIR (kept between runs: only the first run compiles, several minutes). Writes
# OUT_DIR/llama-server naming the binary, or OUT_DIR/SKIP with the reason (no network, no
# compiler, no cmake): the test then skips, saying why.
#   tests/llama/prepare_server_binary.sh OUT_DIR BUILD_DIR
set -uo pipefail
out=$1 build=$2
mkdir -p "$out" "$build"
rm -f "$out/SKIP" "$out/llama-server"
skip() { echo "$1" > "$out/SKIP"; echo "llama-server: $1"; exit 0; }
[[ -n "${IRONBENCH_SKIP_LLAMA:-}" ]] && skip "IRONBENCH_SKIP_LLAMA is set"
binary=$build/build/bin/llama-server
if [[ ! -x "$binary" ]]; then
  command -v cmake > /dev/null || skip "no cmake to build llama-server"
  command -v c++ > /dev/null || skip "no C++ compiler to build llama-server"
  command -v python3 > /dev/null || skip "no python3 to download llama.cpp's sources"
  version=0.3.36  # the llama-cpp-python of tests/llama/prepare.sh: the same llama.cpp
  if [[ ! -d "$build/src/vendor/llama.cpp" ]]; then
    python3 -m pip download --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$build" \
      > "$out/download.log" 2>&1 || skip "pip download llama-cpp-python failed: $(tail -1 "$out/download.log")"
    mkdir -p "$build/src"
    tar xzf "$build/llama_cpp_python-$version.tar.gz" -C "$build/src" --strip-components=1 ||
      skip "cannot unpack llama-cpp-python's sources"
  fi
  echo "llama-server: building llama.cpp's server (several minutes)"
  cmake -S "$build/src/vendor/llama.cpp" -B "$build/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DGGML_OPENMP=OFF -DGGML_BLAS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_WEBUI=OFF -DBUILD_SHARED_LIBS=OFF > "$out/cmake.log" 2>&1 ||
    skip "configuring llama.cpp failed: $(tail -1 "$out/cmake.log")"
  cmake --build "$build/build" -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}" --target llama-server > "$out/build.log" 2>&1 ||
    skip "building llama-server failed: $(grep -m1 'error' "$out/build.log" || tail -1 "$out/build.log")"
fi
echo "$binary" > "$out/llama-server"
echo "llama-server: $binary"
