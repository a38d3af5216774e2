#!/usr/bin/env python3
"""ironbench copy against nvbandwidth, side by side: host-to-device and device-to-host copies
from pinned memory by the copy engines and by kernels (nvbandwidth testcases
host_to_device_memcpy_ce, device_to_host_memcpy_ce, host_to_device_memcpy_sm,
device_to_host_memcpy_sm) and the device-local copy (device_local_copy; both count its bytes
once) with nvbandwidth's 512 MiB buffers, in alternation; ratio ironbench / nvbandwidth (goal
>= 0.95). nvbandwidth copies pinned memory only: the pageable copies are compared with
PyTorch's (copy_ between a tensor in ordinary memory and one on the GPU, both made
beforehand, timed with CUDA events).

nvbandwidth is built outside this project, from its own repository; pass its binary.
Usage: bench/gpu/copy_vs_nvbandwidth.py --nvbandwidth /path/to/nvbandwidth [--ironbench ...]
       bench/gpu/copy_vs_nvbandwidth.py --pageable-only [--ironbench ...]   (PyTorch peer alone)"""
import argparse, json, re, statistics, subprocess

CASES = [("h2d", "ce", "host_to_device_memcpy_ce"), ("d2h", "ce", "device_to_host_memcpy_ce"),
         ("h2d", "sm", "host_to_device_memcpy_sm"), ("d2h", "sm", "device_to_host_memcpy_sm"),
         ("d2d", "ce", "device_local_copy")]
PAGEABLE = [("h2d_pageable", "ce"), ("d2h_pageable", "ce")]
SIZE = 512 * 2**20


def nvbandwidth(binary, testcase):
    out = subprocess.run([binary, "-t", testcase], check=True, capture_output=True, text=True).stdout
    # "SUM <testcase> <GB/s>" (one GPU: its value); else the matrix row for GPU 0 ("0   55.23").
    for line in out.splitlines():
        m = re.match(r"^SUM\s+" + re.escape(testcase) + r"\s+([\d.]+)", line)
        if m:
            return float(m.group(1))
    for line in out.splitlines():
        m = re.match(r"^\s*0\s+([\d.]+)", line)
        if m:
            return float(m.group(1))
    raise SystemExit(f"no bandwidth in nvbandwidth output:\n{out}")


def ironbench(binary, device, paths):
    out = subprocess.run([binary, "run", "copy", "--device", device, "--no-save", "-q", "--json", "-",
                          "--axis", "path=" + ",".join(paths), "--axis", "size=512M"],
                         check=True, capture_output=True, text=True).stdout
    rates = {}
    for case in json.loads(out)["cases"]:
        if case["status"] == "skipped":  # kernels cannot reach pageable memory
            continue
        if case["status"] != "valid":
            raise SystemExit(f"ironbench case not valid: {case}")
        metric = {m["name"]: m["value"] for m in case["metrics"]}
        rates[(case["params"]["path"], case["params"]["engine"])] = metric["bandwidth"]
    return rates


def torch_pageable(path, repeats=20):
    import torch
    host = torch.randn(SIZE // 4)  # ordinary (pageable) memory, touched
    device = host.to("cuda")
    # Into buffers that exist, as ironbench copies: .to() would allocate (and fault in) new
    # host memory on every device-to-host copy, which measured page faults (1.4 GB/s).
    copy = (lambda: device.copy_(host)) if path == "h2d_pageable" else (lambda: host.copy_(device))
    copy()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeats):
        start.record()
        copy()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return SIZE / statistics.median(times) / 1e9


def main():
    parser = argparse.ArgumentParser()
    peer = parser.add_mutually_exclusive_group(required=True)
    peer.add_argument("--nvbandwidth")
    peer.add_argument("--pageable-only", action="store_true", help="only the pageable copies, against PyTorch")
    parser.add_argument("--ironbench", default="build/release/ironbench")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cases = [] if args.pageable_only else CASES
    paths = sorted({p for p, _, _ in cases}) + [p for p, _ in PAGEABLE]
    ours, theirs = {}, {}
    for _ in range(args.rounds):
        for k, v in ironbench(args.ironbench, args.device, paths).items():
            ours.setdefault(k, []).append(v)
        for path, engine, testcase in cases:
            theirs.setdefault((path, engine), []).append(nvbandwidth(args.nvbandwidth, testcase))
        for path, engine in PAGEABLE:
            theirs.setdefault((path, engine), []).append(torch_pageable(path))
    print("| copy | engine | ironbench GB/s | peer | peer GB/s | ratio |")
    print("| --- | --- | ---: | --- | ---: | ---: |")
    rows = [(p, e, f"nvbandwidth {t}") for p, e, t in cases] + [(p, e, "PyTorch copy_") for p, e in PAGEABLE]
    for path, engine, peer in rows:
        mine = statistics.median(ours[(path, engine)])
        other = statistics.median(theirs[(path, engine)])
        print(f"| {path} | {engine} | {mine:.1f} | {peer} | {other:.1f} | {mine / other:.3f} |")


if __name__ == "__main__":
    main()
