#!/usr/bin/env python3
"""Builds the real-model tokenizer fixtures of ironbench's tokenizer test with Hugging Face
`tokenizers`: the tokenizer.json of Llama 2, Mistral 7B (v0.1 and v0.3), Gemma 4 and XLM-RoBERTa
(a Unigram model with SentencePiece's compiled normalizer), made from the vocabularies that PyPI
packages carry, and the ids the library gives for the test texts. The C++ tokenizer must
produce exactly those ids.

Where the vocabularies come from (SOURCE_DIR, filled by prepare.sh):
  ggml-vocab-llama-spm.gguf      Llama 2 (tokens, scores, types) from llama-cpp-python's sources
  ggml-vocab-gemma-4.gguf        Gemma 4 (tokens, types, merges), the same
  ggml-vocab-nomic-bert-moe.gguf XLM-RoBERTa's 250k Unigram pieces, scores and precompiled_charsmap
  tokenizer.model.v1             Mistral 7B v0.1's SentencePiece model, from mistral-common
  mistral_instruct_tokenizer_240323.model.v3  Mistral 7B v0.3's (with its control tokens)
Hugging Face's own tokenizer.json files were made from these SentencePiece models by
transformers' converters; this script assembles the same pipelines (the legacy Llama 2 /
Mistral v0.1 layout with a Prepend/Replace normalizer, the Metaspace layout transformers writes
today, Gemma's Replace normalizer, XLM-RoBERTa's Precompiled normalizer). The ggml files come
with texts and the ids Hugging Face gave for them on the original tokenizer.json
(*.gguf.inp/.out): a rebuilt Llama 2 or Gemma 4 file must give the same, or this script fails
with exit code 3 (and the tests fail rather than skip).

Usage: make_real_tokenizers.py OUTPUT_DIR SOURCE_DIR"""
import json, os, random, struct, sys

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_tokenizers import texts  # noqa: E402  the byte-level fixtures' texts

# SentencePiece piece types (sentencepiece_model.proto), the same numbers as GGUF's token types.
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def read_gguf_metadata(path):
    """The key/value metadata of a GGUF file (the vocabulary files have no tensors to read)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"GGUF":
        raise SystemExit(f"{path}: not a GGUF file")
    pos = 8  # magic, version
    _tensors, count = struct.unpack_from("<QQ", data, pos)
    pos += 16
    scalar = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}

    def string(pos):
        (n,) = struct.unpack_from("<Q", data, pos)
        return data[pos + 8:pos + 8 + n].decode("utf-8"), pos + 8 + n

    def value(kind, pos):
        if kind == 8:
            return string(pos)
        if kind == 9:
            item, n = struct.unpack_from("<IQ", data, pos)
            pos += 12
            if item in scalar:
                size = struct.calcsize(scalar[item])
                values = list(struct.unpack_from("<" + scalar[item][1] * n, data, pos))
                return values, pos + size * n
            out = []
            for _ in range(n):
                v, pos = value(item, pos)
                out.append(v)
            return out, pos
        (v,) = struct.unpack_from(scalar[kind], data, pos)
        return v, pos + struct.calcsize(scalar[kind])

    meta = {}
    for _ in range(count):
        key, pos = string(pos)
        (kind,) = struct.unpack_from("<I", data, pos)
        meta[key], pos = value(kind, pos + 4)
    return meta


def read_spm_pieces(path):
    """(piece, score, type) of a SentencePiece model file (protobuf ModelProto, field 1)."""
    with open(path, "rb") as f:
        data = f.read()

    def varint(buf, pos):
        shift = result = 0
        while True:
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return result, pos

    def fields(buf):
        pos = 0
        while pos < len(buf):
            key, pos = varint(buf, pos)
            number, wire = key >> 3, key & 7
            if wire == 0:
                v, pos = varint(buf, pos)
            elif wire == 1:
                v, pos = buf[pos:pos + 8], pos + 8
            elif wire == 2:
                n, pos = varint(buf, pos)
                v, pos = buf[pos:pos + n], pos + n
            elif wire == 5:
                v, pos = buf[pos:pos + 4], pos + 4
            else:
                raise SystemExit(f"{path}: unexpected protobuf wire type {wire}")
            yield number, v

    pieces = []
    for number, v in fields(data):
        if number == 1:
            piece, score, kind = "", 0.0, NORMAL
            for n, w in fields(v):
                if n == 1:
                    piece = w.decode("utf-8")
                elif n == 2:
                    (score,) = struct.unpack("<f", w)
                elif n == 3:
                    kind = w
            pieces.append((piece, score, kind))
    return pieces


def merges_of(vocab, scores=None):
    """BPE merges of a SentencePiece BPE vocabulary, as transformers' converters make them: every
    split of a piece into two pieces, ordered by the piece's score (or its id)."""
    order = scores if scores is not None else {p: -i for p, i in vocab.items()}
    merges = []
    for piece, score in order.items():
        local = [(piece[:i], piece[i:], score) for i in range(1, len(piece)) if piece[:i] in vocab and piece[i:] in vocab]
        local.sort(key=lambda m: (vocab[m[0]], vocab[m[1]]))
        merges.extend(local)
    merges.sort(key=lambda m: (m[2], len(m[0]), len(m[1])), reverse=True)
    return [(a, b) for a, b, _ in merges]


