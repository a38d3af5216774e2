#!/usr/bin/env python3
"""`ironbench trend` on labelled synthetic histories: detection and false-alarm rates per class,
for the detector in this tree (through the real binary) and for the one it replaced (before
2026-11-28: pooled standard deviation, a new level at every flag and min-history runs unjudged
after it), ported below line by line from git history (src/results/trend_detection.cpp at
c8f39a6, the values-only path: rules 1 and 2; these histories have no timing samples).

Each history is one case (benchmark `synthetic`, parameters `class` and `history`) whose metric
`bandwidth` (GB/s: higher is better) is 100 x goodness x (1 + N(0, cv)) on each night. Every
night is one run file, gathered with `ironbench results gather` into a temporary SQLite store;
`ironbench trend bandwidth --recent 0 --format json` gives the verdicts of the whole history,
and, unless --no-gate, `trend --until NIGHT` replays the nightly gate (`--recent 1`: the
regressions found on that night) night by night.

Classes: noise (1-3 % CV); steps of -1 to -30 % at run 30 of 50 (1-3 % CV); a +30 % spike, a
-30 % dip, two nights at -30 %; a -30 % drop 3 or 4 runs after a spike or a dip; slow drifts
(-1 % a run from the start of a 30-run history, -1 % and -0.5 % a run from run 20 of 50); bimodal
noise (each night in a mode 5 % or 10 % lower with probability 0.2 or 0.5, 1 % noise).

A class with a worsening change counts as found when a regression is found on a night at or
after the change begins; a false alarm is a regression found on any night before it (or on any
night at all in a class without one). Columns: in the verdicts of `trend --recent 0` on the
whole history (there a one-night dip is an outlier), and "gate": the nights a nightly `trend`
would have failed (a dip fails its own night: it cannot be told from a step until the next runs
come). The old detector's verdicts never change once given, so its two views are one.

Usage: bench/trend_detection_rates.py [--ironbench build/release/ironbench] [--histories 200]
                                     [--seed 1] [--no-gate] [--only SUBSTRING]"""
import argparse, datetime, json, math, os, random, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = 50
NIGHT0 = datetime.datetime(2026, 1, 1, 2, 0, 0)


def night_time(k):
    """Night k (0-based) as an ISO time (UTC), one a day from 2026-01-01."""
    return (NIGHT0 + datetime.timedelta(days=k)).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- the classes: (name, runs, first run of the worsening change or None, goodness(rng) -> list) --

def constant(runs, f):
    return lambda rng: [f(i) for i in range(runs)]


def bimodal(p, sep):
    return lambda rng: [1 - sep if rng.random() < p else 1.0 for _ in range(RUNS)]


def classes():
    out = []
    for cv in (0.01, 0.02, 0.03):
        out.append((f"noise, {cv:.0%} CV", cv, RUNS, None, constant(RUNS, lambda i: 1.0)))
    for cv in (0.01, 0.02, 0.03):
        for step in (0.01, 0.02, 0.03, 0.05, 0.10, 0.20, 0.30):
            out.append((f"step -{step:.0%} at run 30, {cv:.0%} CV", cv, RUNS, 30,
                        constant(RUNS, lambda i, s=step: 1 - s if i >= 30 else 1.0)))
    cv = 0.02
    out.append(("spike +30 % (one night), 2% CV", cv, RUNS, None, constant(RUNS, lambda i: 1.3 if i == 25 else 1.0)))
    out.append(("dip -30 % (one night), 2% CV", cv, RUNS, None, constant(RUNS, lambda i: 0.7 if i == 25 else 1.0)))
    out.append(("dip -30 % (two nights), 2% CV", cv, RUNS, None,
                constant(RUNS, lambda i: 0.7 if i in (25, 26) else 1.0)))
    for off, label in ((1.3, "spike"), (0.7, "dip")):
        for gap in (3, 4):
            out.append((f"{label}, then -30 % {gap} runs later, 2% CV", cv, RUNS, 25 + gap,
                        constant(RUNS, lambda i, o=off, g=gap: o if i == 25 else 0.7 if i >= 25 + g else 1.0)))
    out.append(("one fast night (+50 %), then -46 %, 2% CV", cv, RUNS, 26,
                constant(RUNS, lambda i: 1.5 if i == 25 else 0.54 if i >= 26 else 1.0)))
    out.append(("drift -1 %/run over all 30 runs, 2% CV", cv, 30, 1, constant(30, lambda i: 1 - 0.01 * i)))
    out.append(("drift -1 %/run from run 20, 2% CV", cv, RUNS, 21,
                constant(RUNS, lambda i: 1 - 0.01 * max(0, i - 20))))
    out.append(("drift -0.5 %/run from run 20, 2% CV", cv, RUNS, 21,
                constant(RUNS, lambda i: 1 - 0.005 * max(0, i - 20))))
    for p in (0.2, 0.5):
        for sep in (0.05, 0.10):
            out.append((f"bimodal: p {p} of a mode {sep:.0%} lower, 1% CV", 0.01, RUNS, None, bimodal(p, sep)))
    return out


