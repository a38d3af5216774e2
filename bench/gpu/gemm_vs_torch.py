#!/usr/bin/env python3
"""ironbench gemm on a GPU against torch.matmul timed with triton's do_bench (median), side by
side: for each dtype, ironbench runs every default shape with the Lt provider, then PyTorch
runs the same shapes in the same layout (C = A @ W.t(), W stored N x K; fp8 through
torch._scaled_mm with per-tensor scales and bf16 output). Prints one row per shape and dtype
with both TFLOP/s and the ratio ironbench / torch (goal >= 1.00), as Markdown.

Usage: bench/gpu/gemm_vs_torch.py [--ironbench build/release/ironbench] [--device cuda:0]
                                  [--dtypes fp16,bf16,fp8] [--rounds 2]
Needs PyTorch with CUDA (or ROCm) and Triton (triton.testing.do_bench)."""
import argparse, json, statistics, subprocess

SHAPES = [(8192, 8192, 8192), (16384, 8192, 7168), (16384, 16384, 16384), (16384, 1024, 8192),
          (16384, 3584, 8192), (4096, 4096, 4096), (16384, 8192, 1280)]


def ironbench_tflops(binary, device, dtype, provider):
    """shape -> (TFLOP/s, mean SM MHz, seconds of timed repetitions) for every valid case, and
    shape -> reason for the others."""
    done = subprocess.run([binary, "run", "gemm", "--device", device, "--no-save", "-q", "--json", "-",
                           "--axis", f"dtype={dtype}", "--axis", f"provider={provider}"],
                          capture_output=True, text=True)
    if not done.stdout:
        raise SystemExit(f"ironbench gemm {dtype} failed ({done.returncode}): {done.stderr[-2000:]}")
    result, failed = {}, {}
    for case in json.loads(done.stdout)["cases"]:
        p = case["params"]
        shape = (p["M"], p["N"], p["K"])
        if case["status"] != "valid":
            failed[shape] = f"{case['status']}: {case.get('reason', '')}"[:200]
            continue
        tflops = next(m["value"] for m in case["metrics"] if m["name"] == "tflops")
        clock = next((m["value"] for m in case["metrics"] if m["name"] == "sm_clock_mhz"), None)
        stats = case["time"]["statistics"]
        result[shape] = (tflops, clock, stats["count"] * stats["median"])
    return result, failed


def torch_tflops(dtype, shape, rep_ms=100):
    import torch
    from triton.testing import do_bench
    m, n, k = shape
    torch.manual_seed(0)
    if dtype == "fp8":
        fp8 = torch.float8_e4m3fnuz if "gfx942" in getattr(torch.cuda.get_device_properties(0), "gcnArchName", "") \
            else torch.float8_e4m3fn
        a = torch.randn(m, k, device="cuda").to(fp8)
        w = torch.randn(n, k, device="cuda").to(fp8)
        sa = torch.tensor(0.5, device="cuda")
        sb = torch.tensor(0.25, device="cuda")
        fn = lambda: torch._scaled_mm(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    else:
        t = {"fp16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32, "fp32": torch.float32}[dtype]
        torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
        a = torch.randn(m, k, device="cuda", dtype=t)
        w = torch.randn(n, k, device="cuda", dtype=t)
        fn = lambda: torch.matmul(a, w.t())
    seconds = do_bench(fn, rep=rep_ms, return_mode="median") / 1e3
    return 2.0 * m * n * k / seconds / 1e12


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ironbench", default="build/release/ironbench")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--dtypes", default="fp16,bf16,fp8")
    parser.add_argument("--provider", default="cublaslt")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("| dtype | M×N×K | ironbench TFLOP/s | SM MHz | torch do_bench TFLOP/s | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for dtype in args.dtypes.split(","):
        ours, theirs, failed = {}, {}, {}
        for _ in range(args.rounds):  # alternate the two tools, keep the median of the rounds
            measured, not_valid = ironbench_tflops(args.ironbench, args.device, dtype, args.provider)
            failed.update(not_valid)
            for shape, value in measured.items():
                ours.setdefault(shape, []).append(value)
            for shape in SHAPES:
                # do_bench repeats for as long as ironbench's timed repetitions lasted, so
                # both run the GPU under the same sustained load (clocks fall under it).
                rep_ms = max(100.0, measured[shape][2] * 1e3) if shape in measured else 100.0
                theirs.setdefault(shape, []).append(torch_tflops(dtype, shape, rep_ms))
        for shape in SHAPES:
            other = statistics.median(theirs[shape])
            label = f"{shape[0]}×{shape[1]}×{shape[2]}"
            if shape not in ours:
                print(f"| {dtype} | {label} | {failed.get(shape, 'not run')} | - | {other:.1f} | - |", flush=True)
                continue
            mine = statistics.median(v[0] for v in ours[shape])
            clocks = [v[1] for v in ours[shape] if v[1] is not None]
            clock = f"{statistics.median(clocks):.0f}" if clocks else "n/a"
            print(f"| {dtype} | {label} | {mine:.1f} | {clock} | {other:.1f} | {mine / other:.3f} |", flush=True)

if __name__ == "__main__":
    main()