def add_tokens(tok, pieces):
    """Control pieces as special added tokens, user-defined ones as plain added tokens."""
    added = [AddedToken(p, normalized=False, special=(t == CONTROL)) for p, _, t in pieces if t in (CONTROL, USER_DEFINED)]
    unknown = [AddedToken(p, normalized=False, special=True) for p, _, t in pieces if t == UNKNOWN]
    tok.add_special_tokens([a for a in unknown + added if a.special])
    tok.add_tokens([a for a in added if not a.special])


def spm_bpe(pieces, layout, bos="<s>"):
    """A Llama-style SentencePiece BPE tokenizer (byte fallback). layout "legacy": Hugging Face's
    Llama 2 / Mistral v0.1 files (Prepend and Replace normalizers, no pre-tokenizer); "metaspace":
    what transformers writes today (Metaspace, prepend_scheme first, no split)."""
    vocab = {p: i for i, (p, _, _) in enumerate(pieces)}
    scores = {p: s for p, s, t in pieces if t in (NORMAL, USER_DEFINED)}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges_of(vocab, scores), unk_token="<unk>", fuse_unk=True,
                               byte_fallback=True, dropout=None))
    if layout == "legacy":
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    else:
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    tok.post_processor = processors.TemplateProcessing(single=f"{bos} $A", pair=f"{bos} $A {bos} $B",
                                                       special_tokens=[(bos, vocab[bos])])
    add_tokens(tok, pieces)
    return tok


def gemma(meta):
    """Gemma's layout (transformers' GemmaTokenizer): BPE with byte fallback on a Replace(" ", "▁")
    normalizer, no prefix, the Split(" ") pre-tokenizer Gemma's files carry."""
    tokens, types = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.token_type"]
    vocab = {p: i for i, p in enumerate(tokens)}
    merges = [tuple(m.split(" ", 1)) for m in meta["tokenizer.ggml.merges"]]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", fuse_unk=True, byte_fallback=True,
                               dropout=None))
    tok.normalizer = normalizers.Replace(" ", "▁")
    tok.pre_tokenizer = pre_tokenizers.Split(" ", behavior="merged_with_previous", invert=False)
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    tok.post_processor = processors.TemplateProcessing(single="<bos> $A", pair="<bos> $A <bos> $B",
                                                       special_tokens=[("<bos>", vocab["<bos>"])])
    add_tokens(tok, [(p, 0.0, t) for p, t in zip(tokens, types)])
    return tok


