#!/usr/bin/env python3
"""ironbench collectives (MPI, host buffers) against the OSU micro-benchmarks built against the
same MPI, side by side: for all_reduce and all_gather at each size, the two run in alternation,
ROUNDS times, with the same rank count, data type (fp32 / MPI_FLOAT) and iteration counts. The
table gives each one's time per call (median over rounds; OSU: its average latency, ironbench:
its mean time per iteration over ranks) and the ratio OSU time / ironbench time (>= 1 means
ironbench is as fast; goal >= 0.95). Sizes are ironbench's (nccl-tests') sizes: for
all_gather that is the gathered output, so OSU runs size / ranks per rank.

OSU is built outside this project, from its own sources; pass the directory holding
osu_allreduce and osu_allgather.
Usage: bench/collectives_vs_osu.py --osu DIR [--ironbench build/release/ironbench] [--ranks 2]
                                   [--min 8] [--max 16M] [--iters 200] [--warmup 20] [--rounds 3]"""
import argparse, json, os, re, statistics, subprocess

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_mpi_yield_when_idle="1")


def size_of(text):
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def mpirun(ranks, command):
    return subprocess.run(["mpirun", "--oversubscribe", "-np", str(ranks)] + command, env=ENV, check=True,
                          capture_output=True, text=True).stdout


def osu(binary, ranks, low, high, iters, warmup):
    out = mpirun(ranks, [binary, "-m", f"{low}:{high}", "-i", str(iters), "-x", str(warmup), "-T", "mpi_float"])
    times = {}
    for line in out.splitlines():
        m = re.match(r"^\s*(\d+)\s+([\d.]+)\s*$", line)
        if m:
            times[int(m.group(1))] = float(m.group(2))
    return times


def ironbench(binary, ranks, collective, low, high, iters, warmup):
    out = mpirun(ranks, [binary, "collectives", collective, "-d", "fp32", "-b", str(low), "-e", str(high),
                         "-n", str(iters), "-w", str(warmup), "--no-save", "-q", "--json", "-"])
    times = {}
    for case in json.loads(out)["cases"]:
        if case["status"] != "valid":
            raise SystemExit(f"ironbench case not valid: {case}")
        if case["params"]["placement"] != "out-of-place":
            continue
        times[case["params"]["size"]] = next(m["value"] for m in case["metrics"] if m["name"] == "time_us")
    return times


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--osu", required=True)
    p.add_argument("--ironbench", default="build/release/ironbench")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--min", default="8")
    p.add_argument("--max", default="16M")
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    low, high = size_of(a.min), size_of(a.max)
    print(f"{a.ranks} ranks, fp32, {a.iters} iterations after {a.warmup} warm-up, {a.rounds} rounds (medians)")
    print("| collective | size (B) | OSU µs | ironbench µs | ratio OSU / ironbench |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for collective, tool, divisor in (("all_reduce", "osu_allreduce", 1), ("all_gather", "osu_allgather", a.ranks)):
        ours, theirs = {}, {}
        for _ in range(a.rounds):
            for size, t in ironbench(a.ironbench, a.ranks, collective, low, high, a.iters, a.warmup).items():
                ours.setdefault(size, []).append(t)
            for size, t in osu(os.path.join(a.osu, tool), a.ranks, max(4, low // divisor), high // divisor,
                               a.iters, a.warmup).items():
                theirs.setdefault(size * divisor, []).append(t)
        for size in sorted(ours):
            if size not in theirs:
                continue
            mine, other = statistics.median(ours[size]), statistics.median(theirs[size])
            print(f"| {collective} | {size} | {other:.2f} | {mine:.2f} | {other / mine:.3f} |")


if __name__ == "__main__":
    main()
