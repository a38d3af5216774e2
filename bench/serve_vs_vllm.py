#!/usr/bin/env python3
"""ironbench serve and vLLM's `vllm bench serve` side by side against one serve-sim.

The simulator runs on one core and each client, in turn, on the other (taskset), with the
same text prompts (a custom JSONL dataset both clients read) and the same load. Two parts:

  agreement  moderate load: both clients' TTFT, TPOT, ITL, E2EL and throughput, and their
             ratio (the simulator is deterministic, so both measure the same engine);
  ceiling    thousands of concurrent streams on a fast simulated engine whose step time is
             known (8 ms + 0.005 ms per running sequence): each client's output tok/s, mean
             ITL against the engine's, and the CPU the client used.
  lateness   each client's send lateness measured on the server's side (serve-sim's
             --request-log), so that clients that do not report their own are judged alike:
             at fixed request rates (evenly spaced sends: burstiness 1e8), lateness = arrival
             - the schedule's time for it; at fixed concurrency, lateness = arrival - the end
             of the request whose slot it took. The highest rate and concurrency with p99
             lateness <= 1 ms is each client's ceiling.

Usage:
  bench/serve_vs_vllm.py --ironbench build/release/ironbench --vllm /path/to/venv/bin/vllm \\
      --tokenizer DIR_WITH_tokenizer.json [--guidellm /path/to/venv/bin/guidellm] \\
      [--aiperf /path/to/venv/bin/aiperf] [--part agreement|ceiling|lateness|both]

vLLM is not a dependency of ironbench: install it in a virtual environment of its own
(`pip install vllm pandas datasets`). The tokenizer directory needs tokenizer.json and a
tokenizer_config.json (any byte-level BPE tokenizer; prompts are counted with it by both).
"""
import argparse
import json
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time

WORDS = ("the of and to in is was for on that with as by at from his her an be were which are this or had "
         "but not have one their has its they more all also after new first two other into can").split()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_prompts(path, count, words, seed=1):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(count):
            f.write(json.dumps({"prompt": " ".join(rng.choice(WORDS) for _ in range(words))}) + "\n")


