#!/usr/bin/env bash
# ctest Docs.LayerTableMatchesTheLinkLines: docs/contributing.md's layer table agrees with the
# libraries' link lines (scripts/check_layers.py), and the check fails, naming the row, on a
# copy where they disagree: a dependency left out of a row, one a row lists but nothing links,
# a link that points back up the table, and a folder without a row.
set -euo pipefail
repo=$1
"$repo/scripts/check_layers.py" "$repo"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails_with() {  # DESCRIPTION EXPECTED-TEXT: the check of $tmp/copy fails and prints the text
  local out status=0
  out=$("$repo/scripts/check_layers.py" "$tmp/copy" 2>&1) || status=$?
  if ((status != 1)) || ! grep -qF -- "$2" <<<"$out"; then
    echo "check_layers did not catch $1 (exit $status, expected a line holding '$2'):" >&2
    echo "$out" >&2
    exit 1
  fi
}
fresh_copy() {
  rm -rf "$tmp/copy"
  mkdir -p "$tmp/copy/docs"
  cp "$repo/docs/contributing.md" "$tmp/copy/docs/"
  (cd "$repo" && find src -name CMakeLists.txt -exec cp --parents {} "$tmp/copy" \;)
}

fresh_copy
sed -i 's/^\(| `doctor\/` .*| core, platform, telemetry\), blas |$/\1 |/' "$tmp/copy/docs/contributing.md"
fails_with "a dependency left out" "doctor/: ironbench_doctor links blas/'s libraries"

fresh_copy
sed -i 's/^\(| `platform\/` .*| core\) |$/\1, schema |/' "$tmp/copy/docs/contributing.md"
fails_with "a dependency nothing links" "platform/: its row says it may depend on schema/"

fresh_copy
sed -i 's/target_link_libraries(ironbench_platform PUBLIC ironbench_core)/target_link_libraries(ironbench_platform PUBLIC ironbench_core ironbench_report)/' \
  "$tmp/copy/src/platform/CMakeLists.txt"
fails_with "a link back up the table" "platform/ depends on report/, whose row is below its own"

fresh_copy
mkdir -p "$tmp/copy/src/extra" && echo 'add_library(ironbench_extra STATIC x.cpp)' > "$tmp/copy/src/extra/CMakeLists.txt"
fails_with "a folder without a row" "src/extra/ has no row"
echo "layer table: agrees with the link lines, and each of 4 disagreements is caught"
