#!/usr/bin/env bash
# Runs "$@" in a private mount namespace in which the system's copies of ironbench's
# development packages (headers, CMake and pkg-config files, MPI's wrappers, pkg-config) are
# hidden, so that a build can only succeed from a prefix made by
# scripts/setup.sh --prefix. Needs root (for the namespace); "$@" is usually a command that
# drops to an unprivileged user.
set -euo pipefail
hide_dir() { if [[ -d $1 ]]; then mount -t tmpfs none "$1"; fi; }
hide_file() { if [[ -e $1 ]]; then mount --bind /dev/null "$1"; fi; }
multiarch=$(gcc -print-multiarch)
lib=/usr/lib/$multiarch
for d in /usr/include/fmt /usr/include/CLI /usr/include/nlohmann /usr/include/gtest /usr/include/gmock \
  /usr/include/event2 /usr/include/$multiarch/curl /usr/include/$multiarch/openblas-openmp \
  /usr/include/$multiarch/openblas-pthread /usr/include/$multiarch/openmpi /usr/share/javascript/chart.js \
  $lib/cmake /usr/share/cmake $lib/pkgconfig /usr/share/pkgconfig $lib/openmpi /usr/share/openmpi \
  $lib/openblas-openmp $lib/openblas-pthread; do
  hide_dir "$d"
done
# Files only: a bind mount follows links, so the libraries' .so links (which point at the
# runtime libraries the system itself uses) stay; the checks look at where the build found them.
for f in /usr/include/simdjson.h /usr/include/sqlite3.h /usr/include/pcre2.h /usr/include/curl/curl.h \
  /usr/bin/mpicc.openmpi /usr/bin/pkgconf /usr/bin/curl-config; do
  hide_file "$f"
done
exec "$@"
