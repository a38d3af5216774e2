#!/usr/bin/env bash
# Static checks: clang-tidy (.clang-tidy) over src/ and clang-format (.clang-format) over the
# C++ files of src/, tests/ and bench/.
# Usage: scripts/lint.sh [--tidy-only | --format-only | --fix-format] [--changed] [-j N]
#   --fix-format   rewrite the files in place with clang-format instead of checking them
#   --changed      clang-tidy only the files of src/ that differ from origin/main (or, when
#                  HEAD is origin/main, from the commit 10 before HEAD), with the .cpp files of
#                  changed headers' folders;
#                  scripts/test.sh uses it, the whole tree is ctest's Lint.ClangTidyEveryFile
#                  (label slow)
# clang-tidy reads build/release/compile_commands.json: configure the release build first
# (cmake --preset release); generated sources and .cu files are left out. When the release
# build compiles in unity mode (CMAKE_UNITY_BUILD, as scripts/test.sh configures it), its
# database names the unity sources instead of the files: clang-tidy then reads the database of
# build/tidy, the release configuration without unity mode (configured here, never built).
set -euo pipefail
cd "$(dirname "$0")/.."

tidy=true
format=true
fix=false
changed=false
jobs=$(nproc)
while (($#)); do
  case $1 in
    --tidy-only) format=false ;;
    --format-only) tidy=false ;;
    --fix-format) tidy=false fix=true ;;
    --changed) changed=true ;;
    -j) jobs=$2; shift ;;
    -j*) jobs=${1#-j} ;;
    *) echo "usage: scripts/lint.sh [--tidy-only | --format-only | --fix-format] [--changed] [-j N]" >&2; exit 2 ;;
  esac
  shift
done

tool() {  # the first of the names given that is installed
  local name
  for name in "$@"; do
    if command -v "$name" >/dev/null; then echo "$name"; return; fi
  done
  echo "scripts/lint.sh: none of $* found (scripts/setup.sh installs them)" >&2
  exit 1
}

status=0
if $format; then
  # The format was tuned with clang-format 14 (Debian 12's): others break some lines differently.
  clang_format=$(tool clang-format-14 clang-format)
  mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'src/*.h' 'src/*.cu' 'src/*.cuh' \
                                     'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'bench/*.hpp')
  if $fix; then
    "$clang_format" -i "${files[@]}"
    echo "lint: clang-format rewrote ${#files[@]} files"
  elif "$clang_format" --dry-run --Werror "${files[@]}"; then
    echo "lint: clang-format: ${#files[@]} files formatted"
  else
    echo "lint: clang-format: files above differ from .clang-format (scripts/lint.sh --fix-format)" >&2
    status=1
  fi
fi

if $tidy; then
  # clang-tidy 16: 14 and 15 reject lambdas capturing structured bindings (C++20), which GCC builds.
  if ! command -v clang-tidy-16 >/dev/null && ! grep -q 'clang-tidy-16' <(apt-cache policy clang-tidy-16 2>/dev/null); then
    # Ubuntu 22.04 packages clang-tidy up to 15 (apt.llvm.org has 16): the format check still runs.
    echo "lint: clang-tidy skipped: clang-tidy-16 is not packaged for this distribution (apt.llvm.org has it)" >&2
    tidy=false
  fi
fi
if $tidy; then
  clang_tidy=$(tool clang-tidy-16)
  database=build/release/compile_commands.json
  if [[ ! -f $database ]]; then
    echo "lint: no $database: run cmake --preset release first" >&2
    exit 1
  fi
  tidy_dir=build/release
  if grep -q '/Unity/unity_' "$database"; then
    tidy_dir=build/tidy
    if ! cmake --preset release -B "$tidy_dir" -DCMAKE_UNITY_BUILD=OFF > build/tidy-configure.log 2>&1; then
      echo "lint: configuring $tidy_dir for clang-tidy failed (build/tidy-configure.log)" >&2
      exit 1
    fi
    database=$tidy_dir/compile_commands.json
  fi
  # The translation units of src/ in the database: no CUDA, nothing generated in the build tree,
  # and not the libtorch ones (src/train: they use GCC's precompiled header, and clang cannot
  # parse libtorch 1.13's headers with libstdc++ 12).
  mapfile -t units < <(python3 - "$database" "$PWD" <<'PY'
import json, os, sys
root = os.path.join(sys.argv[2], "src") + os.sep
for entry in json.load(open(sys.argv[1])):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    command = entry.get("command") or " ".join(entry.get("arguments", []))
    if path.startswith(root) and path.endswith(".cpp") and "cmake_pch" not in command and "/torch/" not in command:
        print(path)
PY
  )
  if $changed; then
    # What this change touched: against origin/main's merge base, plus uncommitted edits. A
    # header's change checks the .cpp files of its folder. A fresh clone of main (CI's) has
    # origin/main at HEAD and cannot tell where the change began: it checks the files of the
    # last $recent_commits commits (a submission's usually; the last commit alone let an
    # earlier commit's findings through), or of every commit a shallow clone has.
    recent_commits=10
    base=$(git merge-base HEAD origin/main 2>/dev/null || true)
    if [[ -z $base || $base == "$(git rev-parse HEAD)" ]]; then
      base=$(git rev-list --max-count=$((recent_commits + 1)) HEAD | tail -n 1)
      if [[ $base == "$(git rev-parse HEAD)" ]]; then base=""; fi
    fi
    mapfile -t touched < <({ [[ -n $base ]] && git diff --name-only "$base" HEAD; git diff --name-only HEAD; } |
                           grep -E '^src/.*\.(cpp|hpp)$' | sort -u)
    mapfile -t units < <(for unit in "${units[@]}"; do
                           for file in "${touched[@]}"; do
                             if [[ $unit == "$PWD/$file" || ( $file == *.hpp && $unit == "$PWD/$(dirname "$file")/"*.cpp ) ]]; then
                               echo "$unit"; break
                             fi
                           done
                         done)
    echo "lint: clang-tidy: ${#units[@]} files of this change (${base:-no base commit}..working tree)"
  fi
  if ((${#units[@]} == 0)); then
    echo "lint: clang-tidy: no file of src/ to check"
    exit $status
  fi
  # omp.h: clang's own (libomp-16-dev); GCC's does not parse with clang.
  extra=(--extra-arg=-Wno-unknown-warning-option)
  start=$SECONDS
  # --quiet: only findings; -p: the release configuration's flags. Each file is checked on its own.
  if printf '%s\n' "${units[@]}" | sort -u |
      xargs -P "$jobs" -n 4 "$clang_tidy" --quiet -p "$tidy_dir" "${extra[@]}" 2>/dev/null; then
    echo "lint: clang-tidy: ${#units[@]} files clean ($((SECONDS - start)) s, -j $jobs)"
  else
    echo "lint: clang-tidy reported the findings above (.clang-tidy)" >&2
    status=1
  fi
fi
exit $status
