#!/usr/bin/env python3
"""Writes a tiny random-weight Llama model for testing `ironbench serve` against llama.cpp.

    make_tiny_gguf.py OUT_DIR

OUT_DIR/tiny.gguf: the llama architecture (2 layers, hidden 64, 4 heads, context 512) with
a byte-level BPE ("gpt2") tokenizer of a few hundred tokens, OUT_DIR/tokenizer.json: the
same tokenizer in Hugging Face's format, for `ironbench serve --tokenizer`, and two LoRA
adapters of the model, OUT_DIR/tiny-lora-sql.gguf and tiny-lora-chat.gguf. The weights come
from a fixed seed: the files are the same on every run.

The weights are random but arranged so that the server's output can be checked exactly:

* Every token the model can emit is a whole word with its leading space (" the"), so the
  concatenated output splits back into the same tokens: counting the streamed text with
  tokenizer.json gives the number of tokens the server generated.
* It never emits the end-of-text token, so every request runs to its max_tokens, as with
  vLLM's ignore_eos (which llama-cpp-python's server does not have).

Both come from one constant dimension of the residual stream: every token embedding has
the value 1 in dimension 0 and no layer writes to it, so after the final RMS norm that
dimension is large and positive whatever the prompt. A large negative weight in that
dimension of the output matrix keeps the logits of every other token (bytes, word
prefixes, end-of-text) far below those of the words.
"""

import json
import pathlib
import sys

import gguf
import numpy as np

SEED = 20240611
N_EMBD, N_HEAD, N_HEAD_KV, N_LAYER, N_FF, N_CTX = 64, 4, 4, 2, 128, 512
EOT = "<|endoftext|>"

# The words the model speaks (and the words of `ironbench serve`'s random chat prompts):
# lower-case letters only, so that the GPT-2 pre-tokenizer keeps each " word" in one piece.
WORDS = """the of and to in is that for it as was with be on not he by at from his but or are
this have an they which one you had her all she there would their we him been has when who
will more no if out so said what up its about into than them can only other new some could
time these two may then do first any my now such like our over man me even most made after
also did many before must through back years where much your way well down should because
each just those people how too little state good very make world still own see men work long
get here between both life being under never day same another know while last might us great
old year off come since against go came right used take three""".split()


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


def make_vocab():
    """Tokens, merges and the ids of whole words.

    All 256 bytes are tokens, so any prompt can be tokenized. Each word " abc" is reached by
    merges that only ever extend a piece starting with the space ("Ġ a" -> "Ġa", "Ġa b" ->
    "Ġab", ...): no merge joins two letters inside a word, so whatever the merge order a
    pre-tokenized " abc" always becomes the single token "Ġabc".
    """
    byte_encoder = bytes_to_unicode()
    tokens = [byte_encoder[b] for b in range(256)]
    ids = {t: i for i, t in enumerate(tokens)}
    merges = []
    words = []
    space = byte_encoder[ord(" ")]
    for word in dict.fromkeys(WORDS):
        piece = space
        for ch in word:
            merged = piece + ch
            if merged not in ids:
                merges.append(f"{piece} {ch}")
                ids[merged] = len(tokens)
                tokens.append(merged)
            piece = merged
        words.append(ids[piece])
    eot = len(tokens)
    tokens.append(EOT)
    return tokens, merges, sorted(set(words)), eot


def make_weights(n_vocab, word_ids):
    rng = np.random.default_rng(SEED)

    def normal(shape, std):
        return (rng.standard_normal(shape) * std).astype(np.float32)

    # numpy shapes are ggml's dimensions reversed: (rows = outputs, columns = inputs).
    embd = normal((n_vocab, N_EMBD), 0.1)
    embd[:, 0] = 1.0  # the constant dimension
    n_embd_kv = N_EMBD // N_HEAD * N_HEAD_KV
    tensors = {"token_embd.weight": embd}
    for i in range(N_LAYER):
        p = f"blk.{i}."
        tensors[p + "attn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
        tensors[p + "attn_q.weight"] = normal((N_EMBD, N_EMBD), 0.05)
        tensors[p + "attn_k.weight"] = normal((n_embd_kv, N_EMBD), 0.05)
        tensors[p + "attn_v.weight"] = normal((n_embd_kv, N_EMBD), 0.05)
        attn_output = normal((N_EMBD, N_EMBD), 0.05)
        attn_output[0, :] = 0.0  # nothing is written to the constant dimension
        tensors[p + "attn_output.weight"] = attn_output
        tensors[p + "ffn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
        tensors[p + "ffn_gate.weight"] = normal((N_FF, N_EMBD), 0.05)
        tensors[p + "ffn_up.weight"] = normal((N_FF, N_EMBD), 0.05)
        ffn_down = normal((N_EMBD, N_FF), 0.05)
        ffn_down[0, :] = 0.0
        tensors[p + "ffn_down.weight"] = ffn_down
    tensors["output_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
    output = normal((n_vocab, N_EMBD), 0.2)
    # The normed constant dimension is about 6: -20 puts every token that is not a whole
    # word more than 100 below the words, a probability of e^-100 at any temperature used.
    output[:, 0] = -20.0
    output[word_ids, 0] = 0.0
    tensors["output.weight"] = output
    return tensors


def write_gguf(path, tokens, merges, eot, tensors):
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("ironbench-tiny-random")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens)
    writer.add_token_types([gguf.TokenType.NORMAL] * (len(tokens) - 1) + [gguf.TokenType.CONTROL])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(eot)
    writer.add_eos_token_id(eot)
    writer.add_add_bos_token(False)
    writer.add_chat_template(
        "{% for message in messages %}{{ message['role'] }}:{{ message['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant:{% endif %}")
    for name, data in tensors.items():
        writer.add_tensor(name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def write_lora_gguf(path, seed):
    """A LoRA adapter of the tiny model (rank 4 on every layer's attn_q), as llama.cpp's
    convert_lora_to_gguf.py writes one, for `llama-server --lora FILE` and the per-request
    "lora" field. numpy shapes: lora_a (rank, inputs), lora_b (outputs, rank)."""
    rng = np.random.default_rng(seed)
    rank = 4
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_type("adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", float(rank))
    for i in range(N_LAYER):
        a = (rng.standard_normal((rank, N_EMBD)) * 0.05).astype(np.float32)
        b = (rng.standard_normal((N_EMBD, rank)) * 0.05).astype(np.float32)
        writer.add_tensor(f"blk.{i}.attn_q.weight.lora_a", a)
        writer.add_tensor(f"blk.{i}.attn_q.weight.lora_b", b)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def write_tokenizer_json(path, tokens, merges, eot):
    """The same tokenizer as Hugging Face `tokenizers` writes it (GPT-2's configuration)."""
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": eot, "content": EOT, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": byte_level,
        "post_processor": byte_level,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {t: i for i, t in enumerate(tokens)}, "merges": merges},
    }
    path.write_text(json.dumps(spec, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_tiny_gguf.py OUT_DIR")
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    tokens, merges, word_ids, eot = make_vocab()
    write_gguf(out / "tiny.gguf", tokens, merges, eot, make_weights(len(tokens), word_ids))
    write_tokenizer_json(out / "tokenizer.json", tokens, merges, eot)
    for n, name in enumerate(("tiny-lora-sql.gguf", "tiny-lora-chat.gguf")):
        write_lora_gguf(out / name, SEED + 1 + n)
    print(f"{out / 'tiny.gguf'}: {len(tokens)} tokens ({len(word_ids)} words), {len(merges)} merges")


if __name__ == "__main__":
    main()
