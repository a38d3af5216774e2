#!/usr/bin/env python3
"""ironbench stream against McCalpin's STREAM, side by side on this machine: the two run in
alternation ROUNDS times with the same array size; the table gives each tool's bandwidth for
copy, scale (ironbench: mul), add and triad, as the median over rounds, and the ratio
ironbench / STREAM (goal >= 0.95). Two comparisons: best rate (fastest repetition: STREAM's
headline "Best Rate") and typical rate (ironbench's median time, STREAM's average time).

Usage: bench/stream_vs_mccalpin.py PATH_TO_STREAM [--ironbench build/release/ironbench] [--rounds 5]
PATH_TO_STREAM is McCalpin's stream.c compiled outside this repository with the compiler and
flags of ironbench's release build (gcc -O3 -march=native -fopenmp) and its own
STREAM_ARRAY_SIZE; the array size is read from its output and given to ironbench."""
import argparse, json, os, re, statistics, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = [("Copy", "copy", 2), ("Scale", "mul", 2), ("Add", "add", 3), ("Triad", "triad", 3)]


def run_stream(binary):
    out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    if "Solution Validates" not in out:
        raise SystemExit("STREAM did not validate:\n" + out)
    elements = int(re.search(r"Array size = (\d+)", out).group(1))
    result = {}
    for label, name, weight in KERNELS:
        match = re.search(label + r":\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", out)
        best_mbs, avg_time = float(match.group(1)), float(match.group(2))
        result[name] = (best_mbs / 1e3, weight * 8 * elements / avg_time / 1e9)
    return elements, result


def run_ironbench(ironbench, elements):
    out = subprocess.run([ironbench, "run", "stream", "--no-save", "-q", "--json", "-",
                          "--axis", f"size={elements * 8}", "--axis", "kernel=copy,mul,add,triad"],
                         check=True, capture_output=True, text=True).stdout
    result = {}
    for case in json.loads(out)["cases"]:
        if case["status"] != "valid":
            raise SystemExit(f"ironbench case not valid: {case.get('reason')}")
        metrics = {m["name"]: m["value"] for m in case["metrics"]}
        result[case["params"]["kernel"]] = (metrics["bandwidth_best"], metrics["bandwidth"])
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("stream")
    parser.add_argument("--ironbench", default=os.path.join(HERE, "..", "build", "release", "ironbench"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ours, theirs = [], []
    elements = None
    for _ in range(args.rounds):
        elements, peer = run_stream(args.stream)
        theirs.append(peer)
        ours.append(run_ironbench(args.ironbench, elements))
    print(f"array size {elements} doubles ({elements * 8 / 2**20:.0f} MiB per array), {args.rounds} rounds\n")
    print("| kernel | ironbench best GB/s | STREAM best GB/s | ratio | ironbench median GB/s | STREAM avg GB/s | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, name, _ in KERNELS:
        ib_best = statistics.median(r[name][0] for r in ours)
        st_best = statistics.median(r[name][0] for r in theirs)
        ib_typ = statistics.median(r[name][1] for r in ours)
        st_typ = statistics.median(r[name][1] for r in theirs)
        print(f"| {name} ({label}) | {ib_best:.1f} | {st_best:.1f} | {ib_best / st_best:.3f} "
              f"| {ib_typ:.1f} | {st_typ:.1f} | {ib_typ / st_typ:.3f} |")


if __name__ == "__main__":
    main()
