#!/usr/bin/env python3
"""Differential tokenizer cases: generated strings (20,000 a tokenizer by default; the CTest tier asks 8,000) encoded by Hugging Face `tokenizers` with every
given tokenizer.json and with tokenizers trained here by `tokenizers`' own trainers.

    make_tokenizer_cases.py --out DIR --corpus stdlib-functions.jsonl [--strings N] [--seed S] NAME=tokenizer.json ...

Writes DIR/<name>.tokenizer.json (the tokenizer compared), DIR/<name>.cases.json
({"cases": [{"text", "ids", "offsets"}]}, offsets as UTF-8 byte offsets) and DIR/manifest.json
({"tokenizers_version", "strings", "seed", "tokenizers": [name]}). Encoded without special tokens.
Test-only (the test venv); the product never runs Python.
"""
import argparse
import json
import os
import random

import tokenizers
from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

SPECIAL_LOOKALIKES = ["<|endoftext|>", "<|endoftext", "endoftext|>", "<s>", "</s>", "<unk>", "<|im_start|>",
                      "<|im_end|>", "<mask>", "@@", "<pad>", "<|fim_prefix|>", "<0x41>", "▁", "Ġ", "Ċ",
                      # the family fixtures' added tokens (make_family_tokenizers.py)
                      "[INST]", "[/INST]", "[TOOL_CALLS]", "<start_of_turn>", "<bos>", "<|begin_of_text|>",
                      "<|eot_id|>", "<|end|>", "<|assistant|>", "<|placeholder1|>", "<SPECIAL_20>", "[MASK]",
                      "[mask]", "<word>", "<sep>", "<think>", "\n\n", "\t\t", "<table>", "▁▁▁▁", "  ", "<|padding|>"]
# Contractions, cases and identifiers the o200k / Tekken / cl100k regexes treat specially.
WORDS = ["don't", "DON'T", "I'LL", "we've", "They'RE", "it's", "ſ's", "'s", "getHTTPResponse", "XMLHttpRequest",
         "iPhone", "ÀÉÎõü", "ǅemal", "ΣΊΣΥΦΟΣ", "Straße", "x²", "1234567", "3.14159", "٣٤٥", "日本語", "한국어",
         "🙂", "e\u0301", "snake_case", "__init__", "A1b2C3", "/", "//", "\r\n", "\n", " ", "\t"]
WHITESPACE = [" ", "  ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2028", "\u200b", "\f", "\v"]
RANGES = [(0x20, 0x7E), (0xA0, 0xFF), (0x100, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x590, 0x5FF),
          (0x600, 0x6FF), (0x900, 0x97F), (0x3040, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3),
          (0x1F300, 0x1FAFF), (0x2600, 0x27BF), (0x300, 0x36F), (0xFE00, 0xFE0F), (0x1D400, 0x1D7FF),
          (0xFF00, 0xFFEF), (0x0, 0x1F), (0x2000, 0x206F), (0x10000, 0x1007F), (0xE000, 0xE0FF)]
SNIPPETS = [
    "public static int add(int a, int b) {\n\treturn a + b;\n}\n",
    "const f = (x) => x ** 2; // square\nconsole.log(`${f(3)}`);\n",
    "#include <vector>\nint main() { std::vector<int> v{1, 2, 3}; return v.size(); }\n",
    "SELECT name, COUNT(*) FROM users WHERE age >= 18 GROUP BY name;\n",
    "fn main() { println!(\"héllo {}\", 42u64); }\n",
    "if (x != null && y.length > 0) { throw new IllegalStateException(\"bad\"); }\n",
]


def random_unicode(rng, n):
    out = []
    for _ in range(n):
        lo, hi = rng.choice(RANGES)
        cp = rng.randint(lo, hi)
        if 0xD800 <= cp <= 0xDFFF:
            cp = 0x20
        out.append(chr(cp))
        if rng.random() < 0.1:
            out.append(rng.choice(WHITESPACE))
        if rng.random() < 0.05:
            out.append("\u200d" + chr(rng.randint(0x1F466, 0x1F469)))  # ZWJ sequence
    return "".join(out)