# ---- the detector before 2026-11-28, values only (rules 1 and 2), ported from C++ ------------------

def student_t_quantile(z, freedom):
    n = float(max(freedom, 3))
    z2 = z * z
    z3, z5 = z2 * z, z2 * z2 * z
    z7, z9 = z5 * z2, z5 * z2 * z2
    return (z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n)
            + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n ** 3)
            + (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * n ** 4))


def old_detect(values, higher_is_better=True, min_difference=0.02, scatter_factor=4.0, min_history=5, window=20):
    """Flags per run: history, steady, REGRESSION, improvement (all judged online)."""
    flags = ["history"] * len(values)
    level_starts = [0]
    min_history = max(min_history, 3)
    usable = lambda x: x > 0 and math.isfinite(x)
    for i, value in enumerate(values):
        history = i - level_starts[-1]
        if history < min_history:
            continue
        first = i - min(history, max(window, min_history))
        reference = statistics.median(values[first:i])
        flags[i] = "steady"
        if not (reference > 0) or not usable(value):
            continue
        change = value / reference - 1
        squares, freedom = 0.0, 0
        for l, begin in enumerate(level_starts):
            end = level_starts[l + 1] if l + 1 < len(level_starts) else i
            level = [x for x in values[begin:end] if usable(x)]
            if len(level) < 2:
                continue
            mean = sum(level) / len(level)
            squares += sum((x / mean - 1) ** 2 for x in level)
            freedom += len(level) - 1
        run_scatter = math.sqrt(squares / freedom) if freedom > 0 else 0.0
        widening = math.sqrt(1 + 1.5708 / (i - first))
        band = student_t_quantile(scatter_factor, freedom) * run_scatter * widening  # no samples: s_sample = 0
        if abs(change) < min_difference or not abs(change) > band:
            continue
        better = change > 0 if higher_is_better else change < 0
        flags[i] = "improvement" if better else "REGRESSION"
        level_starts.append(i)
    return flags


# ---- the store and the binary ------------------------------------------------------------------------

def write_runs(folder, histories):
    """One run file per night with every history that has that night, as `ironbench run` writes."""
    for k in range(RUNS):
        cases = []
        for key, cls, values in histories:
            if k < len(values):
                cases.append({"benchmark": "synthetic", "device": "cpu", "status": "valid",
                              "params": {"class": cls, "history": key},
                              "metrics": [{"name": "bandwidth", "value": values[k], "unit": "GB/s"}]})
        run = {"schema_version": 1, "tool": {"name": "ironbench"}, "argv": ["bench/trend_detection_rates.py"],
               "tags": {"suite": "trend-rates"}, "start_time": night_time(k), "end_time": night_time(k),
               "status": "valid", "status_reason": "", "host": {"hostname": "synthetic"}, "cases": cases}
        with open(os.path.join(folder, f"night-{k:03d}.json"), "w") as f:
            json.dump(run, f)


