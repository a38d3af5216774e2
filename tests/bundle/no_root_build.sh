#!/usr/bin/env bash
# The build without root, end to end: makes a dependency bundle with scripts/setup.sh --bundle,
# then, as an unprivileged user who sees none of the system's development packages, runs
# bench/gpu/verify.sh with that bundle: it must unpack it into a prefix, build from it, skip
# every GPU step with the reason (this machine has no GPU) and write its summary; the binary
# must take its libraries from the prefix and, with the prefix's env.sh, run a verified
# one-rank MPI collective (Open MPI relocated into the prefix).
# Usage: no_root_build.sh SOURCE_DIR WORK_DIR      (exit 77: skipped, with the reason)
set -euo pipefail
source_dir=$1 work=$2
command -v apt-get >/dev/null || { echo "skipped: no apt-get on this machine"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && chmod 777 "$work"

as_user=() hide=()
if [[ $(id -u) -eq 0 ]]; then
  command -v unshare >/dev/null || { echo "skipped: running as root without unshare to hide the system's packages"; exit 77; }
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$work")
  hide=(unshare -m "$source_dir/tests/bundle/hide_dev_packages.sh")
fi
run_user() { "${as_user[@]}" "$@"; }

cd "$work"
run_user "$source_dir/scripts/setup.sh" --bundle "$work/bundle.tar"
# No GPU here: CUDA and libtorch stay off so that the build takes minutes, not the GPU build's.
summary=$work/out/summary.md
fail() { echo "FAILED: $*"; cat "$summary" 2>/dev/null; exit 1; }
if ((${#hide[@]})); then
  for header in /usr/include/fmt/format.h /usr/include/nlohmann/json.hpp /usr/include/CLI/CLI.hpp /usr/include/gtest/gtest.h; do
    "${hide[@]}" test ! -e "$header" || fail "$header is still visible in the namespace"
  done
fi
rc=0
"${hide[@]}" "${as_user[@]}" "$source_dir/bench/gpu/verify.sh" "$work/out" --bundle "$work/bundle.tar" \
  --build-dir "$work/build" --cmake-arg -DIRONBENCH_CUDA=OFF --cmake-arg -DIRONBENCH_TORCH=OFF || rc=$?
((rc == 0)) || fail "verify.sh exited with $rc"
[[ -s $summary ]] || fail "no summary written"
grep -q '^| deps | ok' "$summary" || fail "the bundle was not unpacked"
grep -q '^| build | ok' "$summary" || fail "the build failed: $(tail -n 20 "$work/out/logs/build.log")"
for s in gpu_tests gemm_vs_torch stream_vs_babelstream copy_vs_nvbandwidth train_vs_pytorch collectives_nccl tp_infer_nccl; do
  grep -q "^| $s | skipped: ." "$summary" || fail "GPU step $s was not skipped with a reason"
done
grep -q 'dependencies from the prefix '"$work/out/deps" "$work/out/logs/build.log" || fail "the build did not use the prefix"
grep -q "^fmt_DIR:PATH=$work/out/deps/" "$work/build/CMakeCache.txt" || fail "fmt was not found in the prefix"
readelf -d "$work/build/ironbench" | grep "(RPATH).*$work/out/deps/" >/dev/null || fail "no RPATH into the prefix"
lib_fmt=$(env -u LD_LIBRARY_PATH ldd "$work/build/ironbench" | grep -m1 libfmt)
[[ $lib_fmt == *"$work/out/deps/"* ]] || fail "libfmt resolved outside the prefix: $lib_fmt"
collective=$("${hide[@]}" "${as_user[@]}" bash -c ". '$work/out/deps/env.sh' && '$work/build/ironbench' collectives \
  all_reduce -b 8 -e 4K -f 8 -n 3 -w 1 --no-save 2>&1") || fail "one-rank collective from the prefix: $collective"
grep -q '^run valid' <<<"$collective" || fail "one-rank collective not verified: $collective"
echo "bundle of $(tar -tf "$work/bundle.tar" | grep -c '\.deb$') packages; built as $(run_user id -un) from $work/out/deps; GPU steps skipped:"
grep 'skipped' "$summary"
