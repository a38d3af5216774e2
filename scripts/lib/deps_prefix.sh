# shellcheck shell=bash
# Functions for scripts/setup.sh: ironbench's Debian/Ubuntu packages fetched without root
# (apt-get download), kept as one archive (a bundle) and unpacked into a private prefix.
# Sourced, not run. Each function prints what it does on stderr.

# The packages a bundle leaves out: the compiler toolchain, the C and C++ runtime, and base
# libraries every Debian/Ubuntu machine that can build C++ already has (zlib, OpenSSL, GnuTLS,
# ICU ...). The machine's own versions are used, so the prefix adds to it and replaces nothing.
deps_excluded='^(adduser|autoconf|automake|autotools-dev|binutils.*|cdebconf|cpp(-[0-9]+)?|debconf|debianutils|dpkg|flang-.*|gcc(-[0-9]+)?(-base)?|gfortran(-[0-9]+)?|googletest|install-info|libasan[0-9]+|libatomic1|libaudit.*|libbinutils|libbsd0|libbz2-1.0|libc-dev-bin|libc6|libc6-dev|libcap-ng0|libcbor0.*|libcc1-0|libclang-cpp.*|libcom-err2|libcrypt-dev|libcrypt1|libctf.*|libdb5.3|libdebian-installer4|libedit2|libffi[0-9]+|libfido2-1|libflang-.*|libgcc-.*|libgdbm.*|libgfortran-[0-9]+-dev|libgmp10|libgnutls30|libgomp1|libgprofng0|libhogweed6|libhwloc-plugins|libicu[0-9]+|libidn2-0|libisl[0-9]+|libitm1|libjs-jquery.*|libkeyutils1|libllvm.*|liblsan0|libltdl-dev|liblzma5|libmd0|libmlir-.*|libmpc3|libmpfr6|libnettle8|libnewt0.52|libnsl-dev|libnsl2|libp11-kit0|libpam.*|libperl.*|libreadline8|libselinux1|libsemanage.*|libsepol2|libslang2|libssl3|libstdc\+\+.*|libtasn1-6|libtextwrap1|libtinfo6|libtirpc.*|libtsan[0-9]+|libubsan1|libudev1|libunistring[0-9]+|libuuid1|libx11.*|libxau6|libxcb1|libxdmcp6|libxext6|libxml2|libxnvctrl0|libz3-4|libzstd1|linux-libc-dev|m4|ocl-icd-libopencl1|openssh-client|passwd|perl.*|readline-common|rpcsvc-proto|tar|zlib1g)$'

# apt options that keep apt's state under $1 (a non-root user cannot write /var/lib/apt).
deps_private_apt_options() {
  local state=$1
  mkdir -p "$state/lists/partial" "$state/archives/partial"
  printf '%s\n' "-o" "Dir::State::Lists=$state/lists" "-o" "Dir::Cache::Archives=$state/archives" \
    "-o" "Dir::Cache::pkgcache=$state/pkgcache.bin" "-o" "Dir::Cache::srcpkgcache=$state/srcpkgcache.bin" \
    "-o" "Debug::NoLocking=1"
}

