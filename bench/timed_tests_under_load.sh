#!/usr/bin/env bash
# The tests that judge wall-clock time, run N times each beside busy loops that keep both cores
# busy: each test's pass count, and each of its timed checks' worst error against its tolerance
# (the "timed:" lines of tests/support/timed_check.hpp). docs/testing.md's rule sets every
# tolerance from this output: at least N = 20 runs with both cores busy, then a margin.
# Usage: bench/timed_tests_under_load.sh [N] [options]
#   N                 runs of each test (default 20)
#   --build-dir DIR   the build whose tests run (default build/release; build it first)
#   --filter REGEX    only the tests whose ctest name matches (default: every *Timed suite's test
#                     and the extra ones below, none labelled slow)
#   --busy K          busy loops (`yes > /dev/null`) beside the tests (default 2; 0 for none)
#   --out DIR         where the logs and the summary go (default build/timed-under-load/DATE)
#   --no-snapshot     run the build's binaries where they are (by default, as root, a copy of them
#                     is mounted over the build folder in a private mount namespace, so that a
#                     rebuild during the hours a run takes changes nothing)
#   --summarize DIR...  print the summary of a run's logs (one in progress, or stopped) and exit;
#                     with several runs, one summary of them all (a test's runs added up, each
#                     check judged against the tolerance of the last run that printed it)
#   --latest DIR      with --summarize: the tests DIR ran count from DIR alone (tests changed
#                     since the earlier runs)
# Runs the tests one at a time, as ctest runs the *Timed suites (RUN_SERIAL), in rounds: every
# test once, then again, N times. PostgreSQL's tests get a server of their own
# (tests/postgres/server.sh, IRONBENCH_TEST_POSTGRES_URL). Prints a table per test and check;
# OUT/summary.md keeps it, OUT/runs.tsv every run, OUT/logs/ every output.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

# Tests that judge time outside a *Timed suite (docs/testing.md, "Tests that judge time"): hang
# guards (a limit 10 times what the work takes on a loaded machine) and a kill that waits for
# evidence; they run beside other tests in ctest, and are measured here all the same.
extra='^Backends/ResultsStore\.SigkillWhileSavingLeavesEarlierRunsIntact/|^BoundedFile\.ADeviceThatNeverEnds|^Recipe(Bounds|Names)\.'