def generate(rng, codes, n):
    strings = ["", " ", "\n", "\r\n", "\x00", "a\x00b", "<|endoftext|>", " <|endoftext|> ", "<mask>", " <mask> x"]
    while len(strings) < n:
        kind = rng.random()
        if kind < 0.35:  # a slice of real code
            code = rng.choice(codes)
            a = rng.randrange(len(code))
            s = code[a:a + rng.randint(1, 400)]
        elif kind < 0.45:
            s = rng.choice(SNIPPETS)
            s = s[rng.randrange(len(s)):]
        elif kind < 0.70:
            s = random_unicode(rng, rng.randint(1, 60))
        elif kind < 0.82:  # whitespace runs between words
            s = "".join(rng.choice(WHITESPACE) * rng.randint(1, 9) + rng.choice(["def", "x", "é", "字", "🙂", "42", ""])
                        for _ in range(rng.randint(1, 8)))
        elif kind < 0.87:  # special-token lookalikes inside code and text
            parts = [rng.choice(SPECIAL_LOOKALIKES) if rng.random() < 0.5 else rng.choice(["x = 1", " foo", "\n", "é ", "😀"])
                     for _ in range(rng.randint(1, 6))]
            s = "".join(parts)
        elif kind < 0.92:  # contractions, mixed case, digit runs, separators
            s = "".join(rng.choice(WORDS) + rng.choice(["", "", " ", "  ", "\n", "'", "-", "."])
                        for _ in range(rng.randint(1, 10)))
        else:  # combining marks, CRLF and NUL mixed into text
            base = rng.choice(["e", "a", "n", "ü", "字", " "])
            s = "".join(base + "".join(chr(rng.randint(0x300, 0x36F)) for _ in range(rng.randint(0, 3)))
                        + rng.choice(["", "\r\n", "\x00", "\t"]) for _ in range(rng.randint(1, 20)))
        strings.append(s)
    return strings[:n]


def train_tokenizers(codes):
    """New tokenizer.json variants made by tokenizers' trainers (names -> Tokenizer)."""
    text = codes[:300]
    out = {}

    # Byte-level BPE, NFKC normaliser, prefix space.
    t = Tokenizer(models.BPE())
    t.normalizer = normalizers.NFKC()
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    t.decoder = decoders.ByteLevel()
    t.train_from_iterator(text, trainers.BpeTrainer(vocab_size=800, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                    special_tokens=["<|endoftext|>"], show_progress=False))
    out["trained-bytelevel-nfkc"] = t

    # Byte-level BPE after a digit split and a custom Split regex (no ByteLevel regex).
    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.Split(tokenizers.Regex(r"\s+|[A-Za-z_]+|[^\sA-Za-z_]+"), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    t.decoder = decoders.ByteLevel()
    t.train_from_iterator(text, trainers.BpeTrainer(vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                    show_progress=False))
    out["trained-bytelevel-split-digits"] = t

    # SentencePiece-style BPE with byte fallback (<0xNN> tokens in the vocabulary), as Llama's.
    t = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    t.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    t.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                   decoders.Strip(" ", 1, 0)])
    t.train_from_iterator(text, trainers.BpeTrainer(vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"],
                                                    limit_alphabet=120, show_progress=False))
    j = json.loads(t.to_str())
    vocab = j["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    out["trained-sentencepiece-bytefallback"] = Tokenizer.from_str(json.dumps(j))

    # Added tokens with lstrip / rstrip / normalized flags on a byte-level BPE.
    t = Tokenizer.from_str(out["trained-bytelevel-nfkc"].to_str())
    t.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False)])
    t.add_tokens([AddedToken("@@", lstrip=False, rstrip=True, normalized=True),
                  AddedToken("<pad>", lstrip=True, rstrip=True, normalized=False),
                  AddedToken("ﬁx", normalized=True)])
    out["trained-added-tokens"] = t
    return out


def byte_offsets(text, offsets):
    b = [0]
    for ch in text:
        b.append(b[-1] + len(ch.encode("utf-8")))
    return [[b[s], b[e]] for s, e in offsets]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--strings", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("tokenizer", nargs="*", help="NAME=path/to/tokenizer.json")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    codes = [json.loads(line)["code"] for line in open(a.corpus, encoding="utf-8") if line.strip()]
    rng = random.Random(a.seed)
    strings = generate(rng, codes, a.strings)

    toks = {}
    for spec in a.tokenizer:
        name, path = spec.split("=", 1)
        toks[name] = Tokenizer.from_file(path)
    toks.update(train_tokenizers(codes))
    for name, tok in toks.items():
        tok.save(os.path.join(a.out, name + ".tokenizer.json"))
        encs = tok.encode_batch(strings, add_special_tokens=False)
        cases = [{"text": s, "ids": e.ids, "offsets": byte_offsets(s, e.offsets)} for s, e in zip(strings, encs)]
        with open(os.path.join(a.out, name + ".cases.json"), "w", encoding="utf-8") as f:
            json.dump({"cases": cases}, f, ensure_ascii=False, separators=(",", ":"))
        print(f"{name}: {len(cases)} strings", flush=True)
    json.dump({"tokenizers_version": tokenizers.__version__, "strings": len(strings), "seed": a.seed,
               "tokenizers": list(toks)}, open(os.path.join(a.out, "manifest.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
