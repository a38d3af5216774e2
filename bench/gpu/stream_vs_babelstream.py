#!/usr/bin/env python3
"""ironbench stream on a GPU against BabelStream's CUDA (or HIP) build, side by side: both
run fp64 copy, mul, add, triad, dot and nstream on arrays of the same size, in alternation, ROUNDS times; the table
gives each one's GB/s (BabelStream's best-of-run figure and its average, ironbench's median
and best), the ratio ironbench / BabelStream (goal >= 1.00) and ironbench's % of the HBM
datasheet bandwidth (goal >= 90 %).

BabelStream is built outside this project, from its own repository; pass its binary.
Usage: bench/gpu/stream_vs_babelstream.py --babelstream /path/to/cuda-stream
                                          [--ironbench build/release/ironbench] [--size-mib 1024]"""
import argparse, json, re, statistics, subprocess

# Arrays each kernel reads plus writes, as both tools count its bytes.
KERNELS = {"copy": 2, "mul": 2, "add": 3, "triad": 3, "dot": 2, "nstream": 4}


def babelstream(binary, elements):
    """BabelStream 5's CSV (function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,
    max_runtime,avg_runtime), every kernel (-o All); older releases' table (Function MBytes/sec
    Min Max Average) is read too. Returns kernel -> (best GB/s, GB/s from the average time)."""
    out = subprocess.run([binary, "--arraysize", str(elements), "--numtimes", "100", "--csv", "-o", "All"],
                         check=True, capture_output=True, text=True).stdout
    rates = {}
    for line in out.splitlines():
        fields = line.split(",")
        if len(fields) == 8 and fields[0].lower() in KERNELS:
            kernel, best_mbs, average_s = fields[0].lower(), float(fields[4]), float(fields[7])
        else:
            m = re.match(r"^(Copy|Mul|Add|Triad|Dot|Nstream)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
            if not m:
                continue
            kernel, best_mbs, average_s = m.group(1).lower(), float(m.group(2)), float(m.group(5))
        rates[kernel] = (best_mbs / 1e3, KERNELS[kernel] * elements * 8 / average_s / 1e9)
    if not rates:
        raise SystemExit(f"no kernel rows in BabelStream's output:\n{out}")
    return rates


def ironbench(binary, device, size_mib):
    out = subprocess.run([binary, "run", "stream", "--device", device, "--no-save", "-q", "--json", "-",
                          "--axis", "kernel=" + ",".join(KERNELS), "--axis", f"size={size_mib}M"],
                         check=True, capture_output=True, text=True).stdout
    rates = {}
    for case in json.loads(out)["cases"]:
        if case["status"] != "valid":
            raise SystemExit(f"ironbench case not valid: {case}")
        metric = {m["name"]: m["value"] for m in case["metrics"]}
        rates[case["params"]["kernel"]] = (metric["bandwidth"], metric["bandwidth_best"],
                                           metric.get("bandwidth_peak_percent"))
    return rates


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--babelstream", required=True)
    parser.add_argument("--ironbench", default="build/release/ironbench")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    elements = args.size_mib * 2**20 // 8
    ours, theirs = {}, {}
    for _ in range(args.rounds):
        for k, v in ironbench(args.ironbench, args.device, args.size_mib).items():
            ours.setdefault(k, []).append(v)
        for k, v in babelstream(args.babelstream, elements).items():
            theirs.setdefault(k, []).append(v)
    print(f"fp64, {args.size_mib} MiB per array, {args.rounds} rounds (medians of rounds)")
    print("| kernel | ironbench median GB/s | ironbench best | % of HBM peak | BabelStream best GB/s | BabelStream average | ratio (median / average) | ratio (best / best) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k in KERNELS:
        if k not in theirs:
            print(f"| {k} | - | - | - | not in BabelStream's output | - | - | - |")
            continue
        med = statistics.median(v[0] for v in ours[k])
        best = statistics.median(v[1] for v in ours[k])
        pct = statistics.median(v[2] for v in ours[k]) if ours[k][0][2] is not None else float("nan")
        b_best = statistics.median(v[0] for v in theirs[k])
        b_avg = statistics.median(v[1] for v in theirs[k])
        print(f"| {k} | {med:.0f} | {best:.0f} | {pct:.1f} | {b_best:.0f} | {b_avg:.0f} | {med / b_avg:.3f} | {best / b_best:.3f} |")


if __name__ == "__main__":
    main()
