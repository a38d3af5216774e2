#!/usr/bin/env bash
# ctest Docs.MapListsEveryPage: docs/README.md lists every page of docs/ and the README's layout
# every folder of src/ (scripts/check_docs_map.py), and the check fails on a copy with a page
# left out of the index, a link to a page that does not exist, and a folder without a line.
set -euo pipefail
repo=$1
"$repo/scripts/check_docs_map.py" "$repo"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fresh_copy() {
  rm -rf "$tmp/copy"
  mkdir -p "$tmp/copy"
  cp -r "$repo/docs" "$repo/README.md" "$tmp/copy/"
  (cd "$repo" && find src -type d -exec mkdir -p "$tmp/copy/{}" \;)
}
fails_with() {  # DESCRIPTION EXPECTED-TEXT
  local out status=0
  out=$("$repo/scripts/check_docs_map.py" "$tmp/copy" 2>&1) || status=$?
  if ((status != 1)) || ! grep -qF -- "$2" <<<"$out"; then
    echo "check_docs_map did not catch $1 (exit $status, expected a line holding '$2'):" >&2
    echo "$out" >&2
    exit 1
  fi
}

fresh_copy
echo "# New" > "$tmp/copy/docs/new-page.md"
fails_with "a page left out of the index" "docs/new-page.md is not listed in docs/README.md"

fresh_copy
rm "$tmp/copy/docs/doctor.md"
fails_with "a link to a missing page" "docs/README.md links doctor.md"

fresh_copy
mkdir -p "$tmp/copy/src/extra" "$tmp/copy/src/serve/extra"
fails_with "a folder without a line" "src/extra/ is not in the README's layout"
fails_with "a serve sub-folder without a line" "src/serve/extra/ is not in the README's layout"
echo "docs map: complete, and each of 4 omissions is caught"
