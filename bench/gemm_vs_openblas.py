#!/usr/bin/env python3
"""ironbench gemm against OpenBLAS called directly (bench/peers/openblas_gemm_direct.c), side by
side on this machine: for each shape and dtype the two run in alternation, ROUNDS times, and
the table gives each one's median TFLOP/s (median over rounds of the per-round median) and the
ratio ironbench / direct (goal >= 0.95).

Usage: bench/gemm_vs_openblas.py [--ironbench build/release/ironbench] [--rounds 3] [--reps 30]
The direct program is compiled here with the compiler and flags of ironbench's release build
(-O3 -march=native -fopenmp) against the same OpenBLAS (pkg-config openblas)."""
import argparse, json, os, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = [(1024, 1024, 1024), (2048, 1024, 896), (2048, 2048, 2048), (2048, 128, 1024),
          (2048, 448, 1024), (512, 512, 512), (2048, 1024, 160)]  # ironbench's CPU defaults


def build_direct(workdir):
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "openblas"], check=True,
                           capture_output=True, text=True).stdout.split()
    binary = os.path.join(workdir, "openblas_gemm_direct")
    subprocess.run(["cc", "-O3", "-march=native", "-fopenmp", os.path.join(HERE, "peers", "openblas_gemm_direct.c"),
                    "-o", binary] + flags, check=True)
    return binary


def run_direct(binary, dtype, shape, reps):
    out = subprocess.run([binary, "d" if dtype == "fp64" else "s", *map(str, shape), str(reps)],
                         check=True, capture_output=True, text=True).stdout.split()
    median = float(out[1])
    m, n, k = shape
    return 2.0 * m * n * k / median / 1e12


def run_ironbench(ironbench, dtype, shape, reps):
    m, n, k = shape
    out = subprocess.run([ironbench, "run", "gemm", "--no-save", "-q", "--json", "-",
                          "--axis", f"dtype={dtype}", "--axis", f"M={m}", "--axis", f"N={n}", "--axis", f"K={k}",
                          "--min-reps", str(reps), "--max-reps", str(reps), "--target-cv", "0",
                          "--max-time", "600s"], check=True, capture_output=True, text=True).stdout
    case = json.loads(out)["cases"][0]
    if case["status"] != "valid":
        sys.exit(f"ironbench case not valid: {case.get('reason')}")
    return next(x["value"] for x in case["metrics"] if x["name"] == "tflops")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ironbench", default=os.path.join(HERE, "..", "build", "release", "ironbench"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--dtypes", default="fp64,fp32")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        direct = build_direct(workdir)
        print("| dtype | M | N | K | ironbench TFLOP/s | OpenBLAS direct TFLOP/s | ratio |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        ratios = []
        for dtype in args.dtypes.split(","):
            for shape in SHAPES:
                ours, theirs = [], []
                for _ in range(args.rounds):
                    ours.append(run_ironbench(args.ironbench, dtype, shape, args.reps))
                    theirs.append(run_direct(direct, dtype, shape, args.reps))
                a, b = statistics.median(ours), statistics.median(theirs)
                ratios.append(a / b)
                print(f"| {dtype} | {shape[0]} | {shape[1]} | {shape[2]} | {a:.4f} | {b:.4f} | {a / b:.3f} |", flush=True)
        geomean = statistics.geometric_mean(ratios)
        print(f"\ngeometric mean ratio: {geomean:.3f} over {len(ratios)} cases; lowest {min(ratios):.3f}")


if __name__ == "__main__":
    main()