def xlm_roberta(meta):
    """XLM-RoBERTa's layout (transformers' converter): Unigram over the pieces' scores, the
    SentencePiece model's compiled normalizer then runs of spaces made one, Metaspace."""
    tokens, scores, types = (meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.scores"],
                             meta["tokenizer.ggml.token_type"])
    charsmap = bytes(b & 0xFF for b in meta["tokenizer.ggml.precompiled_charsmap"])
    vocab = list(zip(tokens, scores))
    tok = Tokenizer(models.Unigram(vocab, unk_id=meta["tokenizer.ggml.unknown_token_id"], byte_fallback=False))
    tok.normalizer = normalizers.Sequence([normalizers.Precompiled(charsmap),
                                           normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                                       special_tokens=[("<s>", 0), ("</s>", 2)])
    add_tokens(tok, [(p, 0.0, CONTROL if t == CONTROL else NORMAL) for p, t in zip(tokens, types)])
    return tok, charsmap


def t5_style(vocab_scores, charsmap, unk_id):
    """T5's layout (transformers' T5Tokenizer) on the same pieces: WhitespaceSplit then Metaspace."""
    tok = Tokenizer(models.Unigram(vocab_scores, unk_id=unk_id, byte_fallback=False))
    tok.normalizer = normalizers.Precompiled(charsmap)
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")])
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    return tok


def llama_cpp_cases(source, name):
    """The texts of llama.cpp's vocabulary test and the ids Hugging Face gave for them."""
    base = os.path.join(source, f"ggml-vocab-{name}.gguf")
    with open(base + ".inp", encoding="utf-8") as f:
        inputs = f.read().split("\n__ggml_vocab_test__\n")
    with open(base + ".out", encoding="utf-8") as f:
        outputs = f.read().split("\n")
    inputs[-1] = inputs[-1].rstrip("\n")
    pairs = [(t, [int(x) for x in o.split()]) for t, o in zip(inputs, outputs)]
    return [(t, ids) for t, ids in pairs if t or ids]


def check_against_original(tok, source, name, family):
    cases = llama_cpp_cases(source, name)
    wrong = [(t, ids, tok.encode(t, add_special_tokens=False).ids) for t, ids in cases
             if tok.encode(t, add_special_tokens=False).ids != ids]
    if wrong:
        t, want, got = wrong[0]
        print(f"{family}: the rebuilt tokenizer.json differs from the original on {len(wrong)} of "
              f"{len(cases)} texts, first {t!r}: {got} instead of {want}", file=sys.stderr)
        sys.exit(3)  # a failure, not a reason to skip (prepare.sh)
    return len(cases)


def extra_texts(family):
    common = ["<s> in text", "</s>", "<unk>", "  two  spaces  ", "\u2581 literal metaspace", "tab\there",
              "ﬁ ligature ① circled Ｆｕｌｌ width", "e\u0301 combining", "\u200b zero width", "Ⅻ roman",
              "rare 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀 and 😀😀😀", "\x00 nul \x01 control"]
    if family == "mistral-v0.3":
        common += ["[INST] Hello [/INST] Hi</s>", "[AVAILABLE_TOOLS] x [/AVAILABLE_TOOLS]"]
    if family == "gemma":
        common += ["<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"]
    return common


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out_dir, source = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    checked = {}
    llama_meta = read_gguf_metadata(os.path.join(source, "ggml-vocab-llama-spm.gguf"))
    llama_pieces = list(zip(llama_meta["tokenizer.ggml.tokens"], llama_meta["tokenizer.ggml.scores"],
                            llama_meta["tokenizer.ggml.token_type"]))
    variants = {"llama2": spm_bpe(llama_pieces, "legacy")}
    checked["llama2"] = check_against_original(variants["llama2"], source, "llama-spm", "llama2")
    variants["mistral-v0.1"] = spm_bpe(read_spm_pieces(os.path.join(source, "tokenizer.model.v1")), "legacy")
    variants["mistral-v0.3"] = spm_bpe(
        read_spm_pieces(os.path.join(source, "mistral_instruct_tokenizer_240323.model.v3")), "metaspace")
    variants["gemma"] = gemma(read_gguf_metadata(os.path.join(source, "ggml-vocab-gemma-4.gguf")))
    checked["gemma"] = check_against_original(variants["gemma"], source, "gemma-4", "gemma")
    xlmr_meta = read_gguf_metadata(os.path.join(source, "ggml-vocab-nomic-bert-moe.gguf"))
    variants["xlm-roberta"], charsmap = xlm_roberta(xlmr_meta)
    variants["t5-style"] = t5_style(list(zip(xlmr_meta["tokenizer.ggml.tokens"], xlmr_meta["tokenizer.ggml.scores"])),
                                    charsmap, xlmr_meta["tokenizer.ggml.unknown_token_id"])
    base = texts(random.Random(11))
    llama_cpp = [t for t, _ in llama_cpp_cases(source, "llama-spm")]
    for name, tok in variants.items():
        cases = base + llama_cpp + extra_texts(name)
        tok.save(os.path.join(out_dir, f"{name}.tokenizer.json"))
        expected = [{"text": t, "ids": tok.encode(t, add_special_tokens=False).ids} for t in cases]
        with open(os.path.join(out_dir, f"{name}.expected.json"), "w", encoding="utf-8") as f:
            json.dump(expected, f, ensure_ascii=False)
    with open(os.path.join(out_dir, "checked.json"), "w", encoding="utf-8") as f:
        json.dump(checked, f)
    print(f"wrote {len(variants)} tokenizers; rebuilt files identical to the originals on "
          + ", ".join(f"{n} ({c} texts)" for n, c in checked.items()))


if __name__ == "__main__":
    main()
