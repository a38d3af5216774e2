#!/usr/bin/env python3
"""ironbench copy against nvbandwidth, side by side: host-to-device and device-to-host copies
from pinned memory by the copy engines and by kernels (nvbandwidth testcases
host_to_device_memcpy_ce, device_to_host_memcpy_ce, host_to_device_memcpy_sm,
device_to_host_memcpy_sm) with nvbandwidth's 512 MiB buffers, in alternation; ratio
ironbench / nvbandwidth (goal >= 0.95).

nvbandwidth is built outside this project, from its own repository; pass its binary.
Usage: bench/gpu/copy_vs_nvbandwidth.py --nvbandwidth /path/to/nvbandwidth [--ironbench ...]"""
import argparse, json, re, statistics, subprocess

CASES = [("h2d", "ce", "host_to_device_memcpy_ce"), ("d2h", "ce", "device_to_host_memcpy_ce"),
         ("h2d", "sm", "host_to_device_memcpy_sm"), ("d2h", "sm", "device_to_host_memcpy_sm")]


def nvbandwidth(binary, testcase):
    out = subprocess.run([binary, "-t", testcase], check=True, capture_output=True, text=True).stdout
    # The matrix row for GPU 0 ("0   55.23"); take the first GPU's value.
    for line in out.splitlines():
        m = re.match(r"^\s*0\s+([\d.]+)", line)
        if m:
            return float(m.group(1))
    raise SystemExit(f"no bandwidth in nvbandwidth output:\n{out}")


def ironbench(binary, device):
    out = subprocess.run([binary, "run", "copy", "--device", device, "--no-save", "-q", "--json", "-",
                          "--axis", "path=h2d,d2h", "--axis", "size=512M"],
                         check=True, capture_output=True, text=True).stdout
    rates = {}
    for case in json.loads(out)["cases"]:
        if case["status"] != "valid":
            raise SystemExit(f"ironbench case not valid: {case}")
        metric = {m["name"]: m["value"] for m in case["metrics"]}
        rates[(case["params"]["path"], case["params"]["engine"])] = metric["bandwidth"]
    return rates


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nvbandwidth", required=True)
    parser.add_argument("--ironbench", default="build/release/ironbench")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ours, theirs = {}, {}
    for _ in range(args.rounds):
        for k, v in ironbench(args.ironbench, args.device).items():
            ours.setdefault(k, []).append(v)
        for path, engine, testcase in CASES:
            theirs.setdefault((path, engine), []).append(nvbandwidth(args.nvbandwidth, testcase))
    print("| copy | engine | ironbench GB/s | nvbandwidth GB/s | ratio |")
    print("| --- | --- | ---: | ---: | ---: |")
    for path, engine, _ in CASES:
        mine = statistics.median(ours[(path, engine)])
        other = statistics.median(theirs[(path, engine)])
        print(f"| {path} | {engine} | {mine:.1f} | {other:.1f} | {mine / other:.3f} |")


if __name__ == "__main__":
    main()