runs=20 build=$repo/build/release filter='' busy=2 out='' snapshot=1 summarize=() latest=''
while (($#)); do
  case $1 in
    --build-dir) build=$(realpath "$2"); shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --busy) busy=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --no-snapshot) snapshot=0; shift ;;
    --summarize)
      shift
      while (($#)) && [[ $1 != -* ]]; do summarize+=("$(realpath "$1")"); shift; done
      ((${#summarize[@]})) || { echo "timed_tests_under_load: --summarize needs a folder" >&2; exit 2; } ;;
    --latest) latest=$(realpath "$2"); shift 2 ;;
    -h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [0-9]*) runs=$1; shift ;;
    *) echo "timed_tests_under_load: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done

summarize() {  # DIR...: one table of DIR/runs.tsv and DIR/checks.tsv for them all
  python3 - "$latest" "$@" <<'EOF'
import collections, csv, os, sys
latest, dirs = sys.argv[1], sys.argv[2:]
if latest and latest not in dirs:
    dirs.append(latest)


def rows(path):
    if not os.path.exists(path):
        return []
    return [r for r in csv.reader(open(path), delimiter="\t") if r and r[0] != "round"]


# The tests the --latest run ran count from it alone.
fresh = {r[1] for r in rows(os.path.join(latest, "runs.tsv"))} if latest else set()
runs = collections.OrderedDict()
checks = collections.OrderedDict()
loads = []
for d in dirs:
    for row in rows(os.path.join(d, "runs.tsv")):
        _, test, outcome, seconds = row[:4]
        if test in fresh and d != latest:
            continue
        r = runs.setdefault(test, {"passed": 0, "failed": 0, "skipped": 0, "seconds": []})
        r[outcome] += 1
        r["seconds"].append(float(seconds))
        if len(row) > 4:
            loads.append(float(row[4]))
    for row in rows(os.path.join(d, "checks.tsv")):
        _, test, check, error, tolerance, unit, value = row
        if test in fresh and d != latest:
            continue
        c = checks.setdefault((test, check), {"errors": [], "values": [], "tolerances": [], "unit": unit})
        c["errors"].append(float(error))
        c["values"].append(float(value))
        c["tolerances"].append(float(tolerance))
loads.sort()
total = sum(r["passed"] + r["failed"] + r["skipped"] for r in runs.values())
lines = [f"{total} runs of {len(runs)} tests"]
if loads:
    lines[0] += (f"; the machine's load average (1 min) as they started: median {loads[len(loads) // 2]:.1f}, "
                 f"{loads[0]:.1f} to {loads[-1]:.1f}")
lines += ["", "| test | passed | failed | skipped | seconds (median, max) |", "| --- | ---: | ---: | ---: | --- |"]
for test, r in runs.items():
    s = sorted(r["seconds"])
    lines.append(f"| `{test}` | {r['passed']} | {r['failed']} | {r['skipped']} | {s[len(s) // 2]:.1f}, {s[-1]:.1f} |")
# Per check: the worst error, the tolerance (the last run's: the current one), the largest share
# of it a run used, how many runs exceeded it, and the values measured.
lines += ["", "| test: check | runs | worst error | tolerance | worst error / tolerance | over | values (min – max) |",
          "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
for (test, check), c in checks.items():
    unit = c["unit"]
    worst = max(c["errors"])
    tol = c["tolerances"][-1]
    share = f"{worst / tol:.2f}" if tol > 0 else "-"
    over = sum(1 for e in c["errors"] if e > tol)
    check = check.replace("|", "\\|")  # a table cell
    lines.append(f"| `{test}`: {check} | {len(c['errors'])} | {worst:.3g} {unit} | {tol:.3g} {unit} | {share} | {over} | "
                 f"{min(c['values']):.4g} – {max(c['values']):.4g} |")
print("\n".join(lines))
EOF
}

if ((${#summarize[@]})); then
  summarize "${summarize[@]}"
  exit 0
fi

# Inside the private mount namespace (below): the copy of the build mounted over it.
if [[ -n ${IRONBENCH_TIMED_SNAPSHOT:-} ]]; then
  mount --make-rprivate /
  mount --bind "$IRONBENCH_TIMED_SNAPSHOT" "$build"
fi

[[ -x $build/ironbench ]] || { echo "timed_tests_under_load: no $build/ironbench: build it first" >&2; exit 2; }
out=${out:-$repo/build/timed-under-load/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/logs"

# The tests: ctest's own list (names, command lines, environments), the slow ones left out.
tests_json=$out/tests.json
if [[ ! -s $tests_json ]]; then
  ctest --test-dir "$build" --show-only=json-v1 >"$out/ctest.json"
  python3 - "$out/ctest.json" "$filter" "$extra" >"$tests_json" <<'EOF'
import json, re, sys
doc = json.load(open(sys.argv[1]))
wanted = re.compile(sys.argv[2]) if sys.argv[2] else None
extra = re.compile(sys.argv[3])
chosen = []
for t in doc["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if "slow" in props.get("LABELS", []) or "command" not in t:
        continue
    name = t["name"]
    timed = re.match(r"^[^.]*Timed\.", name) is not None or extra.search(name) is not None
    if (wanted.search(name) if wanted else timed):
        chosen.append({"name": name.split("  #")[0], "command": t["command"], "environment": props.get("ENVIRONMENT", []),
                       "directory": props.get("WORKING_DIRECTORY", ".")})
json.dump(chosen, sys.stdout, indent=1)
EOF
fi
count=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tests_json")
((count > 0)) || { echo "timed_tests_under_load: no test matches" >&2; exit 2; }

# A copy of the build's binaries, mounted over the build folder in a namespace of our own.
if ((snapshot)) && [[ -z ${IRONBENCH_TIMED_SNAPSHOT:-} ]]; then
  if [[ $(id -u) == 0 ]] && unshare -m true 2>/dev/null; then
    snap=$out/build
    rm -rf "$snap"
    mkdir -p "$snap"
    python3 - "$tests_json" "$build" <<'EOF' | while read -r f; do mkdir -p "$snap/$(dirname "$f")" && cp -p "$build/$f" "$snap/$f"; done
import json, os, sys
build = sys.argv[2]
files = {"ironbench", "ironbench-train"}
for t in json.load(open(sys.argv[1])):
    if t["command"][0].startswith(build + "/"):
        files.add(os.path.relpath(t["command"][0], build))
for f in sorted(files):
    if os.path.exists(os.path.join(build, f)):
        print(f)
EOF
    # The folders the tests run in or write to, empty.
    python3 -c 'import json,sys,os; [print(os.path.relpath(t["directory"], sys.argv[2])) for t in json.load(open(sys.argv[1]))]' \
      "$tests_json" "$build" | sort -u | while read -r d; do [[ $d == ..* ]] || mkdir -p "$snap/$d"; done
    echo "timed_tests_under_load: the binaries copied to $snap, mounted over $build for this run"
    IRONBENCH_TIMED_SNAPSHOT=$snap exec unshare -m "$0" "$runs" --build-dir "$build" --busy "$busy" --out "$out" \
      ${filter:+--filter "$filter"}
  fi
  echo "timed_tests_under_load: running the build's binaries in place (no private mount namespace)"
fi

# PostgreSQL's tests: a server of our own.
pg=$out/postgres
cleanup() {
  for pid in ${busy_pids:-} ${test_pid:-}; do kill "$pid" 2>/dev/null || true; done
  [[ -z ${test_pid:-} ]] || wait "$test_pid" 2>/dev/null || true
  if [[ -f $pg/state ]]; then "$repo/tests/postgres/server.sh" stop "$pg" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if "$repo/tests/postgres/server.sh" start "$pg" >/dev/null && [[ -s $pg/url ]]; then
  export IRONBENCH_TEST_POSTGRES_URL
  IRONBENCH_TEST_POSTGRES_URL=$(cat "$pg/url")
fi

busy_pids=''
for ((k = 0; k < busy; k++)); do
  yes >/dev/null &
  busy_pids+=" $!"
done

echo "timed_tests_under_load: $count tests x $runs runs beside $busy busy loops on $(nproc) CPUs; logs in $out"
[[ -f $out/runs.tsv ]] || printf 'round\ttest\toutcome\tseconds\tload\n' >"$out/runs.tsv"
[[ -f $out/checks.tsv ]] || printf 'round\ttest\tcheck\terror\ttolerance\tunit\tvalue\n' >"$out/checks.tsv"
for ((round = 1; round <= runs; round++)); do
  for ((i = 0; i < count; i++)); do
    name='' dir='' cmd=() env_list=()
    eval "$(python3 - "$tests_json" "$i" <<'EOF'
import json, shlex, sys
t = json.load(open(sys.argv[1]))[int(sys.argv[2])]
print("name=" + shlex.quote(t["name"]))
print("dir=" + shlex.quote(t["directory"]))
print("cmd=(" + " ".join(shlex.quote(c) for c in t["command"]) + ")")
print("env_list=(" + " ".join(shlex.quote(e) for e in t["environment"]) + ")")
EOF
)"
    log=$out/logs/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_').$round.log
    load=$(cut -d' ' -f1 /proc/loadavg)  # the machine's load as the test starts (1-minute average)
    start=$(date +%s%N)
    rc=0
    # In the background, waited for: a signal to this script ends the test too (cleanup).
    (cd "$dir" && exec env "${env_list[@]}" timeout 600 "${cmd[@]}") >"$log" 2>&1 &
    test_pid=$!
    wait "$test_pid" || rc=$?
    test_pid=
    seconds=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.2f", ns / 1e9 }')
    if ((rc != 0)); then
      outcome=failed
    elif grep -q '^\[  SKIPPED \]' "$log"; then
      outcome=skipped
    else
      outcome=passed
    fi
    printf '%s\t%s\t%s\t%.2f\t%s\n' "$round" "$name" "$outcome" "$seconds" "$load" >>"$out/runs.tsv"
    python3 - "$log" "$round" >>"$out/checks.tsv" <<'EOF'
import re, sys
line = re.compile(r'^timed: test=(\S+) check="(.*)" error=(\S+) tolerance=(\S+) unit=(\S+) value=(\S+)$')
for text in open(sys.argv[1], errors="replace"):
    m = line.match(text.rstrip("\n"))
    if m:
        print("\t".join([sys.argv[2], *m.groups()]))
EOF
    printf 'round %d/%d  %-90s %s (%.1f s)\n' "$round" "$runs" "$name" "$outcome" "$seconds"
  done
done
summarize "$out" | tee "$out/summary.md"
