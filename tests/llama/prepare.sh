#!/usr/bin/env bash
# Makes the llama.cpp server test's fixture in OUT_DIR: a private virtual environment
# (VENV_DIR) with llama-cpp-python's OpenAI-compatible server, compiled from its PyPI source
# distribution for the CPU, and a tiny random-weight GGUF model (OUT_DIR/tiny.gguf, with its
# tokenizer as OUT_DIR/tokenizer.json). OUT_DIR/python names the environment's interpreter.
# Where that is impossible (no python3-venv, no network, no compiler), writes OUT_DIR/SKIP
# with the reason and exits 0: the test then skips, saying why. A venv that already has the
# packages is reused, so only the first run pays for the compilation.
set -uo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
# IRONBENCH_LLAMA_VENV shares one environment (one compilation) among build directories.
venv=${IRONBENCH_LLAMA_VENV:-$2}
mkdir -p "$out" "$(dirname "$venv")"
venv=$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")  # absolute: OUT_DIR/python names it
rm -f "$out/SKIP" "$out/tiny.gguf" "$out/tokenizer.json"
skip() { echo "$1" > "$out/SKIP"; echo "llama fixtures: $1"; exit 0; }
started=$(date +%s)
[[ -n "${IRONBENCH_SKIP_LLAMA:-}" ]] && skip "IRONBENCH_SKIP_LLAMA is set"

# The versions the tests were written against: they depend on details of the server's
# behaviour (which request fields it reads, what it streams, how it answers errors).
llama_cpp_python="llama-cpp-python[server]==0.3.36"
gguf="gguf>=0.16,<1"

if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv" > "$out/venv.log" 2>&1 || skip "python3 -m venv failed (install python3-venv): $(tail -1 "$out/venv.log")"
fi
if ! "$venv/bin/python" -c "import llama_cpp.server.app, gguf" 2> /dev/null; then
  command -v c++ > /dev/null || skip "no C++ compiler to build llama.cpp (install g++)"
  # (No cmake on the machine is fine: the build backend, scikit-build-core, then fetches one.)
  # llama.cpp for the CPU only, as little of it as the Python package loads: no native
  # -march (the build must not depend on the machine it happens to run on), no OpenMP, BLAS,
  # GPU back ends, multimodal library, tools, examples or tests.
  export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_HIP=OFF \
-DGGML_VULKAN=OFF -DGGML_METAL=OFF -DGGML_RPC=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF \
-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF"
  export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
  export MAKEFLAGS=${MAKEFLAGS:--j2}
  echo "llama fixtures: building llama-cpp-python (llama.cpp from source, several minutes)"
  "$venv/bin/pip" install -q "$llama_cpp_python" "$gguf" > "$out/pip.log" 2>&1 ||
    skip "pip install llama-cpp-python failed: $(grep -m1 '^ERROR' "$out/pip.log" || tail -1 "$out/pip.log")"
fi
"$venv/bin/python" "$here/make_tiny_gguf.py" "$out" > "$out/make_tiny_gguf.log" 2>&1 ||
  skip "make_tiny_gguf.py failed: $(tail -1 "$out/make_tiny_gguf.log")"
echo "$venv/bin/python" > "$out/python"
echo "llama fixtures: ready in $(( $(date +%s) - started )) s"
