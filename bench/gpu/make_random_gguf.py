#!/usr/bin/env python3
"""Writes a llama-architecture GGUF model of realistic size with random weights, fast.

    make_random_gguf.py OUT.gguf [--preset 8b|3b|1b|tiny] [--dtype f16|bf16] [--threads N]
                        [--layers N --hidden N --heads N --kv-heads N --ffn N --vocab N --context N]

For serving benchmarks where the model's speed matters and its answers do not (a GPU lease
has no network, so no real weights): the tensors have the shapes and types of a real model,
so a server does the same work per token. Presets:

    8b    Llama-3-8B's shape (32 layers, hidden 4096, 32 heads, 8 KV heads, FFN 14336) with a
          32000-token vocabulary: 7.24 B parameters, 14.5 GB in f16
    3b    Llama-3.2-3B's shape (28 layers, hidden 3072, 24 heads, 8 KV heads, FFN 8192): 6.0 GB
    1b    Llama-3.2-1B's shape (16 layers, hidden 2048, 32 heads, 8 KV heads, FFN 8192): 2.2 GB
    tiny  2 layers, hidden 256: 40 MB (the vocabulary's embeddings), for tests

Speed: the weights are not drawn one by one. One block of normal random values (64 MiB,
numpy's default_rng) is drawn once and every large tensor is that block repeated from its own
offset, written with os.pwrite from several threads straight from that block (only the token
embeddings and the output layer are built in memory): the model is as fast to write as the
page cache or the disk takes it.

The vocabulary is 32000 tokens by default (the ids `ironbench serve --dataset-name random`
draws from without a tokenizer are [100, 32000): keep --vocab at least that): a byte-level BPE ("gpt2") tokenizer as in
tests/llama/make_tiny_gguf.py: all 256 bytes, an end-of-text control token, and lower-case
words with their leading space (" a" ... " zz" ... " abcd"), each reached by merges that only
extend a piece beginning with the space. Any text tokenizes; every word token's text is
printable ASCII. The output layer and the final norm keep the logits of bytes and end-of-text
far below the words' (one constant dimension of the residual stream, as in make_tiny_gguf.py),
so generated text is words; requests still ask for `ignore_eos` to run to max_tokens.
"""

import argparse
import concurrent.futures
import os
import string
import sys
import time

import numpy as np

try:
    import gguf
except ImportError as e:  # the lease installs the carried wheel into a --target folder
    sys.exit(f"make_random_gguf: cannot import gguf ({e}): pip install gguf (and pyyaml), or put it on PYTHONPATH")

PRESETS = {
    # layers, hidden, heads, kv heads, ffn, vocab, context
    "8b": (32, 4096, 32, 8, 14336, 32000, 8192),
    "3b": (28, 3072, 24, 8, 8192, 32000, 8192),
    "1b": (16, 2048, 32, 8, 8192, 32000, 8192),
    "tiny": (2, 256, 4, 2, 512, 32000, 2048),
}
EOT = "<|endoftext|>"
SEED = 20261128
WEIGHT_STD = 0.02  # Llama's initializer range
EMBED_STD = 1.0
BLOCK_VALUES = 32 * 1024 * 1024  # 64 MiB of 2-byte values, drawn once
CHUNK_BYTES = 64 * 1024 * 1024  # one pwrite


