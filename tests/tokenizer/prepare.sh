#!/usr/bin/env bash
# Makes the tokenizer test's fixtures in OUTPUT_DIR with Hugging Face `tokenizers` from PyPI,
# installed into a private virtual environment (VENV_DIR). Where that is impossible (no
# python3-venv, no network), writes OUTPUT_DIR/SKIPPED with the reason and exits 0: the test
# then skips, saying why.
set -uo pipefail
out=$1
venv=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
rm -f "$out/SKIPPED"
skip() { echo "$1" > "$out/SKIPPED"; echo "tokenizer fixtures: $1"; exit 0; }
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv" > "$out/venv.log" 2>&1 || skip "python3 -m venv failed (install python3-venv): $(tail -1 "$out/venv.log")"
fi
if ! "$venv/bin/python" -c "import tokenizers" 2> /dev/null; then
  "$venv/bin/pip" install -q "tokenizers>=0.20" > "$out/pip.log" 2>&1 || skip "pip install tokenizers failed: $(tail -1 "$out/pip.log")"
fi
"$venv/bin/python" "$here/make_tokenizers.py" "$out" || skip "make_tokenizers.py failed"
