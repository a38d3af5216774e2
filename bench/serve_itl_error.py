#!/usr/bin/env python3
"""ironbench serve's ITL error against serve-sim's ground truth, at several stream counts.

serve-sim stamps every token event with its send time (CLOCK_MONOTONIC); ironbench serve
reports, against those stamps, each event's delivery delay and its ITL error |measured gap -
sent gap| (client.ground_truth in its result). This script runs serve-sim pinned to core 1
and ironbench serve to core 0, as many times as asked, and prints one row per run:

  bench/serve_itl_error.py --ironbench build/release/ironbench [--engine fast|default]
      [--streams 1 100 1000] [--runs 3] [--receive-time kernel read] [--range-ratio 0 0.5]

Engines: "fast" steps 8 ms + 0.005 ms per running sequence (13 ms at 1 000 streams: 77 000
token events/s reach the client), "default" is serve-sim's own 8 ms + 0.05 ms per sequence
(58 ms at 1 000 streams). Each run sends 3 x streams requests of 32 prompt and 64 output
tokens with --max-concurrency = streams; --range-ratio 0.5 varies the lengths so that
requests do not all finish in the same step.
"""
import argparse
import json
import socket
import subprocess
import sys
import time

ENGINES = {
    "fast": ["--decode-base-ms", "8", "--decode-per-seq-ms", "0.005", "--prefill-tokens-per-s", "10000000",
             "--kv-cache-tokens", "100000000"],
    "default": [],
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc):
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if proc.poll() is not None:
                sys.exit("serve-sim exited before it listened")
            time.sleep(0.025)
    sys.exit("serve-sim did not start")


def one_run(a, streams, receive_time, range_ratio):
    port = free_port()
    sim = subprocess.Popen(["taskset", "-c", "1", a.ironbench, "serve-sim", "--port", str(port), "--max-num-seqs", "20000"]
                           + ENGINES[a.engine], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, sim)
        done = subprocess.run(["taskset", "-c", "0", a.ironbench, "serve", "--no-save", "--json", "-", "--port", str(port),
                               "--max-concurrency", str(streams), "--num-prompts", str(3 * streams),
                               "--random-input-len", "32", "--random-output-len", "64", "--random-range-ratio",
                               str(range_ratio), "--receive-time", receive_time],
                              capture_output=True, text=True)
    finally:
        sim.send_signal(2)
        sim.wait()
    if done.returncode not in (0, 1):
        sys.exit(f"ironbench serve failed ({done.returncode}): {done.stderr[-2000:]}")
    point = json.loads(json.loads(done.stdout)["cases"][0]["notes"]["result"])
    client = point["client"]
    truth = client["ground_truth"]
    return {
        "completed": point["completed"],
        "itl_error_p50": truth["itl_error_p50_ms"],
        "itl_error_p99": truth["itl_error_p99_ms"],
        "delivery_p99": truth["delivery_delay_p99_ms"],
        "together": client["token_events_read_with_a_later_one"],
        "socket_wait_p99": client["socket_wait_p99_ms"],
        "cpu": client["cpu_share_of_one_core"],
        "mean_itl": point["mean_itl_ms"],
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ironbench", required=True)
    p.add_argument("--engine", choices=sorted(ENGINES), default="fast")
    p.add_argument("--streams", type=int, nargs="+", default=[1, 100, 1000])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--receive-time", nargs="+", choices=["kernel", "read"], default=["kernel", "read"])
    p.add_argument("--range-ratio", type=float, nargs="+", default=[0.0])
    a = p.parse_args()
    print(f"engine: {a.engine}\n")
    print("| streams | range ratio | token times | run | completed | ITL error p50 / p99 (ms) | delivery p99 (ms) | "
          "events read with a later one | socket wait p99 (ms) | client CPU | mean ITL (ms) |")
    print("| ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for streams in a.streams:
        for ratio in a.range_ratio:
            for receive_time in a.receive_time:
                for run in range(1, a.runs + 1):
                    r = one_run(a, streams, receive_time, ratio)
                    together = r["together"] if receive_time == "kernel" else "-"
                    wait = f"{r['socket_wait_p99']:.3f}" if receive_time == "kernel" else "-"
                    print(f"| {streams} | {ratio:g} | {receive_time} | {run} | {r['completed']} | "
                          f"{r['itl_error_p50']:.3f} / {r['itl_error_p99']:.3f} | {r['delivery_p99']:.3f} | {together} | "
                          f"{wait} | {100 * r['cpu']:.0f} % | {r['mean_itl']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
