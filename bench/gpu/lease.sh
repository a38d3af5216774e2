#!/usr/bin/env bash
# One call of a short GPU lease (docs/gpu.md): binaries built elsewhere, the dependency bundle and
# the peers' binaries are carried in CARRY (bench/gpu/prepare_carry.sh makes it); this unpacks
# them where they were built for, then runs bench/gpu/verify.sh with a deadline, writing
# summary.md and one archive of logs and raw results into OUT after every step.
# A second call on the same (still warm) machine reuses the first one's unpacked prefix.
#
# Usage: bench/gpu/lease.sh CARRY OUT DEADLINE_S [verify.sh options, e.g. --only a,b]
set -uo pipefail
(($# >= 3)) || { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
carry=$(cd "$1" 2>/dev/null && pwd) || { echo "lease: no carried folder '$1' (bench/gpu/prepare_carry.sh makes it)" >&2; exit 2; }
out=$2 deadline=$3
shift 3
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$repo/build/lease
mkdir -p "$work" "$out" || exit 2

# libtorch, NCCL and cuBLAS as the machine has them (PyTorch's wheel, the CUDA toolkit).
site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)
extra=/usr/local/cuda/lib64
[[ -n $site ]] && extra+=:$site/nvidia/cu13/lib:$site/torch/lib:$site/nvidia/nccl/lib
export LD_LIBRARY_PATH=$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Base libraries a bundle leaves out (docs/deps-prefix.md) that a minimal image may lack too
# (libunistring, libidn2 ... for libcurl): CARRY/syslibs.tar.xz holds the building machine's copies;
# only those this machine lacks are used, after everything else.
if [[ -f $carry/syslibs.tar.xz ]]; then
  rm -rf "$work/carried-syslibs" && mkdir -p "$work/syslibs" "$work/carried-syslibs"
  tar -xJf "$carry/syslibs.tar.xz" -C "$work/carried-syslibs" --strip-components=1
  for lib in "$work"/carried-syslibs/*.so*; do
    name=$(basename "$lib")
    ldconfig -p | grep "^[[:space:]]*$name " >/dev/null || cp "$lib" "$work/syslibs/"
  done
  echo "lease: libraries this machine lacks, from CARRY/syslibs: $(ls "$work/syslibs" | tr '\n' ' ')" >&2
  LD_LIBRARY_PATH+=:$work/syslibs
fi

# Device machines run commands as root: Open MPI (one-rank NCCL runs start under it) allows it.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The dependency prefix, unpacked once per machine.
if [[ ! -r $work/deps/env.sh ]]; then
  rm -rf "$work/deps"
  "$repo/scripts/setup.sh" --prefix "$work/deps" --from "$carry/ironbench-deps.tar" >"$out/lease.log" 2>&1 || {
    echo "lease: the bundle could not be unpacked: $(tail -n 1 "$out/lease.log")" >&2
    exit 1
  }
fi

# The binaries, at the build directory they were made in: the tests name the ironbench they
# run by its absolute path, so where the repository lies elsewhere here a link stands in.
# Where they cannot run here (another C library, say), this machine builds them.
build_dir=$repo/build/gpu-device
prebuilt=()
if [[ -f $carry/prebuilt.tar.xz ]]; then
  built_at=$(cat "$carry/prebuilt.source_dir")
  tar -xJf "$carry/prebuilt.tar.xz" -C "$repo" || exit 1
  if [[ $built_at != "$repo" && ! -e $built_at ]]; then
    mkdir -p "$(dirname "$built_at")" && ln -s "$repo" "$built_at"
  fi
  if why=$(. "$work/deps/env.sh" && "$built_at/build/gpu/ironbench" --version 2>&1); then
    build_dir=$built_at/build/gpu
    prebuilt=(--prebuilt)
  else
    echo "lease: the carried binaries do not run here, building instead: $why" | tee -a "$out/lease.log" >&2
  fi
fi

outdir=$work/verify-1
n=2
while [[ -e $outdir ]]; do outdir=$work/verify-$n; n=$((n + 1)); done
peers=()
[[ -x $carry/peers/cuda-stream ]] && peers+=(--babelstream "$carry/peers/cuda-stream")
[[ -x $carry/peers/nvbandwidth ]] && peers+=(--nvbandwidth "$carry/peers/nvbandwidth")
[[ -f $carry/peers/llama-server.tar.xz ]] && peers+=(--llama-carry "$carry")
exec "$repo/bench/gpu/verify.sh" "$outdir" --deps "$work/deps" "${prebuilt[@]}" --build-dir "$build_dir" "${peers[@]}" \
  --deadline "$deadline" --package "$out" "$@"
