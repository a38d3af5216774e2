#!/usr/bin/env python3
"""ironbench train against the same GPT written in PyTorch's Python API (eager), side by side.

Both train the same decoder (token + position embedding, pre-norm blocks with causal
scaled_dot_product_attention, Linear-GELU(tanh)-Linear MLP, final LayerNorm, logits from the
tied embedding), with the same AdamW settings (fused where the torch version has it), dtype,
batch, sequence length, steps, warm-up and thread count; runs alternate, and each tool's median
tokens/s over the repeats is reported with the ratio ironbench / PyTorch (goal >= 1.00).

  python3 bench/train_vs_pytorch.py --ironbench build/release/ironbench --model small \
      --batch 1 --seq-len 512 --threads 1 --repeats 3

Needs torch (pip install torch numpy). Several --ironbench binaries may be given (for example
builds against different libtorch versions); each is measured.
"""
import argparse
import json
import math
import statistics
import subprocess
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {
    "small": (6, 6, 384, 1536, 512), "medium": (12, 12, 768, 3072, 512),
    "large": (24, 16, 1024, 4096, 512), "xl": (36, 20, 1280, 5120, 512),
    "1.5b": (48, 24, 1536, 6144, 512), "3b": (32, 32, 2560, 10240, 512),
    "7b": (32, 32, 4096, 11008, 1024), "13b": (40, 40, 5120, 13824, 1024),
}
VOCAB = 50257


class Block(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.ln_attention = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln_mlp = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ff)
        self.fc2 = nn.Linear(ff, d)

    def forward(self, x):
        b, t, d = x.shape
        qkv = self.qkv(self.ln_attention(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
        h = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return h + self.fc2(F.gelu(self.fc1(self.ln_mlp(h)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, layers, heads, d, ff, seq):
        super().__init__()
        self.token_embedding = nn.Embedding(VOCAB, d)
        self.position_embedding = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads, ff) for _ in range(layers))
        self.ln_final = nn.LayerNorm(d)
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif "ln_" not in name:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, tokens, targets):
        t = tokens.shape[1]
        x = self.token_embedding(tokens) + self.position_embedding(torch.arange(t, device=tokens.device))
        for block in self.blocks:
            x = block(x)
        logits = F.linear(self.ln_final(x), self.token_embedding.weight)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def pytorch_run(a):
    torch.set_num_threads(a.threads)
    torch.manual_seed(1234)
    layers, heads, d, ff, _ = PRESETS[a.model]
    device = torch.device(a.device)
    model = GPT(layers, heads, d, ff, a.seq_len).to(device)
    version = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
    fused = device.type == "cuda" or version >= (2, 4)  # as ironbench: fused AdamW where torch has it
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1,
                                  fused=fused)
    tokens = torch.randint(0, VOCAB, (4, a.batch, a.seq_len + 1))
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(a.dtype)
    times = []
    for step in range(a.warmup + a.steps):
        rows = tokens[step % 4].to(device)
        start = time.perf_counter()
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            loss = model(rows[:, :-1], rows[:, 1:])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
        float(loss.detach())
    timed = times[a.warmup:]
    return a.batch * a.seq_len * len(timed) / sum(timed), statistics.median(timed) * 1e3


def ironbench_run(binary, a):
    cmd = [binary, "train", "gpt", "--model", a.model, "--batch", str(a.batch), "--seq-len", str(a.seq_len),
           "--steps", str(a.steps), "--warmup-steps", str(a.warmup), "--threads", str(a.threads),
           "--dtype", a.dtype, "--device", a.device, "--no-save", "-q", "--json", "-"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 1) or not done.stdout:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
    case = json.loads(done.stdout)["cases"][0]
    if case["status"] != "valid":
        raise SystemExit(f"ironbench's case is {case['status']}: {case.get('reason', '')} ({' '.join(cmd)})")
    metrics = {m["name"]: m["value"] for m in case["metrics"]}
    return metrics["tokens_per_s"], metrics["step_time_ms"], case["notes"].get("libtorch", "?"), metrics.get("mfu_percent")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ironbench", action="append", required=True, help="ironbench binary (repeatable)")
    p.add_argument("--model", default="small",
                   help="preset, or a comma-separated list; PRESET:BATCH sets that preset's batch "
                        "(the MI350X report's: small:32,medium:16,large:8,1.5b:4)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seq-len", type=int, default=None)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--dtype", default="fp32", choices=["fp32", "bf16", "fp16"])
    p.add_argument("--device", default="cpu")
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    models = []
    for item in a.model.split(","):
        model, _, batch = item.partition(":")
        if model not in PRESETS:
            p.error(f"unknown preset {model} (choose from {', '.join(PRESETS)})")
        models.append((model, int(batch) if batch else a.batch))
    seq_len = a.seq_len
    rows = []
    for model, batch in models:
        a.model, a.batch = model, batch
        a.seq_len = seq_len if seq_len is not None else PRESETS[model][4]
        results = {b: [] for b in a.ironbench}
        torch_results = []
        libtorch, mfu = {}, {}
        for r in range(a.repeats):
            for b in a.ironbench:
                tps, ms, version, m = ironbench_run(b, a)
                results[b].append(tps)
                libtorch[b], mfu[b] = version, m
                print(f"{model} repeat {r + 1}: ironbench ({b}, libtorch {version}) {tps:.1f} tokens/s, {ms:.1f} ms/step",
                      flush=True)
            tps, ms = pytorch_run(a)
            if a.device.startswith("cuda"):
                # The next ironbench process needs the memory PyTorch's allocator keeps cached.
                import gc
                gc.collect()
                torch.cuda.empty_cache()
            torch_results.append(tps)
            print(f"{model} repeat {r + 1}: PyTorch {torch.__version__} eager {tps:.1f} tokens/s, {ms:.1f} ms/step",
                  flush=True)
        reference = statistics.median(torch_results)
        first = len(rows)
        rows.append(f"| {model} (batch {batch}) | PyTorch {torch.__version__} eager (Python) | {torch.__version__} | {reference:.1f} | 1.00 | - |")
        for b in a.ironbench:
            med = statistics.median(results[b])
            m = f"{mfu[b]:.1f}" if mfu[b] else "-"
            rows.append(f"| {model} (batch {batch}) | ironbench train ({b}) | {libtorch[b]} | {med:.1f} | {med / reference:.2f} | {m} |")
        # Each model's rows as soon as they are measured: a run stopped later keeps them.
        print("\n".join(rows[first:]), flush=True)
    print(f"\n| model | tool | libtorch | tokens/s (median of {a.repeats}) | ratio vs PyTorch eager | ironbench MFU % |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    print("\n".join(rows))
    print(f"\n{a.dtype}, {a.device}, {a.threads} thread(s), {a.steps} timed steps after {a.warmup}")

if __name__ == "__main__":
    main()
