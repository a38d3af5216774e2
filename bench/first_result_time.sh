#!/usr/bin/env bash
# Time from a fresh machine to the first result: the README's first command, step by step, in a
# minimal Debian 12 (debootstrap --variant=minbase, as a container image has it) holding a fresh
# clone of this repository's HEAD. Every package comes from Debian's mirror, so the apt downloads
# and installs are in the time. Needs root, debootstrap and network access to the mirror.
# Usage: bench/first_result_time.sh WORKDIR [SETUP_ARGS...]
#   WORKDIR     an empty or missing folder (the root file system is made there; about 2 GB)
#   SETUP_ARGS  passed to scripts/setup.sh (default: none, as the README's command has)
# Prints one line per step (setup, configure, build, run) and the total; the run's own output
# goes to WORKDIR/first-result.log.
set -euo pipefail
(($# >= 1)) || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
work=$1
shift
[[ $(id -u) -eq 0 ]] || { echo "first_result_time: needs root (debootstrap and chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "first_result_time: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 2; }
[[ ! -e $work || -z $(ls -A "$work") ]] || { echo "first_result_time: '$work' exists and is not empty" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$(realpath -m "$work")/root
mkdir -p "$root"

start=$(date +%s.%N)
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { echo "first_result_time: debootstrap failed (see $work/debootstrap.log)" >&2; exit 1; }
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s-security bookworm-security main\n' \
  "$mirror" "$mirror" "${mirror%/debian}/debian" >"$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q "$repo" "$root/ironbench"
echo "machine made: $(echo "$(date +%s.%N) - $start" | bc) s (not counted)"

# The steps run in a private mount namespace, so /proc, /sys and /dev go away with it.
log=$(realpath "$work")/first-result.log
unshare --mount --propagation private bash -s "$root" "$log" "$@" <<'EOF'
set -euo pipefail
root=$1 log=$2
shift 2
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
step() {
  local name=$1 begin end
  shift
  begin=$(date +%s.%N)
  if ! chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
    bash -c "cd /ironbench && $*" >>"$log" 2>&1; then
    echo "first_result_time: step '$name' failed (see $log)" >&2
    exit 1
  fi
  end=$(date +%s.%N)
  printf '%-10s %7.1f s\n' "$name" "$(echo "$end - $begin" | bc)"
  total=$(echo "${total:-0} + $end - $begin" | bc)
}
step setup "scripts/setup.sh $*"
step configure "cmake --preset release -DCMAKE_UNITY_BUILD=ON"
step build "cmake --build --preset release --target ironbench"
step run "build/release/ironbench run"
printf '%-10s %7.1f s (%.1f min)\n' total "$total" "$(echo "$total / 60" | bc -l)"
EOF
