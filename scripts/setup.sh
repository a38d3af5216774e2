#!/usr/bin/env bash
# Installs every Debian/Ubuntu package ironbench needs to build and test.
# Works on Debian 12 and Ubuntu 22.04 or newer, as root or through sudo.
#   scripts/setup.sh                         install the build and test dependencies with apt
#   scripts/setup.sh --dry-run               print the package list and exit
# Without root (apt-get download; the machine's compiler, CMake, CUDA and PyTorch are used):
#   scripts/setup.sh --bundle FILE           download the packages into one archive FILE
#   scripts/setup.sh --prefix DIR            download and unpack them into DIR
#   scripts/setup.sh --prefix DIR --from FILE  unpack a bundle made elsewhere into DIR
# then `. DIR/env.sh` before `cmake --preset release` (docs/deps-prefix.md).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libopenblas-openmp-dev   # GEMM provider on the CPU (OpenMP threading, like the STREAM kernels)
  libcli11-dev             # command line
  nlohmann-json3-dev       # JSON results
  libfmt-dev               # formatting
  libgtest-dev             # tests
  libopenmpi-dev openmpi-bin  # MPI communicator (collectives, tp_infer) and its launcher
  libcurl4-openssl-dev     # serving client (HTTP/1.1, TLS, one event loop for every stream)
  libevent-dev             # serve-sim, the simulated OpenAI-compatible server
  libsimdjson-dev          # the serving client's JSON parsing
  libpcre2-dev             # tokenizer pre-tokenizer patterns (Unicode classes)
  libyaml-cpp-dev          # experiment recipes (YAML, with line and column for every error)
  libsqlite3-dev           # the results store
  libpq-dev                # the shared PostgreSQL results store (--db postgresql://…)
  postgresql               # the PostgreSQL server the results store's tests start (tests/postgres/server.sh)
  zlib1g-dev               # serve's synthetic PNG images (deflate, CRC)
  libjpeg-dev              # serve's synthetic JPEG images (libjpeg-turbo; without it --image-format jpeg is refused)
  libjs-chart.js           # Chart.js, compiled into the HTML report
  python3-venv             # a private Python with Hugging Face tokenizers for the tokenizer test
  clang-format-14          # scripts/lint.sh: the format check
)

# Installed where the distribution packages them (Debian 12, Ubuntu 23.04 and newer); the
# tests that need them skip with the reason elsewhere.
optional_packages=(
  hipcc                    # compiles the GPU kernels for AMD GPUs (gfx90a, gfx940) in the tests
  chromium                 # renders the HTML report in the tests (headless)
  clang-tidy-16 libomp-16-dev  # scripts/lint.sh's clang-tidy (it reads clang's omp.h); not in Ubuntu 22.04
  clang-16 libclang-rt-16-dev  # scripts/fuzz.sh: clang with libFuzzer and the sanitizers' runtimes
  libtorch-dev             # ironbench train on CPUs (libtorch 1.13 on Debian 12); GPU machines use PyTorch's
)

# What a bundle holds: the libraries and headers, not the toolchain (the machine's own compiler,
# CMake and GPU toolkit build with them), plus pkg-config.
bundle_packages=(pkgconf)
for p in "${packages[@]}"; do
  case $p in build-essential | cmake | ninja-build | pkg-config | git | ca-certificates | python3-venv | clang-format-14 | postgresql) ;;
  *) bundle_packages+=("$p") ;;
  esac
done

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
mode=install bundle='' prefix='' from=''
while (($#)); do
  case $1 in
  --dry-run) mode=dry-run ;;
  --bundle) (($# > 1)) || usage; bundle=$2; shift ;;
  --prefix) (($# > 1)) || usage; prefix=$2; shift ;;
  --from) (($# > 1)) || usage; from=$2; shift ;;
  -h | --help) usage ;;
  *) echo "setup: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

[[ -z $from || -n $prefix ]] || { echo "setup: --from FILE needs --prefix DIR" >&2; exit 2; }
if [[ $mode == dry-run ]]; then
  printf '%s\n' "${packages[@]}" "${optional_packages[@]}"
  exit 0
fi

if [[ -n $bundle || -n $prefix ]]; then
  source "$(dirname "$0")/lib/deps_prefix.sh"
  [[ -z $from || -z $bundle ]] || { echo "setup: --from and --bundle are exclusive" >&2; exit 2; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if [[ -n $from ]]; then
    [[ -r $from ]] || { echo "setup: cannot read bundle '$from'" >&2; exit 2; }
    tar -xf "$from" -C "$work"
  else
    (cd "$work" && deps_download "${bundle_packages[@]}")
  fi
  if [[ -n $bundle ]]; then
    bundle=$(realpath -m "$bundle")
    mkdir -p "$(dirname "$bundle")"
    tar -cf "$bundle" -C "$work" .
    echo "setup: bundle of $(grep -c . "$work/packages.txt") packages written to $bundle ($(du -h "$bundle" | cut -f1))" >&2
  fi
  if [[ -n $prefix ]]; then
    [[ ! -e $prefix || -z $(ls -A "$prefix") ]] || { echo "setup: prefix '$prefix' exists and is not empty" >&2; exit 2; }
    mkdir -p "$prefix"
    deps_make_prefix "$work" "$(realpath "$prefix")"
  fi
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
missing_optional=()
for p in "${optional_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing_optional+=("$p")
done
if ((${#missing[@]} == 0 && ${#missing_optional[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages and ${#optional_packages[@]} optional ones are installed"
  exit 0
fi

run_as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}
updated=false
if ((${#missing[@]} > 0)); then
  run_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  updated=true
fi
for p in "${missing_optional[@]}"; do
  if apt-cache show "$p" >/dev/null 2>&1; then
    missing+=("$p")
  else
    echo "setup: $p is not packaged for this distribution; the tests that need it will be skipped"
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "setup: installing ${missing[*]}"
if [[ $updated == false ]]; then
  run_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
fi
run_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
