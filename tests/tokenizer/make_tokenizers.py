#!/usr/bin/env python3
"""Builds the tokenizer fixtures of ironbench's tokenizer test with Hugging Face `tokenizers`:
two byte-level BPE tokenizers trained here on a varied corpus (one with GPT-2's pre-tokenizer,
one with Llama 3's split pattern and ignore_merges), saved as tokenizer.json, and the ids the
library gives for a set of test texts. The C++ tokenizer must produce exactly those ids.

Usage: make_tokenizers.py OUTPUT_DIR"""
import json, os, random, sys

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")

WORDS = ("the of and to in is that for it as was with be on not he I by are this you from at or have an they which "
         "one had word but what some we can out other were all there when up use your how said each she time "
         "benchmark GPU tensor latency throughput token inference serving cluster bandwidth memory").split()


def corpus(rng, lines):
    extra = ["naïve café résumé", "Größe straße", "日本語のテキストです", "中文字符测试", "😀 🚀 👍🏽", "Ελληνικά κείμενο",
             "Русский текст", "def f(x):\n    return x**2  # comment", "a = [1, 2, 3]; b = {'k': 0.5}",
             "I'm you're they'll we've it's she'd I'M YOU'RE", "1234567890 3.14159 -42 1e-9 0xFF",
             "tabs\tand\t\ttabs", "trailing spaces   ", "   leading", "new\n\nlines\r\nand CR\r",
             "URL https://example.com/a?b=c&d=e", "email someone@example.org", "$$$ ### @@@ !!! ???"]
    out = []
    for _ in range(lines):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 20))]
        if rng.random() < 0.3:
            words.insert(rng.randint(0, len(words)), rng.choice(extra))
        if rng.random() < 0.2:
            words.append(str(rng.randint(0, 10**rng.randint(1, 9))))
        out.append(" ".join(words))
    return out + extra


def texts(rng):
    fixed = ["", " ", "  ", "\n", "Hello, world!", "Hello world", " Hello world", "HELLO World hello",
             "I'm sure you've seen it's done.", "The year 2024 had 366 days; 12345678 is long.",
             "naïve café résumé Größe", "日本語のテキストです。中文字符测试", "emoji 😀🚀 and 👍🏽 flags 🇫🇷",
             "code: for (int i = 0; i < n; ++i) { x += i; }", "tabs\tand\t\ttabs", "line one\nline two\r\nthree",
             "trailing spaces   ", "   leading spaces", "multiple     spaces here", "a\u00a0non-breaking space",
             "MiXeD CaSe wOrDs", "punctuation!!! ... ??? ;;; ::", "unknown words zyxqwv klmnopq",
             "<|begin_of_text|> not special here", "ΑΒΓ αβγ Привет мир", "1,000,000.50 and -3.5e-7"]
    words = WORDS + ["😀", "café", "日本", "123", "\n", "\t", "  ", "don't", "Ünïcödé"]
    random_texts = ["".join(rng.choice([" ", "", ""]) + rng.choice(words) for _ in range(rng.randint(1, 40)))
                    for _ in range(300)]
    return fixed + random_texts


def train(pre_tokenizer, ignore_merges, lines):
    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=3000, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=["<|begin_of_text|>", "<|end_of_text|>"])
    tok.train_from_iterator(lines, trainer)
    return tok


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(7)
    lines = corpus(rng, 3000)
    variants = {
        "gpt2": train(pre_tokenizers.ByteLevel(add_prefix_space=False), False, lines),
        "llama3": train(pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)]), True, lines),
    }
    cases = texts(rng)
    for name, tok in variants.items():
        tok.save(os.path.join(out_dir, f"{name}.tokenizer.json"))
        expected = [{"text": t, "ids": tok.encode(t, add_special_tokens=False).ids} for t in cases]
        with open(os.path.join(out_dir, f"{name}.expected.json"), "w", encoding="utf-8") as f:
            json.dump(expected, f, ensure_ascii=False)
    print(f"wrote {len(variants)} tokenizers and {len(cases)} texts to {out_dir}")


if __name__ == "__main__":
    main()