def bytes_to_unicode():
    """GPT-2's printable stand-in for each byte (space is 'Ġ', newline 'Ċ')."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def make_vocab(n_vocab):
    """Tokens, merges, the number of byte tokens and the id of end-of-text (the last token).

    Bytes first, then " a".." z", " aa".." zz", " aaa"..: breadth-first, each word one merge
    of its one-shorter prefix and a letter, so a pre-tokenized " word" is always one token.
    """
    byte_encoder = bytes_to_unicode()
    tokens = [byte_encoder[b] for b in range(256)]
    merges = []
    n_words = n_vocab - 256 - 1
    if n_words < 26:
        raise ValueError(f"a vocabulary of {n_vocab} leaves no room for words (at least 283)")
    space = byte_encoder[ord(" ")]
    level = [space]
    while len(tokens) < 256 + n_words:
        following = []
        for piece in level:
            for ch in string.ascii_lowercase:
                if len(tokens) == 256 + n_words:
                    break
                merges.append(f"{piece} {ch}")
                tokens.append(piece + ch)
                following.append(piece + ch)
        level = following
    eot = len(tokens)
    tokens.append(EOT)
    return tokens, merges, eot


class Layout:
    """The tensors in file order: name, numpy shape (rows = outputs), GGUF type, fill."""

    def __init__(self, n_layer, n_embd, n_head, n_head_kv, n_ff, n_vocab, dtype):
        self.dtype = dtype
        self.tensors = []
        kv = n_embd // n_head * n_head_kv
        self.add("token_embd.weight", (n_vocab, n_embd), "embed")
        for i in range(n_layer):
            p = f"blk.{i}."
            self.add(p + "attn_norm.weight", (n_embd,), "ones")
            self.add(p + "attn_q.weight", (n_embd, n_embd), "random")
            self.add(p + "attn_k.weight", (kv, n_embd), "random")
            self.add(p + "attn_v.weight", (kv, n_embd), "random")
            self.add(p + "attn_output.weight", (n_embd, n_embd), "random-row0-zero")
            self.add(p + "ffn_norm.weight", (n_embd,), "ones")
            self.add(p + "ffn_gate.weight", (n_ff, n_embd), "random")
            self.add(p + "ffn_up.weight", (n_ff, n_embd), "random")
            self.add(p + "ffn_down.weight", (n_embd, n_ff), "random-row0-zero")
        self.add("output_norm.weight", (n_embd,), "output-norm")
        self.add("output.weight", (n_vocab, n_embd), "output")

    def add(self, name, shape, fill):
        f32 = len(shape) == 1  # norms stay f32, as converted models keep them
        self.tensors.append((name, shape, fill, 4 if f32 else 2))

    def parameters(self):
        return sum(int(np.prod(s)) for _, s, _, _ in self.tensors)


def to_2byte(values_f32, dtype):
    """f16, or bf16 as uint16 (round to nearest even on the upper 16 bits)."""
    if dtype == "f16":
        return values_f32.astype(np.float16)
    bits = values_f32.astype(np.float32).view(np.uint32)
    rounded = bits + (0x7FFF + ((bits >> 16) & 1))
    return (rounded >> 16).astype(np.uint16)


def from_2byte(values, dtype):
    """float32 values of f16, or of bf16 held as uint16."""
    if dtype == "f16":
        return values.astype(np.float32)
    return (values.astype(np.uint32) << 16).view(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="the .gguf file to write")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="8b")
    ap.add_argument("--dtype", choices=["f16", "bf16"], default="f16", help="type of the weight matrices")
    ap.add_argument("--threads", type=int, default=min(16, os.cpu_count() or 1), help="writer threads")
    for flag in ("layers", "hidden", "heads", "kv-heads", "ffn", "vocab", "context"):
        ap.add_argument(f"--{flag}", type=int, help=f"override the preset's {flag}")
    ap.add_argument("--name", default=None, help="general.name (default: ironbench-random-PRESET)")
    a = ap.parse_args()

    started = time.monotonic()
    n_layer, n_embd, n_head, n_head_kv, n_ff, n_vocab, n_ctx = PRESETS[a.preset]
    n_layer = a.layers or n_layer
    n_embd = a.hidden or n_embd
    n_head = a.heads or n_head
    n_head_kv = a.kv_heads or n_head_kv
    n_ff = a.ffn or n_ff
    n_vocab = a.vocab or n_vocab
    n_ctx = a.context or n_ctx
    if n_embd % n_head or n_head % n_head_kv:
        sys.exit(f"make_random_gguf: hidden {n_embd} must divide by heads {n_head}, heads by kv heads {n_head_kv}")

    tokens, merges, eot = make_vocab(n_vocab)
    layout = Layout(n_layer, n_embd, n_head, n_head_kv, n_ff, n_vocab, a.dtype)

    # Everything that is not weight data goes through gguf's writer: metadata and tensor infos.
    w = gguf.GGUFWriter(a.out, "llama")
    w.add_name(a.name or f"ironbench-random-{a.preset}")
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head_kv)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_rope_freq_base(500000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(len(tokens))
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if a.dtype == "f16" else gguf.LlamaFileType.MOSTLY_BF16)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.NORMAL] * (len(tokens) - 1) + [gguf.TokenType.CONTROL])
    w.add_token_merges(merges)
    w.add_bos_token_id(eot)
    w.add_eos_token_id(eot)
    w.add_add_bos_token(False)
    w.add_chat_template(
        "{% for message in messages %}{{ message['role'] }}:{{ message['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant:{% endif %}")
    two_byte = np.float16 if a.dtype == "f16" else np.uint16
    raw = None if a.dtype == "f16" else gguf.GGMLQuantizationType.BF16
    for name, shape, fill, size in layout.tensors:
        if size == 4:
            w.add_tensor_info(name, shape, np.dtype(np.float32), int(np.prod(shape)) * 4)
        else:
            w.add_tensor_info(name, shape, np.dtype(two_byte), int(np.prod(shape)) * 2, raw_dtype=raw)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.fout[0].flush()
    data_start = w.ggml_pad(w.fout[0].tell(), w.data_alignment)
    align = w.data_alignment
    fd = w.fout[0].fileno()

    phases = {"metadata": time.monotonic() - started}
    mark = time.monotonic()
    # The random block, twice over so that any offset into it has BLOCK_VALUES values after it.
    rng = np.random.default_rng(SEED)
    block = to_2byte(rng.standard_normal(BLOCK_VALUES, dtype=np.float32) * WEIGHT_STD, a.dtype)
    doubled = np.concatenate([block, block]).view(np.uint8)
    block_bytes = block.nbytes
    phases["random block"] = time.monotonic() - mark
    mark = time.monotonic()

    jobs = []  # (file offset, buffer)
    offset = data_start
    words = np.ones(n_vocab, dtype=bool)
    words[:256] = False
    words[eot] = False
    for index, (name, shape, fill, size) in enumerate(layout.tensors):
        nbytes = int(np.prod(shape)) * size
        if fill in ("ones", "output-norm"):
            v = np.ones(shape, dtype=np.float32)
            if fill == "output-norm":
                v[0] = 100.0  # the constant dimension after the final norm: about 100 * 4 / rms
            jobs.append((offset, v.tobytes()))
        elif fill in ("embed", "output"):
            # Built in memory (n_vocab x n_embd), in the writer threads: each token's row from
            # the block, one column set.
            def build(shape=shape, fill=fill, start=(index * 7919 * 2) % block_bytes):
                rows, cols = shape
                flat = np.resize(np.frombuffer(doubled[start:start + block_bytes], dtype=two_byte), rows * cols)
                m = from_2byte(flat.reshape(rows, cols), a.dtype)
                if fill == "embed":
                    m *= EMBED_STD / WEIGHT_STD
                    m[:, 0] = 4.0  # the constant dimension: no layer writes to it
                else:
                    m[:, 0] = np.where(words, 0.0, -10.0)  # bytes, end-of-text: about -10 * 100 * 4 / rms
                return to_2byte(m, a.dtype)
            jobs.insert(0, (offset, build))  # the slowest first
        else:
            # Repeats of the block from this tensor's own offset, in chunks written in place.
            start = (index * 104729 * 2) % block_bytes
            done = 0
            while done < nbytes:
                n = min(CHUNK_BYTES, nbytes - done, block_bytes)
                s = (start + done) % block_bytes
                jobs.append((offset + done, memoryview(doubled)[s:s + n]))
                done += n
            if fill == "random-row0-zero":  # row 0 (one contiguous row): nothing written to dimension 0
                jobs.append(("after", offset, bytes(shape[1] * size)))
        offset = w.ggml_pad(offset + nbytes, align)
    total = offset
    os.ftruncate(fd, total)

    def write(job):
        off, buf = job
        if callable(buf):
            buf = buf()
        view = memoryview(buf).cast("B")
        while len(view):
            n = os.pwrite(fd, view, off)
            off += n
            view = view[n:]

    later = [(j[1], j[2]) for j in jobs if j[0] == "after"]
    first = [j for j in jobs if j[0] != "after"]
    with concurrent.futures.ThreadPoolExecutor(max(1, a.threads)) as pool:
        list(pool.map(write, first))
    for job in later:  # after the blocks they overwrite
        write(job)
    w.fout[0].close()
    w.fout = None
    phases["tensors built and written"] = time.monotonic() - mark
    took = time.monotonic() - started
    print(f"{a.out}: preset {a.preset}, {layout.parameters() / 1e9:.2f} B parameters, {a.dtype}, "
          f"{n_layer} layers, hidden {n_embd}, heads {n_head}/{n_head_kv}, ffn {n_ff}, vocab {len(tokens)}, "
          f"context {n_ctx}: {total / 1e9:.2f} GB in {took:.1f} s ({total / 1e9 / max(took, 1e-9):.2f} GB/s; "
          + ", ".join(f"{k} {v:.1f} s" for k, v in phases.items()) + f"; {a.threads} threads)")


if __name__ == "__main__":
    main()
