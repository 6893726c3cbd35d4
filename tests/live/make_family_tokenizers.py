#!/usr/bin/env python3
"""Family-style tokenizer fixtures: tokenizer.json files with the same pipeline (normalizer, pre-tokenizer,
BPE options, decoder, post-processor, added tokens) as the published tokenizers of newer model families,
trained here by Hugging Face `tokenizers` on a small code + Unicode corpus (no published file can be
downloaded where these are made), and their reference cases.

    make_family_tokenizers.py [--fixtures tests/data/fixtures] [--corpus resources/corpus/stdlib-functions.jsonl]

Writes FIXTURES/tokenizers/<name>/tokenizer.json (+ tokenizer_config.json) and
FIXTURES/tokenizer-cases/<name>.json (the format of tests/data/fixtures/README.md) for the 21 texts of the
existing cases plus texts with emoji, CJK, digit runs, contractions, mixed-case identifiers, leading spaces,
tabs, CRLF and each family's special tokens. Rerunning rewrites the same files for the families; the two
option sets (word-level pre-tokens) can come out with other tie-broken merges, with cases to match.
Test-only (the test venv); the product never runs Python.
"""
import argparse
import json
import os

import tokenizers
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers import trainers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# The split regexes of the published files.
O200K = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
         r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
         r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
CL100K = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
          r"|\s+(?!\S)|\s+")
TEKKEN = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
          r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
          r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")

UNICODE_TEXT = [
    "héllo wörld, ça va? Ünïcödé façade naïve résumé Ångström",
    "日本語のテキストと中文字符，还有한국어 문장。",
    "Привет, мир! Ελληνικά γράμματα. שלום עולם. مرحبا بالعالم",
    "emoji 🙂👍🏽👨‍👩‍👧 🚀✨ flags 🇫🇷🇯🇵 and ❤️",
    "math: ∑ x² ≤ ∞, α+β=γ, 𝔸𝕓𝕔, ﬁ ﬂ ①②③ Ⅻ ½",
    "don't DON'T I'LL we've They're she'd it's IT'S you'Re",
    "getHTTPResponseCode XMLHttpRequest parseJSON snake_case_name CamelCase iPhone eBay McDonald",
    "1234567890 3.14159 1e-10 0xFF 100_000 ٣٤٥ ١٢",
]
NEW_TEXTS = [
    "emoji: 🙂👍🏽👨‍👩‍👧‍👦 🚀 → ✅ ❤️‍🔥\n",
    "中文注释：计算两个数的和\n# 日本語のコメント\nx = '한국어'  # 混合 mixed 文字\n",
    "digits 1234567890123 and 42, 007, 3.14159, 1,000,000, 2026-11-26\n",
    "don't can't won't I'LL WE'VE You're he'd it's 'quoted' isn't\n",
    "getHTTPResponse parseXMLDocument myVar_2 __init__ CamelCaseName iOSApp ABCdef\n",
    " leading space",
    "  two leading spaces\n   three",
    "\tTab\tseparated\t\tvalues\n\t\tindented()\n",
    "line one\r\nline two\r\n\r\n\tend\r\n",
    "ﬁx Ａｂｃ １２３ ｶﾀｶﾅ Ⅻ x² ½ e\u0301 n\u0303",
    "İstanbul ΣΊΣΥΦΟΣ Straße ǅemal",
    "mixed\u00a0nbsp\u3000ideographic\u2028sep\u200bzwsp",
    "a-b-c, d;e; f...g -- h,,i",
]


def corpus_texts(corpus_path):
    codes = [json.loads(line)["code"] for line in open(corpus_path, encoding="utf-8") if line.strip()]
    return codes[:600] + UNICODE_TEXT * 20


def base_texts(fixtures):
    with open(os.path.join(fixtures, "tokenizer-cases", "gpt2.json"), encoding="utf-8") as f:
        return [c["text"] for c in json.load(f)["cases"]]


def train(tok, texts, vocab_size, specials=(), **kw):
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(specials),
                                                       show_progress=False, **kw))
    return tok


def byte_level_trainer_kw():
    return {"initial_alphabet": pre_tokenizers.ByteLevel.alphabet()}


