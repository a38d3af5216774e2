#!/usr/bin/env python3
"""`ironbench collectives --pairs` at its default settings, run again and again on one machine
whose ranks stand for several nodes: how often a healthy sweep names something (false blame) and
how often a sweep with an injected fault names exactly the faulty node or link (detection).

Cases (each run is one `mpirun`, the sweep's defaults: 64 KiB, 1 MiB and 16 MiB, 20 exchanges
per direction, factor 0.5, suspects measured again, the undecided up to 3 times in all):
  nodes         4 simulated nodes x 2 ranks (mpirun's MPMD form, IRONBENCH_NODE_NAME a..d), no fault
  nodes-slow    the same with --inject-fault slow@4:x3 (node c's measuring rank 3x slower)
  nodes-link    the same with --inject-fault slow-link@0-6:x3 (the link a <-> d 3x slower)
  ranks         8 ranks of one node, --pairs ranks (28 links), no fault
  ranks-slow    the same with --inject-fault slow@5:x3 (rank 5 3x slower), every --ranks-slow-every'th round
The cases take turns, one run of each per round, so that a change in the machine's load falls on
all of them. A no-fault run counts as false blame when it names any node or link; a faulty run
counts as detected when it names the faulty node (or link) and nothing else ("named with
others" counts those that also named something healthy).

Load: --busy K `yes > /dev/null` processes run beside the sweeps (2 by default, as CI's
timed-test job runs beside its neighbours; bench/timed_tests_under_load.sh), ended by their
process ids at the end. --baseline BIN also runs another ironbench build's no-fault cases (an
older detector; its fault forms may differ, so only false blame is compared).

MPI as root needs OMPI_ALLOW_RUN_AS_ROOT; the script sets it, with --oversubscribe and
OMPI_MCA_mpi_yield_when_idle=1 (ranks waiting in MPI yield their core).

Usage: bench/pairwise_detection_rates.py [--ironbench build/release/ironbench] [--runs 20]
           [--cases nodes,nodes-slow,nodes-link,ranks,ranks-slow] [--ranks-slow-every 4]
           [--busy 2] [--baseline BIN [--baseline-cases nodes,ranks]] [--keep DIR [--first N]]
           [--json SUMMARY.json]
       bench/pairwise_detection_rates.py --from DIR      (the rates of the runs kept in DIR)"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

NODE_NAMES = ["a", "b", "c", "d"]
# case -> (shape, extra words, expected nodes, expected links)
CASES = {
    "nodes": ("nodes", [], set(), set()),
    "nodes-slow": ("nodes", ["--inject-fault", "slow@4:x3"], {"c"}, set()),
    "nodes-link": ("nodes", ["--inject-fault", "slow-link@0-6:x3"], set(), {"a-d"}),
    "ranks": ("ranks", [], set(), set()),
    "ranks-slow": ("ranks", ["--inject-fault", "slow@5:x3"], {"rank 5"}, set()),
}


def mpirun_line(binary, shape, json_path, extra):
    words = ["collectives", "--pairs", "nodes" if shape == "nodes" else "ranks", "--no-save", "-q",
             "--timeout", "300s", "--json", json_path] + extra
    line = ["mpirun", "--oversubscribe"]
    if shape == "nodes":
        for i, name in enumerate(NODE_NAMES):
            if i:
                line.append(":")
            line += ["-np", "2", "-x", f"IRONBENCH_NODE_NAME={name}", binary] + words
    else:
        line += ["-np", "8", "-x", "IRONBENCH_NODE_NAME=a", binary] + words
    return line


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_once(binary, case, json_path):
    shape, extra, _, _ = CASES[case]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_mpi_yield_when_idle="1")
    env.setdefault("OMPI_MCA_btl", "self,vader,tcp")
    row = {"case": case, "load1": load1()}
    start = time.monotonic()
    try:
        done = subprocess.run(mpirun_line(binary, shape, json_path, extra), env=env, capture_output=True,
                              text=True, timeout=420)
        row["rc"] = done.returncode
        row["stderr"] = done.stderr[-500:]
    except subprocess.TimeoutExpired:
        row["rc"] = "timeout"
    row["wall_s"] = time.monotonic() - start
    return judge_run(row, json_path)


def judge_run(row, json_path):
    """`row` with what the run JSON at `json_path` named, against what its case should name."""
    _, _, want_nodes, want_links = CASES[row["case"]]
    try:
        with open(json_path) as f:
            p = json.load(f)["settings"]["pairwise"]
    except (OSError, ValueError, KeyError) as e:
        row["error"] = f"no run JSON: {e}"
        return row
    f = p["findings"]
    nodes = {n["node"] for n in f["bad_nodes"]}
    links = {f"{l['a']}-{l['b']}" for l in f["bad_links"]}
    row.update(nodes=sorted(nodes), links=sorted(links), seconds=p["seconds"],
               again_s=p.get("confirm_seconds", 0), suspects=len(f.get("suspects", f.get("low_links", []))),
               confirm_rounds=f.get("confirm_rounds", 1 if f.get("suspects") else 0),
               summary=f.get("summary", ""))
    # Every link's ratio to the reference in the sweep, and the suspects' measured again, split
    # into healthy links and the fault's.
    labels = [q["label"] for q in p["participants"]]
    judged = p.get("judged_sizes", [p.get("judged_at_bytes")])[-1]  # (older builds judged one size)
    m = next(x for x in p["matrices"] if x["bytes"] == judged)["one_way_gbs"]
    reference = f.get("references_gbs", [f.get("median_gbs", 0)])[-1]
    faulty = lambda a, b: a in want_nodes or b in want_nodes or f"{a}-{b}" in want_links
    sweep = {True: [], False: []}
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            v = [x for x in (m[i][j], m[j][i]) if x]
            if v and reference > 0:
                sweep[faulty(labels[i], labels[j])].append(min(v) / reference)
    again = {True: [], False: []}
    for s in f.get("suspects", []):
        if s.get("confirm_ratio") is not None:
            again[faulty(s["a"], s["b"])].append(s["confirm_ratio"])
    row.update(healthy_sweep=sweep[False], faulty_sweep=sweep[True], healthy_again=again[False],
               faulty_again=again[True])
    row["named"] = bool(nodes or links)
    row["exact"] = nodes == want_nodes and links == want_links
    row["found"] = want_nodes <= nodes and want_links <= links
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ironbench", default="build/release/ironbench")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--cases", default="nodes,nodes-slow,nodes-link,ranks,ranks-slow")
    ap.add_argument("--ranks-slow-every", type=int, default=4)
    ap.add_argument("--busy", type=int, default=2)
    ap.add_argument("--baseline", default="")
    ap.add_argument("--baseline-cases", default="nodes,ranks", help="the no-fault cases the baseline runs")
    ap.add_argument("--keep", default="", help="keep every run's JSON in this folder")
    ap.add_argument("--json", default="", help="write every run's row and the rates here")
    ap.add_argument("--first", type=int, default=1, help="the first round's number (to add rounds to a --keep folder)")
    ap.add_argument("--from", dest="from_dir", default="",
                    help="run nothing: the rates of the run JSONs kept in this folder (by --keep)")
    a = ap.parse_args()
    cases = [c for c in a.cases.split(",") if c]
    for c in cases:
        if c not in CASES:
            sys.exit(f"unknown case '{c}' (one of {', '.join(CASES)})")
    if a.from_dir:
        return report(kept_rows(a.from_dir), a.json)
    binary = os.path.abspath(a.ironbench)
    folder = a.keep or tempfile.mkdtemp(prefix="pairwise-rates-")
    os.makedirs(folder, exist_ok=True)
    busy = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(a.busy)]
    rows = []
    try:
        for i in range(a.first, a.first + a.runs):
            plan = [(c, binary, "") for c in cases if c != "ranks-slow" or i % a.ranks_slow_every == 0]
            if a.baseline:
                plan += [(c, os.path.abspath(a.baseline), "baseline ") for c in a.baseline_cases.split(",")
                         if c in ("nodes", "ranks")]
            for case, b, tag in plan:
                path = os.path.join(folder, f"{tag.strip() or 'run'}_{case}_{i}.json")
                row = run_once(b, case, path)
                row["binary"] = tag.strip() or "this"
                rows.append(row)
                print(f"[{i}] {tag}{case}: rc={row.get('rc')} {row.get('wall_s', 0):.0f} s load1={row['load1']:.1f}"
                      f" nodes={row.get('nodes')} links={row.get('links')}", flush=True)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "busy": a.busy, "cpus": os.cpu_count()}, f, indent=1)
    return report(rows, a.json)


def kept_rows(folder):
    """The rows of the run JSONs a --keep folder holds (named TAG_CASE_ROUND.json)."""
    rows = []
    for name in sorted(os.listdir(folder)):
        parts = name[:-len(".json")].split("_") if name.endswith(".json") else []
        if len(parts) != 3 or parts[1] not in CASES:
            continue
        row = {"case": parts[1], "binary": "this" if parts[0] == "run" else parts[0], "round": int(parts[2])}
        rows.append(judge_run(row, os.path.join(folder, name)))
    return rows


def report(rows, json_path):
    summary = {}
    print(f"\n{'binary':9} {'case':11} {'runs':>4}  {'verdict':<34} {'sweep s (median, max)':>22}"
          f"  {'again s (median, max)':>22}  rounds again (runs with 1/2/3)  load1 (median, max)")
    cases = list(CASES)
    for tag in ["this", "baseline"]:
        for case in CASES:
            rs = [r for r in rows if r["case"] == case and r["binary"] == tag]
            if not rs:
                continue
            ok = [r for r in rs if "named" in r]
            failed = len(rs) - len(ok)
            if CASES[case][2] or CASES[case][3]:
                exact = sum(r["exact"] for r in ok)
                extra = sum(r["found"] and not r["exact"] for r in ok)
                verdict = f"detected {exact}/{len(rs)} ({100 * exact / len(rs):.0f} %)"
                if extra:
                    verdict += f", with others {extra}"
                summary[f"{tag} {case}"] = {"runs": len(rs), "detected": exact, "named_with_others": extra,
                                            "no_result": failed}
            else:
                blamed = sum(r["named"] for r in ok)
                verdict = f"false blame {blamed}/{len(rs)} ({100 * blamed / len(rs):.0f} %)"
                summary[f"{tag} {case}"] = {"runs": len(rs), "false_blame": blamed, "no_result": failed}
            if failed:
                verdict += f", no result {failed}"
            secs = [r["seconds"] for r in ok] or [0]
            again_s = [r.get("again_s", 0) for r in ok] or [0]
            rounds = [sum(r.get("confirm_rounds", 0) == k for r in ok) for k in (1, 2, 3)]
            loads = [r.get("load1", 0) for r in rs]
            summary[f"{tag} {case}"].update(seconds_median=statistics.median(secs), seconds_max=max(secs),
                                            again_seconds_median=statistics.median(again_s),
                                            again_seconds_max=max(again_s), runs_by_rounds_again=rounds,
                                            load1_median=statistics.median(loads), load1_max=max(loads))
            print(f"{tag:9} {case:11} {len(rs):4}  {verdict:<34} {statistics.median(secs):10.1f} {max(secs):10.1f}"
                  f"  {statistics.median(again_s):10.1f} {max(again_s):10.1f}  {'/'.join(map(str, rounds)):>30}"
                  f"  {statistics.median(loads):.1f}, {max(loads):.1f}")
    print("\nratios to the reference: healthy links in the sweep (lowest) and measured again (lowest);"
          " the fault's links in the sweep (highest) and measured again (highest); runs with suspects")
    for tag in ["this", "baseline"]:
        for case in cases:
            rs = [r for r in rows if r["case"] == case and r["binary"] == tag and "named" in r]
            if not rs:
                continue
            low = lambda key: min((x for r in rs for x in r.get(key, [])), default=None)
            high = lambda key: max((x for r in rs for x in r.get(key, [])), default=None)
            show = lambda v: "-" if v is None else f"{v:.2f}"
            print(f"{tag:9} {case:11} healthy {show(low('healthy_sweep'))} / {show(low('healthy_again'))}"
                  f"  fault {show(high('faulty_sweep'))} / {show(high('faulty_again'))}"
                  f"  suspects in {sum(r['suspects'] > 0 for r in rs)} of {len(rs)}")
    wrong = [r for r in rows if "named" not in r or r["exact"] is False]
    for r in wrong:
        print(f"  {r['binary']} {r['case']}: {r.get('summary') or r.get('error') or r.get('stderr', '')}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"rows": rows, "rates": summary, "cpus": os.cpu_count()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
