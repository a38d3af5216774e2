#!/usr/bin/env python3
"""Puts ironbench's serving measurements beside independent ones (bench/gpu/serve_llama_gpu.sh).

    llama_serve_compare.py OUTDIR C [C ...]

For each point (one `ironbench serve` at concurrency C) OUTDIR holds serve-cC.json (the run),
serve-cC.stderr (its stderr, each line led by the wall clock it was read at), and the server's
/metrics before and after (metrics-cC-before.txt, -after.txt); nvidia-smi-power.csv holds the
power nvidia-smi sampled every 100 ms over all of them, probe.json one request's own timings.

Energy per output token, two ways over the same window:
  ironbench:   its own figure (NVML's energy counter, or power samples) for the point;
  nvidia-smi:  power.draw integrated (trapezoids) over the point's window, divided by the
               output tokens ironbench counted.
The window: ironbench's GPU sampler starts right after it prints "serve: N requests ..." on
stderr (stamped here when read) and its samples run from t_s[0] to t_s[-1] on the sampler's
clock, so the window is [stamp + t_s[0], stamp + t_s[-1]] on the wall clock.

Latency: ironbench's TTFT and TPOT beside the server's own timings: from its /metrics counters
over the point, prompt processing per request (llamacpp:prompt_seconds_total / requests) and
generation time per token (tokens_predicted_seconds_total / tokens_predicted_total), and the
probe request's `timings` (prompt_ms, predicted_per_token_ms) at concurrency 1.

Prints a table and writes OUTDIR/summary.json. Exit 0 when every point could be compared
(whatever the agreement, which is printed: within 5 % or not), 1 when data is missing.
"""

import datetime
import json
import math
import pathlib
import re
import sys

AGREEMENT = 0.05


def read_metrics(path):
    """Prometheus text: {name: value} for unlabelled llamacpp:* samples."""
    values = {}
    try:
        text = path.read_text()
    except OSError:
        return values
    for line in text.splitlines():
        m = re.match(r"^(llamacpp:[A-Za-z0-9_]+)(\{[^}]*\})?\s+([-+0-9.eE]+|NaN|[+-]Inf)\s*$", line)
        if m:
            values[m.group(1)] = float(m.group(3))
    return values