def with_byte_tokens(tok, specials):
    """SentencePiece layout: the special tokens, then <0x00>..<0xFF>, then the trained vocabulary."""
    j = json.loads(tok.to_str())
    old = sorted(j["model"]["vocab"].items(), key=lambda kv: kv[1])
    names = list(specials) + [f"<0x{b:02X}>" for b in range(256)]
    names += [t for t, _ in old if t not in names]
    j["model"]["vocab"] = {t: i for i, t in enumerate(names)}
    for a in j["added_tokens"]:
        a["id"] = j["model"]["vocab"][a["content"]]
    return Tokenizer.from_str(json.dumps(j))


def with_unmerged_words(tok, words):
    """Vocabulary entries no merge sequence reaches (as tiktoken-converted files hold): with ignore_merges
    a pre-token equal to one is a single token, without it the merges split it."""
    j = json.loads(tok.to_str())
    vocab = j["model"]["vocab"]
    n = max(vocab.values()) + 1
    added = [a for a in j["added_tokens"]]
    for w in words:
        if w not in vocab:
            vocab[w] = n
            n += 1
    for a in added:  # added tokens keep ids after the vocabulary
        vocab.pop(a["content"], None)
    for a in added:
        a["id"] = n
        n += 1
    return Tokenizer.from_str(json.dumps(j))


def bl(s):
    """A text as its byte-level vocabulary string."""
    table = pre_tokenizers.ByteLevel.alphabet()  # noqa: F841 (only to document the mapping's origin)
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    m = dict(zip(bs, map(chr, cs)))
    return "".join(m[b] for b in s.encode("utf-8"))


def add_tokens(tok, specs):
    """specs: (content, special, dict of AddedToken flags)."""
    for content, special, flags in specs:
        t = AddedToken(content, **flags)
        if special:
            tok.add_special_tokens([t])
        else:
            tok.add_tokens([t])


# ------------------------------------------------------------------------------------------ families
def sp_model(texts, vocab, specials):
    t = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    t.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    train(t, texts, vocab, specials, limit_alphabet=300)
    return t


def gemma(texts):
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "<start_of_turn>", "<end_of_turn>"]
    t = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    t.normalizer = normalizers.Replace(" ", "▁")
    t.pre_tokenizer = pre_tokenizers.Split(" ", behavior="merged_with_previous", invert=False)
    train(t, texts, 2600, specials, limit_alphabet=300)
    t = with_byte_tokens(t, specials)
    t.normalizer = normalizers.Replace(" ", "▁")
    t.pre_tokenizer = pre_tokenizers.Split(" ", behavior="merged_with_previous", invert=False)
    t.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    t.post_processor = processors.TemplateProcessing(single="<bos> $A", special_tokens=[("<bos>", 2)])
    # Gemma's added whitespace runs and HTML tags (not special, matched on the raw text) and its ▁ runs.
    add_tokens(t, [("\n\n", False, {"normalized": False}), ("\t\t", False, {"normalized": False}),
                   ("<table>", False, {"normalized": False}), ("</td>", False, {"normalized": False}),
                   ("▁▁▁▁", False, {"normalized": True}), ("<start_of_image>", True, {"normalized": False})])
    return t, {"bos_token": "<bos>", "eos_token": "<eos>", "add_bos_token": True}


def phi3(texts):
    specials = ["<unk>", "<s>", "</s>"]
    t = sp_model(texts, 2400, specials)
    t = with_byte_tokens(t, specials)
    t.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    t.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                   decoders.Strip(" ", 1, 0)])
    t.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    add_tokens(t, [("<|endoftext|>", True, {"normalized": False}),
                   ("<|assistant|>", True, {"normalized": False, "rstrip": True}),
                   ("<|end|>", True, {"normalized": False, "rstrip": True}),
                   ("<|user|>", True, {"normalized": False, "rstrip": True}),
                   ("<|system|>", True, {"normalized": False, "rstrip": True}),
                   ("<|placeholder1|>", True, {"normalized": False, "lstrip": True, "rstrip": True})])
    return t, {"bos_token": "<s>", "eos_token": "<|endoftext|>", "add_bos_token": True}


