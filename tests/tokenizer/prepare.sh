#!/usr/bin/env bash
# Makes the tokenizer test's fixtures in OUTPUT_DIR with Hugging Face `tokenizers` from PyPI,
# installed into a private virtual environment (VENV_DIR). Where that is impossible (no
# python3-venv, no network), writes OUTPUT_DIR/SKIPPED with the reason and exits 0: the test
# then skips, saying why.
# With SOURCE_DIR (a folder kept between runs): the real models' tokenizers instead, into
# OUTPUT_DIR/real (make_real_tokenizers.py), from the vocabularies of llama-cpp-python's PyPI
# source distribution (llama.cpp's models/ggml-vocab-*.gguf: Llama 2, Gemma 4, XLM-RoBERTa)
# and mistral-common's wheel (Mistral 7B's SentencePiece models), downloaded once into it.
#   tests/tokenizer/prepare.sh OUTPUT_DIR VENV_DIR [SOURCE_DIR]
set -uo pipefail
out=$1
venv=$2
sources=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
[[ -n "$sources" ]] && out=$out/real
mkdir -p "$out"
rm -f "$out/SKIPPED"
skip() { echo "$1" > "$out/SKIPPED"; echo "tokenizer fixtures: $1"; exit 0; }
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv" > "$out/venv.log" 2>&1 || skip "python3 -m venv failed (install python3-venv): $(tail -1 "$out/venv.log")"
fi
if ! "$venv/bin/python" -c "import tokenizers" 2> /dev/null; then
  "$venv/bin/pip" install -q "tokenizers>=0.20" > "$out/pip.log" 2>&1 || skip "pip install tokenizers failed: $(tail -1 "$out/pip.log")"
fi
if [[ -z "$sources" ]]; then
  "$venv/bin/python" "$here/make_tokenizers.py" "$out" || skip "make_tokenizers.py failed"
  exit 0
fi
llama_cpp_python=0.3.36  # the version tests/llama and tests/chat_template download
mistral_common=1.13.1
mkdir -p "$sources"
if [[ ! -s "$sources/ggml-vocab-nomic-bert-moe.gguf" ]]; then
  python3 -m pip download --no-deps --no-binary :all: "llama-cpp-python==$llama_cpp_python" -d "$sources" \
    > "$out/download.log" 2>&1 || skip "pip download llama-cpp-python failed: $(tail -1 "$out/download.log")"
  models=llama_cpp_python-$llama_cpp_python/vendor/llama.cpp/models
  tar xzf "$sources/llama_cpp_python-$llama_cpp_python.tar.gz" -C "$sources" --strip-components=4 \
    "$models/ggml-vocab-llama-spm.gguf" "$models/ggml-vocab-llama-spm.gguf.inp" "$models/ggml-vocab-llama-spm.gguf.out" \
    "$models/ggml-vocab-gemma-4.gguf" "$models/ggml-vocab-gemma-4.gguf.inp" "$models/ggml-vocab-gemma-4.gguf.out" \
    "$models/ggml-vocab-nomic-bert-moe.gguf" || skip "cannot unpack the vocabularies of llama-cpp-python's sources"
  rm -f "$sources/llama_cpp_python-$llama_cpp_python.tar.gz"
fi
if [[ ! -s "$sources/tokenizer.model.v1" ]]; then
  python3 -m pip download --no-deps "mistral-common==$mistral_common" -d "$sources" > "$out/download.log" 2>&1 ||
    skip "pip download mistral-common failed: $(tail -1 "$out/download.log")"
  "$venv/bin/python" -c '
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in ("tokenizer.model.v1", "mistral_instruct_tokenizer_240323.model.v3"):
        with open(sys.argv[2] + "/" + name, "wb") as f:
            f.write(wheel.read("mistral_common/data/" + name))
' "$sources/mistral_common-$mistral_common-py3-none-any.whl" "$sources" ||
    skip "cannot unpack the SentencePiece models of mistral-common's wheel"
  rm -f "$sources/mistral_common-$mistral_common-py3-none-any.whl"
fi
"$venv/bin/python" "$here/make_real_tokenizers.py" "$out" "$sources"
status=$?
# 3: a rebuilt file is not the original (make_real_tokenizers.py): the fixture fails.
[[ $status -eq 3 ]] && exit 1
[[ $status -eq 0 ]] || skip "make_real_tokenizers.py failed"