# Downloads the packages in "$@" and everything they depend on (less deps_excluded) into the
# current directory. Uses the machine's package lists when it has them, else fetches its own.
deps_download() {
  local -a apt_options=()
  if ! apt-cache show "$1" >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]]; then
      apt-get update -q >&2
    else
      echo "setup: no package lists readable here; fetching a private copy" >&2
      mapfile -t apt_options < <(deps_private_apt_options "$PWD/.apt")
      apt-get "${apt_options[@]}" update -q >&2
    fi
  fi
  local -a closure
  mapfile -t closure < <(apt-cache "${apt_options[@]}" depends --recurse --no-recommends --no-suggests \
      --no-conflicts --no-breaks --no-replaces --no-enhances "$@" |
    grep -v '^ ' | grep -v '^<' | sort -u | grep -Ev "$deps_excluded")
  ((${#closure[@]})) || { echo "setup: apt-cache found none of: $*" >&2; return 1; }
  echo "setup: downloading ${#closure[@]} packages" >&2
  apt-get "${apt_options[@]}" download "${closure[@]}" >&2
  rm -rf .apt
  printf '%s\n' "${closure[@]}" >packages.txt
}

# Unpacks one .deb file $1 into directory $2 (dpkg-deb where there is one, else ar and tar).
deps_unpack_deb() {
  if command -v dpkg-deb >/dev/null; then
    dpkg-deb -x "$1" "$2"
  else
    local member work
    member=$(ar t "$1" | grep -m1 '^data\.tar')
    work=$(mktemp -d)
    (cd "$work" && ar x "$1" "$member") && tar -xf "$work/$member" -C "$2"
    rm -rf "$work"
  fi
}

# Makes the unpacked tree under prefix $1 usable where it lies: links that pointed into /usr
# point into the prefix, pkg-config files name the prefix, the links Debian's alternatives
# system would have made (BLAS, MPI compiler wrappers) exist, and $1/env.sh sets the variables
# a build and a run need.
deps_fix_prefix() {
  local prefix=$1 multiarch lib link target
  local dirs=("$prefix"/usr/lib/*-linux-gnu)
  multiarch=${dirs[0]##*/}
  lib=$prefix/usr/lib/$multiarch
  while IFS= read -r link; do
    target=$(readlink "$link")
    ln -sfn "$prefix$target" "$link"
  done < <(find "$prefix" -type l -lname '/*')
  find "$prefix" -name '*.pc' -type f -exec sed -i "s#/usr#$prefix/usr#g" {} +
  ln -sfn openblas-openmp/libopenblas.so.0 "$lib/libopenblas.so.0"
  local wrapper
  for wrapper in mpicc mpicxx mpic++ mpirun mpiexec; do
    [[ -e $prefix/usr/bin/$wrapper.openmpi ]] && ln -sfn "$wrapper.openmpi" "$prefix/usr/bin/$wrapper"
  done
  rm -rf "$prefix/usr/share/doc" "$prefix/usr/share/man"
  cat >"$prefix/env.sh" <<ENV
# ironbench's dependencies unpacked in $prefix: source this file before building or running.
export IRONBENCH_DEPS="$prefix"
export PATH="$prefix/usr/bin:\$PATH"
export PKG_CONFIG_PATH="$lib/pkgconfig:$lib/openblas-openmp/pkgconfig:$prefix/usr/share/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
export CMAKE_PREFIX_PATH="$prefix/usr\${CMAKE_PREFIX_PATH:+:\$CMAKE_PREFIX_PATH}"
export LD_LIBRARY_PATH="$lib:$lib/openblas-openmp:$lib/openmpi/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$prefix/usr"
ENV
  # PMIx (Open MPI's launcher interface) looks for its plugins under its install prefix: the
  # prefix's, not a machine's own PMIx of another version (seen on Ubuntu 24.04: its
  # pcompress plugin did not load into the prefix's library, with a warning on every start).
  [[ -d $lib/pmix2 ]] && echo "export PMIX_INSTALL_PREFIX=\"$lib/pmix2\"" >>"$prefix/env.sh"
  return 0
}

# Unpacks every .deb under directory $1 into prefix $2 and fixes the prefix.
deps_make_prefix() {
  local debs=$1 prefix=$2 deb count=0
  mkdir -p "$prefix"
  for deb in "$debs"/*.deb; do
    deps_unpack_deb "$deb" "$prefix"
    count=$((count + 1))
  done
  ((count)) || { echo "setup: no .deb files in $debs" >&2; return 1; }
  deps_fix_prefix "$prefix"
  echo "setup: $count packages unpacked into $prefix; before building and running: . $prefix/env.sh" >&2
}