def metaspace_family(texts, scheme, split, post):
    specials = ["<unk>", "<s>", "</s>"]
    t = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    t.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme=scheme, split=split)
    train(t, texts, 2200, specials, limit_alphabet=300)
    t = with_byte_tokens(t, specials)
    t.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme=scheme, split=split)
    t.decoder = decoders.Metaspace(replacement="▁", prepend_scheme=scheme, split=split)
    if post:
        t.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    add_tokens(t, [("[INST]", True, {"normalized": False}), ("[/INST]", True, {"normalized": False}),
                   ("[TOOL_CALLS]", True, {"normalized": False, "single_word": True})])
    return t, {"bos_token": "<s>", "eos_token": "</s>", "add_bos_token": post}


def byte_level_split(texts, regex, vocab, specials, normalizer=None, ignore_merges=False, unmerged=()):
    def pipeline(t):
        t.normalizer = normalizer
        t.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(regex), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)])
        t.decoder = decoders.ByteLevel()

    t = Tokenizer(models.BPE())
    pipeline(t)
    train(t, texts, vocab, specials, **byte_level_trainer_kw())
    if unmerged:
        t = with_unmerged_words(t, [bl(w) for w in unmerged])
    j = json.loads(t.to_str())
    j["model"]["ignore_merges"] = ignore_merges
    t = Tokenizer.from_str(json.dumps(j))
    pipeline(t)
    return t


UNMERGED = [" don't", "HTTPResponse", " getHTTPResponse", "1234", " 日本語", "Straße", " Привет", "🙂👍"]


def o200k(texts):
    t = byte_level_split(texts, O200K, 3000, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                         normalizer=normalizers.NFC())
    t.post_processor = processors.ByteLevel(trim_offsets=False)
    add_tokens(t, [("<think>", False, {"normalized": False}), ("</think>", False, {"normalized": False}),
                   ("<|fim_prefix|>", True, {"normalized": False})])
    return t, {"bos_token": None, "eos_token": "<|im_end|>", "add_bos_token": False}


def llama3(texts):
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    t = byte_level_split(texts, CL100K, 3000, specials, ignore_merges=True, unmerged=UNMERGED)
    bos = t.token_to_id("<|begin_of_text|>")
    t.post_processor = processors.Sequence([
        processors.ByteLevel(add_prefix_space=True, trim_offsets=False, use_regex=True),
        processors.TemplateProcessing(single="<|begin_of_text|> $A", special_tokens=[("<|begin_of_text|>", bos)])])
    add_tokens(t, [("<think>", False, {"normalized": False}), ("<|reserved_special_token_0|>", True, {"normalized": False})])
    return t, {"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>", "add_bos_token": True}


def tekken(texts):
    specials = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]",
                "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"]
    specials += [f"<SPECIAL_{k}>" for k in range(20, 40)]
    t = byte_level_split(texts, TEKKEN, 3000, specials, ignore_merges=True, unmerged=UNMERGED)
    t.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    return t, {"bos_token": "<s>", "eos_token": "</s>", "add_bos_token": True}


def olmo(texts):
    def pipeline(t):
        t.normalizer = normalizers.NFC()
        t.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)])
        t.decoder = decoders.ByteLevel()
        t.post_processor = processors.ByteLevel(trim_offsets=True)

    t = Tokenizer(models.BPE())
    pipeline(t)
    train(t, texts, 3000, ["<|endoftext|>", "<|padding|>"], **byte_level_trainer_kw())
    # GPT-NeoX's whitespace runs: added, not special, normalized.
    add_tokens(t, [(" " * n, False, {"normalized": True}) for n in (24, 16, 8, 4, 2)])
    add_tokens(t, [("|||IP_ADDRESS|||", False, {"normalized": True}), ("<|padding|>", True, {"normalized": False})])
    return t, {"bos_token": None, "eos_token": "<|endoftext|>", "add_bos_token": False}


def subword_options(texts):
    """Not a family: the BPE options continuing_subword_prefix / end_of_word_suffix and an unfused unk over
    word-level pre-tokens (WhitespaceSplit, Punctuation, Digits), Strip/NFKC/Lowercase, BPEDecoder."""
    def pipeline(t):
        t.normalizer = normalizers.Sequence([normalizers.Strip(), normalizers.NFKC(), normalizers.Lowercase()])
        t.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                   pre_tokenizers.Punctuation(behavior="isolated"),
                                                   pre_tokenizers.Digits(individual_digits=False)])
        t.decoder = decoders.BPEDecoder(suffix="</w>")

    t = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##", end_of_word_suffix="</w>",
                             fuse_unk=False))
    pipeline(t)
    train(t, texts, 2500, ["[UNK]", "[CLS]", "[SEP]"], continuing_subword_prefix="##", end_of_word_suffix="</w>",
          limit_alphabet=150)
    add_tokens(t, [("[MASK]", True, {"normalized": True, "lstrip": True}),
                   ("<word>", False, {"normalized": False, "single_word": True}),
                   ("@@", False, {"normalized": True, "rstrip": True})])
    return t, {"bos_token": "[CLS]", "eos_token": "[SEP]"}


