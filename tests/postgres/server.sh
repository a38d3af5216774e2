#!/usr/bin/env bash
# The PostgreSQL server the results-store tests write to (a ctest fixture).
#   server.sh start DIR   initdb into a fresh folder, start a server on a free port of 127.0.0.1
#                         with a password-protected superuser, and write DIR/url
#                         (postgresql://ironbench:PASSWORD@127.0.0.1:PORT/postgres), DIR/password
#                         and DIR/state (what stop needs)
#   server.sh stop DIR    stop that server and remove its folder
# Where the PostgreSQL server programs (initdb, pg_ctl, postgres) are missing, start writes the
# reason to DIR/skip and succeeds: the tests then skip with it. As root, initdb and postgres
# refuse to run: they run as the user `postgres` (Debian's package makes it), else `nobody`.
set -euo pipefail

action=${1:-} dir=${2:-}
[[ ($action == start || $action == stop) && -n $dir ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

find_bin() {
  local candidate
  if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"
    return
  fi
  for candidate in /usr/lib/postgresql/*/bin; do
    [[ -x $candidate/pg_ctl && -x $candidate/initdb ]] && { echo "$candidate"; return; }
  done
  return 1
}

as_owner() {  # runs "$@" as the server's user
  if [[ -n ${owner:-} ]]; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

if [[ $action == stop ]]; then
  [[ -f $dir/state ]] || exit 0
  # shellcheck disable=SC1091
  source "$dir/state"
  # Immediate: the data is removed next, so nothing needs a checkpoint. Bounded: a stop that
  # waited on pg_ctl took 45 s at the end of full runs with builds beside them, so pg_ctl waits
  # 5 s at most and the server's processes that are left are then killed.
  # Each step's end time goes to DIR.stop-times (a stop took 34-45 s inside full runs).
  times="$dir.stop-times"
  echo "start $(date +%s.%N)" >"$times"
  pid=$(head -n 1 "$base/data/postmaster.pid" 2>/dev/null || true)
  as_owner "$bin/pg_ctl" -D "$base/data" -m immediate -w -t 5 stop >/dev/null 2>&1 || true
  echo "pg_ctl $(date +%s.%N)" >>"$times"
  if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
    pkill -KILL -P "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
  fi
  echo "killed $(date +%s.%N)" >>"$times"
  # The data folder is removed in the background (thousands of files: 3 s for a fresh one on a
  # busy machine), its output detached so that ctest does not wait for it.
  rm -f "$dir/url" "$dir/password" "$dir/state"
  setsid rm -rf "$base" </dev/null >/dev/null 2>&1 &
  echo "removing $(date +%s.%N)" >>"$times"
  exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
if ! bin=$(find_bin); then
  echo "the PostgreSQL server programs (initdb, pg_ctl) are not installed (Debian: apt-get install postgresql)" >"$dir/skip"
  cat "$dir/skip"
  exit 0
fi

owner=''
if [[ $(id -u) == 0 ]]; then
  if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
fi
base=$(mktemp -d /tmp/ironbench-pg.XXXXXX)
chmod 755 "$base"
password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$password" >"$base/pwfile"
[[ -z $owner ]] || chown -R "$owner" "$base"
printf 'bin=%q\nbase=%q\nowner=%q\n' "$bin" "$base" "$owner" >"$dir/state"

as_owner "$bin/initdb" -D "$base/data" -U ironbench --pwfile="$base/pwfile" -A scram-sha-256 -E UTF8 --no-locale \
  >"$base/initdb.log" 2>&1 || { cat "$base/initdb.log" >&2; exit 1; }
rm -f "$base/pwfile"

# A free port: the kernel's pick for a socket bound to port 0, tried again if taken meanwhile.
for attempt in 1 2 3 4 5; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if as_owner "$bin/pg_ctl" -D "$base/data" -l "$base/server.log" -w -t 60 \
    -o "-p $port -k $base -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null; then
    printf 'postgresql://ironbench:%s@127.0.0.1:%s/postgres\n' "$password" "$port" >"$dir/url"
    printf '%s\n' "$password" >"$dir/password"
    echo "PostgreSQL $("$bin/postgres" -V | awk "{print \$3}") on 127.0.0.1:$port (data in $base)"
    exit 0
  fi
  echo "start on port $port failed (attempt $attempt):" >&2
  tail -n 3 "$base/server.log" >&2 || true
done
exit 1
