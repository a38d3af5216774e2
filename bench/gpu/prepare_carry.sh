#!/usr/bin/env bash
# Makes the folder a short GPU lease carries (docs/gpu.md), on a machine without a GPU:
#   CARRY/prebuilt.tar.xz        ironbench, ironbench-train and the GPU test binaries of BUILD_DIR
#   CARRY/prebuilt.source_dir    the repository they were built in (the tests name it)
#   CARRY/ironbench-deps.tar     the dependency bundle (scripts/setup.sh --bundle), unless present
#   CARRY/syslibs.tar.xz         base libraries they load that a bundle leaves out
# BUILD_DIR is configured for the GPU machine: CUDA 13, -DCMAKE_CUDA_ARCHITECTURES=90,
# -DIRONBENCH_NATIVE=OFF (another CPU runs it), libtorch from the PyTorch wheel the machine has.
# The peers' binaries (BabelStream's cuda-stream, nvbandwidth) go in CARRY/peers/, built from
# their own repositories (docs/gpu.md). Prints the sizes: everything carried must stay under 64 MiB.
#
# Usage: bench/gpu/prepare_carry.sh BUILD_DIR CARRY
set -euo pipefail
(($# == 2)) || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "$1" 2>/dev/null && pwd) || { echo "prepare_carry: no build directory '$1'" >&2; exit 2; }
carry=$2
mkdir -p "$carry"
[[ $build_dir == "$repo"/* ]] || { echo "prepare_carry: $build_dir is not inside $repo" >&2; exit 2; }
relative=${build_dir#"$repo"/}
binaries=()
for f in ironbench ironbench-train tests/gpu/gpu_tests tests/unit/train_torch_tests; do
  if [[ -x $build_dir/$f ]]; then binaries+=("$relative/$f"); else echo "prepare_carry: no $relative/$f (skipped)" >&2; fi
done
[[ -x $build_dir/ironbench ]] || { echo "prepare_carry: $build_dir/ironbench is not built" >&2; exit 1; }
tar -cf - -C "$repo" "${binaries[@]}" | xz -T0 -6 >"$carry/prebuilt.tar.xz"
echo "$repo" >"$carry/prebuilt.source_dir"
[[ -s $carry/ironbench-deps.tar ]] || "$repo/scripts/setup.sh" --bundle "$carry/ironbench-deps.tar"

# The base libraries the binaries and the bundle's libraries load that a bundle leaves out
# (docs/deps-prefix.md), for a minimal image that lacks some (lease.sh uses only those):
# everything ldd resolves outside the prefix, but glibc, the compiler's runtime and CUDA's.
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
"$repo/scripts/setup.sh" --prefix "$prefix/deps" --from "$carry/ironbench-deps.tar" >/dev/null
mkdir -p "$prefix/syslibs"
(
  # shellcheck source=/dev/null
  . "$prefix/deps/env.sh"
  for f in "${binaries[@]/#/$repo/}" $(find "$prefix/deps" -name '*.so*' -type f); do ldd "$f" 2>/dev/null; done
) | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u | grep -v -e "$prefix" -e /cuda -e /torch/ -e /nvidia/ |
  grep -vE '^(libc|libm|libpthread|libdl|librt|libutil|libresolv|libstdc\+\+|libgcc_s|libcuda|libnvidia)[.-]|^ld-linux' |
  while read -r _ path; do cp -L "$path" "$prefix/syslibs/"; done
tar -cJf "$carry/syslibs.tar.xz" -C "$prefix" syslibs
du -sh "$carry"/* | sed 's/^/prepare_carry: /'
du -sh "$carry" | sed 's/^/prepare_carry: in all /'