def trend_json(ironbench, db, until=None):
    args = [ironbench, "trend", "bandwidth", "--db", db, "--recent", "0", "--format", "json"]
    if until:
        args += ["--until", until]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return {s["params"]["history"]: s["runs"] for s in json.loads(r.stdout)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ironbench", default=os.path.join(HERE, "..", "build", "release", "ironbench"))
    parser.add_argument("--histories", type=int, default=200, help="histories per class")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-gate", action="store_true", help="skip the night-by-night replay of the gate")
    parser.add_argument("--only", default="", help="classes whose name contains this")
    a = parser.parse_args()

    rng = random.Random(a.seed)
    chosen = [c for c in classes() if a.only in c[0]]
    histories, labels = [], {}
    for name, cv, runs, change_at, goodness in chosen:
        for h in range(a.histories):
            g = goodness(rng)
            values = [100 * g[i] * (1 + rng.gauss(0, cv)) for i in range(runs)]
            key = f"{len(histories):06d}"
            histories.append((key, name, values))
            labels[key] = (name, change_at)

    started = time.time()
    with tempfile.TemporaryDirectory(prefix="trend_rates_") as folder:
        db = os.path.join(folder, "rates.db")
        write_runs(folder, histories)
        subprocess.run([a.ironbench, "results", "gather", folder, "--db", db], check=True, capture_output=True)
        final = trend_json(a.ironbench, db)
        # night (0-based) -> histories whose gate fails that night
        gate = {}
        if not a.no_gate:
            for k in range(6, RUNS):
                runs = trend_json(a.ironbench, db, until=night_time(k + 1))
                for key, rs in runs.items():
                    newest = rs[-1]["run"]
                    if any(r["flag"] == "REGRESSION" and r.get("detected_at_run") == newest for r in rs):
                        gate.setdefault(key, []).append(len(rs) - 1)
    elapsed = time.time() - started

    # per history: nights a regression was found, new (history, gate) and old
    def tally(nights, change_at):
        before = any(n < change_at for n in nights) if change_at is not None else bool(nights)
        after = [n - change_at for n in nights if change_at is not None and n >= change_at]
        return (min(after) if after else None), before

    rows = {}
    for key, name, values in histories:
        change_at = labels[key][1]
        runs = final[key]
        found = [next(j for j, r2 in enumerate(runs) if r2["run"] == r["detected_at_run"])
                 for r in runs if r["flag"] == "REGRESSION"]
        old = [i for i, f in enumerate(old_detect(values)) if f == "REGRESSION"]
        row = rows.setdefault(name, {"n": 0, "change": change_at is not None, "new": [], "gate": [], "old": []})
        row["n"] += 1
        row["new"].append(tally(found, change_at))
        row["gate"].append(tally(gate.get(key, []), change_at))
        row["old"].append(tally(old, change_at))

    def share(results, found):
        hits = sum(1 for d, f in results if (d is not None if found else f))
        return f"{hits / len(results):.1%}"

    def nights(results):
        d = [x for x, _ in results if x is not None]
        return f"{statistics.median(d):.0f}" if d else "-"

    cols = ["class", "found", "false alarm", "gate: false alarm", "nights to find", "old: found", "old: false alarm",
            "old: nights"]
    if a.no_gate:
        cols.remove("gate: false alarm")
    print(f"{len(histories)} histories ({a.histories} a class), seed {a.seed}; the ironbench runs took {elapsed:.0f} s\n")
    print("found: share of the histories with a worsening change where a regression was found on or after")
    print("its first run; false alarm: share with a regression found before it (or anywhere, in a class")
    print("without one), in the verdicts of the whole history; gate: the same for the nights a nightly")
    print("`trend` (--recent 1) failed; nights to find: the median from the change's first run to the")
    print("night it was found (0: that night). old: the detector before, whose verdicts never change.\n")
    print("| " + " | ".join(cols) + " |")
    print("| --- |" + " ---: |" * (len(cols) - 1))
    for name, row in rows.items():
        change = row["change"]
        cells = [name, share(row["new"], True) if change else "-", share(row["new"], False)]
        if not a.no_gate:
            cells.append(share(row["gate"], False))
        cells.append(nights(row["new"] if a.no_gate else row["gate"]) if change else "")
        cells += [share(row["old"], True) if change else "-", share(row["old"], False),
                  nights(row["old"]) if change else ""]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
