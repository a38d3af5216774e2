#!/usr/bin/env bash
# Makes the chat template test's cases in OUT_DIR: chat templates rendered by Hugging Face
# transformers (from PyPI, in a private virtual environment VENV_DIR) for the test
# conversations of make_chat_cases.py. Without REAL: the project's test templates
# (tests/chat_template/templates). With REAL (a folder kept between runs): the real models'
# templates that llama.cpp keeps in models/templates (Llama 3.x, Qwen 2.5, Mistral and about 70
# more), from llama-cpp-python's PyPI source distribution, into OUT_DIR/real.
# Where that is impossible (no python3-venv, no network), writes SKIPPED with the reason and
# exits 0: the test then skips, saying why.
#   tests/chat_template/prepare.sh OUT_DIR VENV_DIR [REAL]
set -uo pipefail
out=$1 venv=$2 real=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
[[ -n "$real" ]] && out=$out/real
mkdir -p "$out"
rm -f "$out/SKIPPED" "$out/cases.json"
skip() { echo "$1" > "$out/SKIPPED"; echo "chat template cases: $1"; exit 0; }
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv" > "$out/venv.log" 2>&1 || skip "python3 -m venv failed (install python3-venv): $(tail -1 "$out/venv.log")"
fi
if ! "$venv/bin/python" -c "import transformers.utils.chat_template_utils, jinja2" 2> /dev/null; then
  "$venv/bin/pip" install -q "transformers>=4.45" "jinja2>=3.1.6" > "$out/pip.log" 2>&1 ||
    skip "pip install transformers failed: $(tail -1 "$out/pip.log")"
fi
templates=$here/templates
if [[ -n "$real" ]]; then
  version=0.3.36
  templates=$real/templates
  if ! ls "$templates"/*.jinja > /dev/null 2>&1; then
    mkdir -p "$real"
    python3 -m pip download --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$real" \
      > "$out/download.log" 2>&1 || skip "pip download llama-cpp-python failed: $(tail -1 "$out/download.log")"
    mkdir -p "$templates"
    tar xzf "$real/llama_cpp_python-$version.tar.gz" -C "$templates" --strip-components=5 --wildcards \
      "llama_cpp_python-$version/vendor/llama.cpp/models/templates/*.jinja" ||
      skip "cannot unpack the templates of llama-cpp-python's sources"
    rm -f "$real/llama_cpp_python-$version.tar.gz"
  fi
fi
TRANSFORMERS_VERBOSITY=error "$venv/bin/python" "$here/make_chat_cases.py" "$out" "$templates" 2>&1 |
  grep -v "PyTorch was not found" || true
[[ -s "$out/cases.json" ]] || skip "make_chat_cases.py failed"