def read_power(path):
    """{gpu index: [(unix s, power.draw W, power.draw.instant W or None)]} from nvidia-smi's CSV."""
    series = {}
    with open(path) as f:
        header = None
        for line in f:
            cells = [c.strip() for c in line.strip().split(",")]
            if header is None:
                header = cells
                continue
            if len(cells) != len(header):
                continue
            try:
                t = datetime.datetime.strptime(cells[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                gpu = int(cells[1])
            except ValueError:
                continue

            def watts(cell):
                m = re.match(r"^([0-9.]+)\s*W$", cell)
                return float(m.group(1)) if m else None

            draw = watts(cells[2])
            instant = watts(cells[3]) if len(cells) > 3 else None
            if draw is not None:
                series.setdefault(gpu, []).append((t, draw, instant))
    for s in series.values():
        s.sort()
    return series


def integrate(samples, begin, end, column):
    """Joules over [begin, end] (trapezoids, linear at the edges) and the share of it covered."""
    pts = [(s[0], s[column]) for s in samples if s[column] is not None]
    energy = covered = 0.0
    for (t0, p0), (t1, p1) in zip(pts, pts[1:]):
        a, b = max(t0, begin), min(t1, end)
        if b <= a or t1 <= t0:
            continue

        def at(t):
            return p0 + (p1 - p0) * (t - t0) / (t1 - t0)

        energy += (b - a) * (at(a) + at(b)) / 2
        covered += b - a
    span = end - begin
    return energy, (covered / span if span > 0 else 0.0)


def point(out, c, power):
    tag = f"c{c}"
    doc = json.loads((out / f"serve-{tag}.json").read_text())
    stamp = None
    for line in (out / f"serve-{tag}.stderr").read_text().splitlines():
        when, _, text = line.partition(" ")
        if text.startswith("serve: ") and "requests, max concurrency" in text:
            stamp = float(when)
            break
    if stamp is None:
        raise ValueError(f"serve-{tag}.stderr has no 'serve: N requests' line")
    cases = [i for i, k in enumerate(doc["cases"]) if "result" in k.get("notes", {})]
    if not cases:
        raise ValueError(f"serve-{tag}.json has no serving point")
    index = cases[0]
    case = doc["cases"][index]
    result = json.loads(case["notes"]["result"])
    telemetry = result.get("gpu_telemetry", {})
    first = last = None
    for entry in doc.get("telemetry") or []:
        if entry.get("case") != index:
            continue
        ts = [s["t_s"] for s in entry.get("samples", []) if isinstance(s.get("t_s"), (int, float))]
        if ts:
            first = min(ts) if first is None else min(first, min(ts))
            last = max(ts) if last is None else max(last, max(ts))
    row = {
        "concurrency": c,
        "status": case.get("status"),
        "requests": result.get("completed"),
        "failed": result.get("failed"),
        "output_tokens": result.get("total_output_tokens"),
        "duration_s": result.get("duration"),
        "output_throughput": result.get("output_throughput"),
        "ironbench": {k: result.get(k) for k in ("mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms",
                                                 "median_tpot_ms", "p99_tpot_ms", "mean_itl_ms", "mean_e2el_ms")},
        "ironbench_energy": {k: telemetry.get(k) for k in ("energy_j", "energy_source", "energy_valid", "energy_coverage",
                                                           "joules_per_output_token", "energy_invalid_reason")},
    }
    # The server's own timings over the point, from its /metrics counters.
    before, after = read_metrics(out / f"metrics-{tag}-before.txt"), read_metrics(out / f"metrics-{tag}-after.txt")

    def delta(name):
        key = "llamacpp:" + name
        return after[key] - before[key] if key in after and key in before else None

    d_prompt_s, d_gen_s = delta("prompt_seconds_total"), delta("tokens_predicted_seconds_total")
    d_gen, d_prompt = delta("tokens_predicted_total"), delta("prompt_tokens_total")
    # The counters also hold ironbench's unmeasured warmup requests (--num-warmups, each of
    # --random-output-len tokens with --ignore-eos).
    argv = doc.get("argv", [])

    def flag(name, default):
        return int(argv[argv.index(name) + 1]) if name in argv[:-1] else default

    warmups, warm_tokens = flag("--num-warmups", 0), flag("--num-warmups", 0) * flag("--random-output-len", 128)
    requests = (row["requests"] or 0) + warmups
    row["server"] = {
        "requests_with_warmups": requests,
        "prompt_tokens": d_prompt,
        "generated_tokens": d_gen,
        "generated_tokens_less_warmups": d_gen - warm_tokens if d_gen is not None else None,
        "decode_calls": delta("n_decode_total"),
        "prompt_ms_per_request": d_prompt_s * 1000 / requests if d_prompt_s is not None and requests else None,
        "ms_per_generated_token": d_gen_s * 1000 / d_gen if d_gen_s is not None and d_gen else None,
    }
    # nvidia-smi over the same window.
    if first is None or not power:
        row["nvidia_smi"] = {"reason": "no ironbench GPU samples" if first is None else "no nvidia-smi samples"}
        return row
    begin, end = stamp + first, stamp + last
    smi = {"window_start_unix_s": begin, "window_s": end - begin}
    for column, name in ((1, "power.draw"), (2, "power.draw.instant")):
        parts = [integrate(s, begin, end, column) for s in power.values()]
        if not any(cov > 0 for _, cov in parts):
            continue
        energy = sum(e for e, _ in parts)
        coverage = min(cov for _, cov in parts)
        tokens = row["output_tokens"] or 0
        smi[name] = {"energy_j": energy, "coverage": coverage,
                     "joules_per_output_token": energy / tokens if tokens else None}
    row["nvidia_smi"] = smi
    return row


def fmt(v, spec=".1f"):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    out = pathlib.Path(sys.argv[1])
    concurrencies = [int(c) for c in sys.argv[2:]]
    power_path = out / "nvidia-smi-power.csv"
    power = read_power(power_path) if power_path.exists() else {}
    rows, problems = [], []
    for c in concurrencies:
        try:
            rows.append(point(out, c, power))
        except (OSError, ValueError, KeyError) as e:
            problems.append(f"concurrency {c}: {e}")
    probe = {}
    try:
        probe = json.loads((out / "probe.json").read_text()).get("timings", {})
    except (OSError, ValueError):
        pass

    print("Energy per output token: ironbench (its own GPU telemetry) against nvidia-smi's power.draw")
    print("integrated over the same window and divided by the output tokens ironbench counted")
    print(f"{'conc':>4} {'reqs':>5} {'out tok':>8} {'window s':>8} {'ib J':>9} {'smi J':>9} "
          f"{'ib J/tok':>9} {'smi J/tok':>9} {'smi/ib':>7}  ironbench energy source")
    total = {"ib_j": 0.0, "smi_j": 0.0, "tokens": 0.0, "complete": True}
    for r in rows:
        ib = r["ironbench_energy"]
        smi = r["nvidia_smi"].get("power.draw", {})
        ratio = None
        if ib.get("joules_per_output_token") and smi.get("joules_per_output_token"):
            ratio = smi["joules_per_output_token"] / ib["joules_per_output_token"]
            total["ib_j"] += ib["energy_j"]
            total["smi_j"] += smi["energy_j"]
            total["tokens"] += r["output_tokens"]
        else:
            total["complete"] = False
        r["ratio_smi_to_ironbench"] = ratio
        source = ib.get("energy_source") or ib.get("energy_invalid_reason") or r["nvidia_smi"].get("reason", "")
        print(f"{r['concurrency']:>4} {fmt(r['requests'], 'd'):>5} {fmt(r['output_tokens'], '.0f'):>8} "
              f"{fmt(r['nvidia_smi'].get('window_s'), '.2f'):>8} {fmt(ib.get('energy_j')):>9} "
              f"{fmt(smi.get('energy_j')):>9} {fmt(ib.get('joules_per_output_token'), '.4f'):>9} "
              f"{fmt(smi.get('joules_per_output_token'), '.4f'):>9} {fmt(ratio, '.3f'):>7}  {source}"
              + (f"; smi coverage {smi['coverage']:.0%}" if smi and smi.get("coverage", 1) < 0.99 else ""))
        inst = r["nvidia_smi"].get("power.draw.instant")
        if inst and inst.get("joules_per_output_token") and ib.get("joules_per_output_token"):
            print(f"{'':>4} {'':>5} {'':>8} {'':>8} {'':>9} {fmt(inst['energy_j']):>9} {'':>9} "
                  f"{inst['joules_per_output_token']:>9.4f} "
                  f"{inst['joules_per_output_token'] / ib['joules_per_output_token']:>7.3f}  (power.draw.instant)")
    overall = None
    if total["tokens"] > 0 and total["ib_j"] > 0:
        overall = (total["smi_j"] / total["tokens"]) / (total["ib_j"] / total["tokens"])
        verdict = "within" if abs(overall - 1) <= AGREEMENT else "OUTSIDE"
        print(f"all points: ironbench {total['ib_j'] / total['tokens']:.4f} J/token, nvidia-smi "
              f"{total['smi_j'] / total['tokens']:.4f} J/token, ratio {overall:.3f}: {verdict} "
              f"{AGREEMENT:.0%} agreement")
    print()
    print("Latency: ironbench (client) against llama-server's own timings (its /metrics over the point)")
    print(f"{'conc':>4} {'TTFT mean':>9} {'TTFT p50':>8} {'srv prompt':>10} {'TPOT mean':>9} {'TPOT p50':>8} "
          f"{'srv ms/tok':>10} {'srv gen tok':>11} {'ib out tok':>10}  status")
    for r in rows:
        ib, srv = r["ironbench"], r["server"]
        print(f"{r['concurrency']:>4} {fmt(ib['mean_ttft_ms'], '.2f'):>9} {fmt(ib['median_ttft_ms'], '.2f'):>8} "
              f"{fmt(srv['prompt_ms_per_request'], '.2f'):>10} {fmt(ib['mean_tpot_ms'], '.3f'):>9} "
              f"{fmt(ib['median_tpot_ms'], '.3f'):>8} {fmt(srv['ms_per_generated_token'], '.3f'):>10} "
              f"{fmt(srv['generated_tokens_less_warmups'], '.0f'):>11} {fmt(r['output_tokens'], '.0f'):>10}  {r['status']}")
    if probe:
        print(f"probe (one request alone): prompt {fmt(probe.get('prompt_n'), 'd')} tokens in "
              f"{fmt(probe.get('prompt_ms'), '.2f')} ms, {fmt(probe.get('predicted_n'), 'd')} tokens at "
              f"{fmt(probe.get('predicted_per_token_ms'), '.3f')} ms/token")
    print("(TTFT: ironbench's includes queueing and HTTP, the server's prompt time does not; TPOT: per request,"
          " the server's is generation time per generated token; the server's counters less ironbench's warmups)")
    for p in problems:
        print(f"not compared: {p}")
    summary = {"points": rows, "probe_timings": probe, "overall_ratio_smi_to_ironbench": overall,
               "agreement_bound": AGREEMENT, "problems": problems}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