def start_sim(ironbench, port, sim_args):
    proc = subprocess.Popen(["taskset", "-c", "1", ironbench, "serve-sim", "--port", str(port), "--model", "sim"] + sim_args,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    sys.exit("serve-sim did not start")


def run_client(command):
    """Runs a client on core 0; returns (wall seconds, CPU seconds of the client)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(["taskset", "-c", "0"] + command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"client failed ({done.returncode}): {' '.join(command)}\n{done.stdout[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def ironbench_point(a, port, prompts, concurrency, count, output_len, out_dir):
    name = f"ironbench-c{concurrency}.json"
    wall, cpu = run_client([a.ironbench, "serve", "--base-url", f"http://127.0.0.1:{port}", "--model", "sim",
                            "--endpoint", "/v1/completions", "--dataset-name", "custom", "--dataset-path", prompts,
                            "--custom-output-len", str(output_len), "--tokenizer", os.path.join(a.tokenizer, "tokenizer.json"),
                            "--num-prompts", str(count), "--max-concurrency", str(concurrency), "--ignore-eos",
                            "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,99",
                            "--save-result", "--result-dir", out_dir, "--result-filename", name, "--no-save"])
    with open(os.path.join(out_dir, name)) as f:
        result = json.load(f)
    # ironbench measures its own CPU over the measured interval; the process total includes start-up.
    return result, wall, cpu, result["client"]["cpu_share_of_one_core"]


def vllm_point(a, port, prompts, concurrency, count, output_len, out_dir):
    name = f"vllm-c{concurrency}.json"
    wall, cpu = run_client([a.vllm, "bench", "serve", "--backend", "openai", "--base-url", f"http://127.0.0.1:{port}",
                            "--endpoint", "/v1/completions", "--model", "sim", "--tokenizer", a.tokenizer,
                            "--dataset-name", "custom", "--dataset-path", prompts, "--custom-output-len", str(output_len),
                            "--skip-chat-template", "--num-prompts", str(count), "--max-concurrency", str(concurrency),
                            "--ignore-eos", "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,99",
                            "--save-result", "--result-dir", out_dir, "--result-filename", name])
    with open(os.path.join(out_dir, name)) as f:
        result = json.load(f)
    return result, wall, cpu, None


def guidellm_point(a, port, prompts, concurrency, count, output_len, out_dir):
    """GuideLLM (`guidellm run`, 0.8.x CLI) at one point, mapped onto vLLM's metric names.

    GuideLLM reads the same prompts from a copy of the JSONL with an `output_tokens_count`
    column (its generative column mapper's default name for it); a request with that column
    is sent with max_tokens = the count and ignore_eos = true. Its JSON keeps, per benchmark,
    metrics.<name>.successful.{mean,median,...}; the fields and how they compare with vLLM's
    (guidellm/schemas/base/request_stats.py, guidellm/benchmark/schemas/metrics.py):

      median_ttft_ms    <- time_to_first_token_ms.median: first streamed chunk with tokens -
                           request start, in ms, over requests. Differs in the start: GuideLLM's
                           request_start is taken by an httpx trace hook when the request headers
                           start to be written (backends/openai/http.py, _trace_request_start),
                           after its own event loop has got round to the request and a connection
                           is had; vLLM starts its clock before posting. E2EL starts there too.
      median_tpot_ms    <- inter_token_latency_ms.median. GuideLLM's "ITL" of a request is
                           (last token - first token) / (output tokens - 1), which is vLLM's
                           TPOT, not vLLM's ITL. GuideLLM's own time_per_output_token_ms is
                           (last token - request start) / output tokens: it includes the first
                           token (TTFT), so it is NOT vLLM's TPOT and is not used. Both of its
                           distributions are weighted by tokens per request (64 - 1 here for
                           every request, so the weighted median is the median over requests).
      median_itl_ms     <- not available: GuideLLM keeps only the first and last token times of
                           a request, not each gap, so it has no median over individual gaps
                           (vLLM's ITL). Printed as "-".
      mean_itl_ms       <- inter_token_latency_ms.mean: per-request mean gaps weighted by
                           (tokens - 1) = sum of (last - first) / sum of (tokens - 1), which is
                           exactly the mean over all gaps, vLLM's mean ITL.
      median_e2el_ms    <- 1000 x request_latency.median (GuideLLM keeps it in seconds): request
                           end (stream consumed) - request start, as vLLM's E2EL.
      output_throughput <- output_tokens_per_second.mean: total output tokens / the benchmark's
                           duration (GuideLLM's window runs from its benchmark start to end;
                           vLLM's from its first request to its last). Its .median is a median
                           of a per-interval rate and is not comparable.
    """
    data = os.path.join(out_dir, "guidellm-prompts.jsonl")
    if not os.path.exists(data):
        with open(prompts) as f, open(data, "w") as g:
            for line in f:
                row = json.loads(line)
                row["output_tokens_count"] = output_len
                g.write(json.dumps(row) + "\n")
    name = os.path.join(out_dir, f"guidellm-c{concurrency}.json")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    wall, cpu = run_client([a.guidellm, "run",
                            "--backend", f"kind=openai_http,target=http://127.0.0.1:{port},model=sim,"
                                         "request_format=/v1/completions",
                            "--profile", f"kind=concurrent,streams={concurrency}",
                            "--constraint", f"kind=max_requests,count={count}",
                            "--tokenizer", f"kind=hf_auto,model={a.tokenizer}",
                            "--data", f"kind=json_file,path={data}",
                            "--output", f"kind=json,path={name}",
                            "--disable-console-interactive"])
    with open(name) as f:
        bench = json.load(f)["benchmarks"][0]
    m = bench["metrics"]
    ok = lambda key: m[key]["successful"]
    result = {
        "completed": m["request_totals"]["successful"],
        "duration": bench["duration"],
        "median_ttft_ms": ok("time_to_first_token_ms")["median"],
        "median_tpot_ms": ok("inter_token_latency_ms")["median"],
        "median_itl_ms": None,
        "mean_itl_ms": ok("inter_token_latency_ms")["mean"],
        "median_e2el_ms": 1000 * ok("request_latency")["median"],
        "output_throughput": ok("output_tokens_per_second")["mean"],
    }
    return result, wall, cpu, None


def aiperf_point(a, port, prompts, concurrency, count, output_len, out_dir):
    """AIPerf (`aiperf profile`, 0.13) at one point, mapped onto vLLM's metric names.

    AIPerf reads the same prompts as a single_turn custom dataset ({"text": ...} per line) and
    sends max_tokens = output_len with ignore_eos. Its profile_export_aiperf.json keeps per metric
    avg, p50, p99 ...; the fields and how they compare with vLLM's (aiperf/metrics/types/):

      median_ttft_ms    <- time_to_first_token.p50: first content chunk - request start
                           (record.request.start_perf_ns), as vLLM's TTFT.
      median_tpot_ms    <- inter_token_latency.p50. AIPerf's "ITL" of a request is
                           (request latency - TTFT) / (output tokens - 1): vLLM's TPOT.
      median_itl_ms     <- inter_chunk_latency.p50: every gap between consecutive content chunks
      mean_itl_ms       <- inter_chunk_latency.avg   of every request, pooled: vLLM's ITL (one
                           token per chunk here).
      median_e2el_ms    <- request_latency.p50.
      output_throughput <- output_token_throughput.avg: total output tokens / benchmark duration.
    Output tokens are counted from `usage` (--use-server-token-count), as ironbench and vLLM do.
    """
    data = os.path.join(out_dir, "aiperf-prompts.jsonl")
    if not os.path.exists(data):
        with open(prompts) as f, open(data, "w") as g:
            for line in f:
                g.write(json.dumps({"text": json.loads(line)["prompt"]}) + "\n")
    artifacts = os.path.join(out_dir, f"aiperf-c{concurrency}")
    wall, cpu = run_client([a.aiperf, "profile", "-m", "sim", "--url", f"http://127.0.0.1:{port}",
                            "--endpoint-type", "completions", "--streaming", "--concurrency", str(concurrency),
                            "--request-count", str(count), "--input-file", data, "--custom-dataset-type", "single_turn",
                            "--prompt-output-tokens-mean", str(output_len), "--extra-inputs", "ignore_eos:true",
                            "--use-server-token-count", "--tokenizer", a.tokenizer, "--output-artifact-dir", artifacts])
    with open(os.path.join(artifacts, "profile_export_aiperf.json")) as f:
        m = json.load(f)
    result = {
        "completed": m["request_count"]["avg"],
        "duration": m["benchmark_duration"]["avg"],
        "median_ttft_ms": m["time_to_first_token"]["p50"],
        "median_tpot_ms": m["inter_token_latency"]["p50"],
        "median_itl_ms": m["inter_chunk_latency"]["p50"],
        "mean_itl_ms": m["inter_chunk_latency"]["avg"],
        "median_e2el_ms": m["request_latency"]["p50"],
        "output_throughput": m["output_token_throughput"]["avg"],
    }
    return result, wall, cpu, None


KEYS = ["median_ttft_ms", "median_tpot_ms", "median_itl_ms", "mean_itl_ms", "median_e2el_ms", "output_throughput"]


def agreement(a, out_dir):
    port = free_port()
    prompts = os.path.join(out_dir, "agreement.jsonl")
    write_prompts(prompts, 512, 200)
    peers = [(name, point) for name, point, given in (("vLLM", vllm_point, a.vllm), ("GuideLLM", guidellm_point, a.guidellm),
                                                      ("AIPerf", aiperf_point, a.aiperf)) if given]
    sim = start_sim(a.ironbench, port, [])
    rows = []
    try:
        for concurrency in (4, 16, 64):
            count = 8 * concurrency
            ib, _, _, _ = ironbench_point(a, port, prompts, concurrency, count, 64, out_dir)
            measured = [point(a, port, prompts, concurrency, count, 64, out_dir)[0] for _, point in peers]
            rows.append((concurrency, count, ib, measured))
    finally:
        sim.kill()
    print("\n### Agreement (serve-sim defaults: 8 ms + 0.05 ms per sequence, 50 000 prompt tok/s; "
          "200-word prompts, 64 output tokens)\n")
    text = lambda v: "-" if v is None else f"{v:.2f}"
    ratio = lambda x, y: f"{x / y:.3f}" if x and y else "-"
    names = [name for name, _ in peers]
    print("| concurrency | requests | metric | ironbench | " + " | ".join(names) + " | " +
          " | ".join(f"ironbench / {n}" for n in names) + " |")
    print("| ---: | ---: | --- | ---: | " + " | ".join("---:" for _ in names * 2) + " |")
    for concurrency, count, ib, measured in rows:
        for key in KEYS:
            x = ib.get(key)
            values = [m.get(key) for m in measured]
            print(f"| {concurrency} | {count} | {key} | {text(x)} | " + " | ".join(text(v) for v in values) + " | " +
                  " | ".join(ratio(x, v) for v in values) + " |")
    if a.guidellm:
        print("\nGuideLLM: median_tpot_ms is its inter_token_latency_ms median ((last - first token) / "
              "(tokens - 1) per request); it records no individual gaps, so no median ITL; mean_itl_ms is "
              "its token-weighted inter_token_latency_ms mean (= mean over all gaps).")
    if a.aiperf:
        print("\nAIPerf: median_tpot_ms is its inter_token_latency p50 ((latency - TTFT) / (tokens - 1) per "
              "request); median_itl_ms and mean_itl_ms are its inter_chunk_latency (every gap, pooled).")


def ceiling(a, out_dir):
    port = free_port()
    prompts = os.path.join(out_dir, "ceiling.jsonl")
    write_prompts(prompts, 6000, 32)
    sim = start_sim(a.ironbench, port, ["--max-num-seqs", "20000", "--kv-cache-tokens", "100000000",
                                        "--decode-base-ms", "8", "--decode-per-seq-ms", "0.005",
                                        "--prefill-tokens-per-s", "10000000"])
    rows = []
    try:
        # vLLM's process spends seconds importing PyTorch before it sends anything: a one-request
        # run measures that, and it is subtracted from every vLLM point.
        _, _, startup_cpu, _ = vllm_point(a, port, prompts, 1, 1, 64, out_dir)
        for concurrency in a.concurrency:
            count = 3 * concurrency
            for client, point in (("ironbench", ironbench_point), ("vLLM", vllm_point)):
                result, wall, cpu, own_cpu = point(a, port, prompts, concurrency, count, 64, out_dir)
                if own_cpu is None:
                    cpu = max(0.0, cpu - startup_cpu)
                rows.append((concurrency, client, result, wall, cpu, own_cpu))
    finally:
        sim.kill()
    print("\n### Client ceiling (engine step 8 ms + 0.005 ms per running sequence; 32-word prompts, "
          "64 output tokens, 3 x concurrency requests)\n")
    print(f"vLLM's start-up (one request): {startup_cpu:.1f} CPU s, subtracted from its points.\n")
    print("| concurrency | client | completed | output tok/s | mean ITL (engine) | p99 ITL | median TTFT | "
          "client CPU s | benchmark s | client CPU share |")
    print("| ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for concurrency, client, r, wall, cpu, own_cpu in rows:
        engine = 8 + 0.005 * concurrency
        share = (f"{100 * own_cpu:.0f} % (its own count)" if own_cpu is not None
                 else f"{100 * cpu / r['duration']:.0f} %")
        print(f"| {concurrency} | {client} | {r['completed']} | {r['output_throughput']:.0f} | "
              f"{r['mean_itl_ms']:.2f} ({engine:.2f}) | {r['p99_itl_ms']:.2f} | {r['median_ttft_ms']:.1f} | "
              f"{cpu:.1f} | {r['duration']:.2f} | {share} |")


def read_request_log(path, count):
    """The last `count` requests of serve-sim's --request-log (a client's own ready checks
    come first), as (arrival ns, end ns) sorted by arrival."""
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rows.sort(key=lambda r: r["arrived_ns"])
    return [(r["arrived_ns"], r["ended_ns"]) for r in rows[-count:]]


def percentile(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    rank = (len(values) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (rank - low)


def rate_lateness_ms(requests, rate):
    """Arrival minus the schedule's time (evenly spaced at `rate`, anchored at the earliest
    request relative to it), per request."""
    offsets = [(arrived - i * 1e9 / rate) for i, (arrived, _) in enumerate(requests)]
    origin = min(offsets)
    return [(o - origin) * 1e-6 for o in offsets]


def concurrency_lateness_ms(requests, concurrency):
    """Arrival of the (C + k)-th request minus the end of the k-th to end, per request."""
    arrivals = [a for a, _ in requests]
    ends = sorted(e for _, e in requests)
    return [max(0.0, (arrivals[concurrency + k] - ends[k]) * 1e-6) for k in range(len(arrivals) - concurrency)]


def lateness_client_command(a, client, port, count, rate, concurrency):
    common = ["--base-url", f"http://127.0.0.1:{port}", "--endpoint", "/v1/completions", "--model", "sim",
              "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "16", "--ignore-eos",
              "--num-prompts", str(count), "--request-rate", rate, "--burstiness", "1e8"]
    if concurrency:
        common += ["--max-concurrency", str(concurrency)]
    if client == "ironbench":
        return [a.ironbench, "serve", "--no-save", "--max-lateness-ms", "1000000"] + common
    return [a.vllm, "bench", "serve", "--backend", "openai", "--tokenizer", a.tokenizer] + common


def lateness(a, out_dir):
    sim_args = ["--max-num-seqs", "20000", "--kv-cache-tokens", "100000000", "--decode-base-ms", "8",
                "--decode-per-seq-ms", "0.005", "--prefill-tokens-per-s", "10000000"]
    points = [("rate", r) for r in a.rates] + [("concurrency", c) for c in a.lateness_concurrency]
    rows = []
    for kind, value in points:
        count = max(200, min(10000, 2 * value)) if kind == "rate" else 3 * value
        for client in ("ironbench", "vLLM"):
            port = free_port()
            log = os.path.join(out_dir, f"requests-{client}-{kind}-{value}.jsonl")
            sim = start_sim(a.ironbench, port, sim_args + ["--request-log", log])
            try:
                command = lateness_client_command(a, client, port, count, str(value) if kind == "rate" else "inf",
                                                  value if kind == "concurrency" else 0)
                wall, cpu = run_client(command)
            finally:
                sim.send_signal(2)
                sim.wait()
            requests = read_request_log(log, count)
            late = rate_lateness_ms(requests, value) if kind == "rate" else concurrency_lateness_ms(requests, value)
            span = (requests[-1][0] - requests[0][0]) * 1e-9
            achieved = (len(requests) - 1) / span if span > 0 else float("nan")
            rows.append((kind, value, client, len(requests), achieved, percentile(late, 50), percentile(late, 99),
                         max(late) if late else float("nan"), wall))
    print("\n### Send lateness on the server's side (engine step 8 ms + 0.005 ms per running sequence; "
          "32-token prompts, 16 output tokens)\n")
    print("| load | client | requests | arrivals/s | lateness p50 (ms) | p99 (ms) | max (ms) | client wall s |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kind, value, client, n, achieved, p50, p99, worst, wall in rows:
        load = f"{value} req/s" if kind == "rate" else f"concurrency {value}"
        print(f"| {load} | {client} | {n} | {achieved:.1f} | {p50:.3f} | {p99:.3f} | {worst:.3f} | {wall:.1f} |")
    for kind in ("rate", "concurrency"):
        for client in ("ironbench", "vLLM"):
            ok = [v for k, v, c, _, _, _, p99, _, _ in rows if k == kind and c == client and p99 <= 1.0]
            print(f"\n{client}: highest {kind} with p99 lateness <= 1 ms: {max(ok) if ok else 'none measured'}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ironbench", required=True)
    p.add_argument("--vllm", help="the vllm executable of a virtual environment with vllm installed "
                                  "(needed for the ceiling part)")
    p.add_argument("--tokenizer", required=True, help="directory with tokenizer.json and tokenizer_config.json")
    p.add_argument("--guidellm", help="optional: the guidellm executable (0.8.x) of a virtual environment; "
                   "adds GuideLLM to the agreement part")
    p.add_argument("--aiperf", help="optional: the aiperf executable (0.13) of a virtual environment; "
                                    "adds AIPerf to the agreement table")
    p.add_argument("--part", choices=["agreement", "ceiling", "lateness", "both"], default="both")
    p.add_argument("--concurrency", type=int, nargs="+", default=[250, 1000, 2000])
    p.add_argument("--rates", type=int, nargs="+", default=[50, 100, 200, 500, 1000, 2000, 5000],
                   help="request rates of the lateness part")
    p.add_argument("--lateness-concurrency", type=int, nargs="+", default=[4, 16, 64, 256, 1000],
                   help="concurrencies of the lateness part")
    a = p.parse_args()
    if a.part != "agreement" and not a.vllm:
        p.error("the ceiling and lateness parts compare with vLLM: give --vllm, or --part agreement")
    if not (a.vllm or a.guidellm or a.aiperf):
        p.error("give at least one peer client: --vllm, --guidellm or --aiperf")
    with tempfile.TemporaryDirectory() as out_dir:
        if a.part in ("agreement", "both"):
            agreement(a, out_dir)
        if a.part in ("ceiling", "both"):
            ceiling(a, out_dir)
        if a.part == "lateness":
            lateness(a, out_dir)


if __name__ == "__main__":
    main()
