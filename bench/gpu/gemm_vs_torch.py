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
    out = subprocess.run([binary, "run", "gemm", "--device", device, "--no-save", "-q", "--json", "-",
                          "--axis", f"dtype={dtype}", "--axis", f"provider={provider}"],
                         check=True, capture_output=True, text=True).stdout
    result = {}
    for case in json.loads(out)["cases"]:
        if case["status"] != "valid":
            raise SystemExit(f"ironbench case not valid: {case['params']} {case['status']} {case.get('reason')}")
        p = case["params"]
        tflops = next(m["value"] for m in case["metrics"] if m["name"] == "tflops")
        clock = next((m["value"] for m in case["metrics"] if m["name"] == "sm_clock_mhz"), None)
        result[(p["M"], p["N"], p["K"])] = (tflops, clock)
    return result


def torch_tflops(dtype, shape):
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
    seconds = do_bench(fn, return_mode="median") / 1e3
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
        ours, theirs = {}, {}
        for _ in range(args.rounds):  # alternate the two tools, keep the median of the rounds
            for shape, value in ironbench_tflops(args.ironbench, args.device, dtype, args.provider).items():
                ours.setdefault(shape, []).append(value)
            for shape in SHAPES:
                theirs.setdefault(shape, []).append(torch_tflops(dtype, shape))
        for shape in SHAPES:
            mine = statistics.median(v[0] for v in ours[shape])
            clocks = [v[1] for v in ours[shape] if v[1] is not None]
            other = statistics.median(theirs[shape])
            clock = f"{statistics.median(clocks):.0f}" if clocks else "n/a"
            print(f"| {dtype} | {shape[0]}×{shape[1]}×{shape[2]} | {mine:.1f} | {clock} | {other:.1f} | {mine / other:.3f} |")


if __name__ == "__main__":
    main()