def split_options(texts):
    """Not a family: Split with every behavior and invert, Whitespace, Punctuation contiguous, a regex
    Replace normalizer, fused unk, no decoder."""
    def pipeline(t):
        t.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(Regex(r"[ \t]+"), " ")])
        t.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split("-", behavior="merged_with_previous"),
            pre_tokenizers.Split(Regex("[,;]"), behavior="merged_with_next"),
            pre_tokenizers.Split(Regex(r"\."), behavior="contiguous"),
            pre_tokenizers.Split(Regex(r"\S+"), behavior="removed", invert=True),
            pre_tokenizers.Split(Regex(r"[A-Z]"), behavior="isolated", invert=True),
            pre_tokenizers.Punctuation(behavior="contiguous"),
            pre_tokenizers.Whitespace()])

    t = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True))
    pipeline(t)
    train(t, texts, 2000, ["<unk>"], limit_alphabet=120)
    add_tokens(t, [("<sep>", True, {"normalized": False, "single_word": True, "lstrip": True, "rstrip": True})])
    return t, {"eos_token": "<sep>"}


FAMILIES = {
    "family-gemma": gemma,
    "family-phi3": phi3,
    "family-mistral-metaspace": lambda x: metaspace_family(x, "first", False, True),
    "family-metaspace-always": lambda x: metaspace_family(x, "always", True, False),
    "family-metaspace-never": lambda x: metaspace_family(x, "never", True, False),
    "family-o200k": o200k,
    "family-llama3": llama3,
    "family-tekken": tekken,
    "family-olmo": olmo,
    "family-options-subword": subword_options,
    "family-options-split": split_options,
}


def byte_offsets(text, offsets):
    b = [0]
    for ch in text:
        b.append(b[-1] + len(ch.encode("utf-8")))
    return [[b[s], b[e]] for s, e in offsets]


def special_texts(tok):
    added = [a.content for a in tok.get_added_tokens_decoder().values()]
    texts = ["".join(f"{a} x{k}\n" for k, a in enumerate(added)),
             " " + "  ".join(added) + " ",
             "\n".join(f"\t{a}\t" for a in added[-4:]) + "end"]
    return texts


def write_cases(fixtures, name, tok, texts):
    cases = []
    for text in texts:
        e = tok.encode(text, add_special_tokens=False)
        cases.append({"text": text, "ids": e.ids, "tokens": e.tokens, "offsets_char": [list(o) for o in e.offsets],
                      "offsets_byte": byte_offsets(text, e.offsets),
                      "decoded": tok.decode(e.ids, skip_special_tokens=False)})
    with open(os.path.join(fixtures, "tokenizer-cases", name + ".json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer": name, "tokenizers_version": tokenizers.__version__, "cases": cases}, f,
                  ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", default=os.path.join(ROOT, "tests", "data", "fixtures"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "resources", "corpus", "stdlib-functions.jsonl"))
    ap.add_argument("names", nargs="*", help="families to write (default: all)")
    a = ap.parse_args()
    texts = corpus_texts(a.corpus)
    cases = base_texts(a.fixtures) + NEW_TEXTS
    for name, make in FAMILIES.items():
        if a.names and name not in a.names:
            continue
        tok, config = make(texts)
        d = os.path.join(a.fixtures, "tokenizers", name)
        os.makedirs(d, exist_ok=True)
        tok.save(os.path.join(d, "tokenizer.json"))
        with open(os.path.join(d, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump({k: v for k, v in config.items() if v is not None}, f, indent=1)
            f.write("\n")
        write_cases(a.fixtures, name, tok, cases + special_texts(tok))
        size = os.path.getsize(os.path.join(d, "tokenizer.json"))
        print(f"{name}: vocabulary {tok.get_vocab_size()}, tokenizer.json {size} bytes", flush=True)


if __name__ == "__main__":
    main()
