#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from the test fixtures and the
bundled resources. Run from anywhere; rerunning rewrites the same files. Standard library only."""
import json
import os
import struct
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FIX = os.path.join(ROOT, "tests", "data", "fixtures")
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")

SNIPPETS = {
    "cpp": "#include <vector>\nint sum(const std::vector<int>& v) {\n  int s = 0;\n  for (int x : v) if (x > 0) s += x;\n  return s; // total\n}\n",
    "java": "class A {\n  static int f(int x) {\n    if (x < 0) { return -x; }\n    String s = \"a<b&c\";\n    return s.length() + x;\n  }\n}\n",
    "javascript": "function f(a, b) {\n  const s = `${a}<${b}>`;\n  return a > b ? s : [a, b].map(x => x * 2);\n}\n",
    "python": "def f(x):\n    \"\"\"Doc <&>.\"\"\"\n    if x > 1 and x < 9:\n        return [i for i in range(x)]\n    return None  # \u00e9\u4e2d\n",
}
BROKEN = {
    "python": "def f(x:\n    return (x +\n",
    "cpp": "int f( { return ; }}\n",
    "java": "class { void f() { int = ; }\n",
    "javascript": "function (a, { return a => ; }\n",
}


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def trimmed_tokenizer(path, keep=300):
    """tokenizer.json with the first `keep` vocabulary ids, the merges among them and every added token."""
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    vocab = {t: i for t, i in j["model"]["vocab"].items() if i < keep}
    merges = []
    for m in j["model"].get("merges", []):
        a, b = m.split(" ", 1) if isinstance(m, str) else m
        if a in vocab and b in vocab and a + b in vocab:
            merges.append(m)
    j["model"]["vocab"] = vocab
    j["model"]["merges"] = merges
    j["added_tokens"] = [t for t in j.get("added_tokens", []) if t["id"] < keep + 100000][:8]
    return json.dumps(j, ensure_ascii=False)


def tokenizer_seeds():
    for name in sorted(os.listdir(os.path.join(FIX, "tokenizers"))):
        text = trimmed_tokenizer(os.path.join(FIX, "tokenizers", name, "tokenizer.json"))
        write("tokenizer", name + ".json", text)
        write("tokenizer", name + "-text.json", text + "\0" + SNIPPETS["python"] + " \u00e9\u4e2d\U0001f600 <|endoftext|>")
    write("tokenizer", "minimal.json", '{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]}}\0abab ba')


def encode_seeds():
    texts = list(SNIPPETS.values()) + ["", " ", "\n\n\t  x", "<|endoftext|>def<s></s>", "\u00e9\u4e2d\U0001f600\u200b",
                                       "  \r\n  ", "a" * 300, "1234567890 3.14e-10"]
    for k, t in enumerate(texts):
        write("encode", "text%02d" % k, bytes([k % 4]) + t.encode("utf-8"))
    # the family-style tokenizers (indices 4.. in fuzz_encode.cpp) on texts their pipelines treat specially
    family = ["<start_of_turn>user\n  x\n\n\t\t<table>\u2581\u2581", "<|end|>\n<|assistant|>  don't I'LL",
              "[INST] getHTTPResponse 12345 [/INST]", " \u65e5\u672c\u8a9e\U0001f642 x\u00b2 \ufb01x \u00c0\u00c9",
              "\r\n  1234567 <|begin_of_text|><|eot_id|>", "<SPECIAL_20>Stra\u00dfe<s></s>",
              "a-b,c;d...e [MASK]  <word> @@ <sep>", "  \u0130stanbul \u061d\u00a0\u3000end"]
    for k, t in enumerate(family):
        write("encode", "family%02d" % k, bytes([4 + k % 10]) + t.encode("utf-8"))


def safetensors_file(tensors, metadata=None):
    header, blobs, off = {}, b"", 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(data)]}
        blobs += data
        off += len(data)
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + blobs


def safetensors_seeds():
    write("safetensors", "one.safetensors", safetensors_file({"w": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4))}))
    write("safetensors", "mixed.safetensors", safetensors_file({
        "a.weight": ("F16", [3], b"\0" * 6), "b.bias": ("BF16", [1, 2], b"\0" * 4), "c": ("I64", [], b"\0" * 8),
        "d": ("U8", [0, 5], b""), "e": ("BOOL", [2], b"\1\0")}, {"format": "pt"}))
    write("safetensors", "empty.safetensors", safetensors_file({}))
    with open(os.path.join(FIX, "models", "tiny-gpt2-sharded", "model.safetensors.index.json"), "rb") as f:
        write("safetensors", "index.json", f.read())
    # The header of a real checkpoint, its data cut to the first tensor's bytes.
    with open(os.path.join(FIX, "models", "tiny-gpt2-sharded", "model-00003-of-00003.safetensors"), "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    write("safetensors", "real-header.safetensors", raw[:8 + n])


def pickle_seeds():
    for model in ("tiny-gpt2-bin",):
        with zipfile.ZipFile(os.path.join(FIX, "models", model, "pytorch_model.bin")) as z:
            for info in z.infolist():
                if info.filename.endswith("data.pkl"):
                    write("pickle", model + ".pkl", z.read(info))
    # A hand-made state dict: {'w': tensor(FloatStorage '0', offset 1, (2, 3), (3, 1))}, protocol 2.
    pk = (b"\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01X\x01\x00\x00\x00wq\x02ctorch._utils\n_rebuild_tensor_v2\nq\x03"
          b"((X\x07\x00\x00\x00storageq\x04ctorch\nFloatStorage\nq\x05X\x01\x00\x00\x000q\x06X\x03\x00\x00\x00cpuq\x07K\x07tq\x08"
          b"QK\x01K\x02K\x03\x86q\tK\x03K\x01\x86q\n\x89ccollections\nOrderedDict\nq\x0b)Rq\x0ctq\rRq\x0es}q\x0fb.")
    write("pickle", "handmade.pkl", pk)


def corpus_seeds():
    for name in sorted(os.listdir(os.path.join(ROOT, "resources", "corpus"))):
        if name.endswith(".jsonl"):
            with open(os.path.join(ROOT, "resources", "corpus", name), encoding="utf-8") as f:
                lines = f.read().splitlines()[:3]
            write("corpus_jsonl", name, "\n".join(lines) + "\n")
    write("corpus_jsonl", "edge.jsonl", '{"id":"a","code":"x = 1","language":"python","prompt":"x"}\n\n{"code":"int f();","language":"C++"}\n'
          '{"id":"a","code":"dup"}\n{"code":1}\nnot json\n{"id":2,"code":"y"}\r\n{"code":"\\ud800"}\n[1,2]\n')
    write("corpus_csv", "basic.csv", 'id,code,language,prompt\na,"def f():\n    return ""x""",python,def\nb,int f();,cpp,\n')
    write("corpus_csv", "edge.csv", 'code\r\n"unterminated\n' + '"a,b",c\n,\n"x""y"\n')
    write("corpus_csv", "columns.csv", 'prompt;code\nx,"y"z,w\n"",""\n')


def pipeline_seeds():
    langs = sorted(SNIPPETS)  # the registry's ids, sorted: the target's byte 0 picks one by index
    for k, lang in enumerate(langs):
        for variant, text in (("ok", SNIPPETS[lang]), ("broken", BROKEN[lang])):
            write("pipeline", "%s-%s" % (lang, variant), bytes([k, 4 * (k + 1) + variant.startswith("b"), 1, 2, 3, 4]) + text.encode("utf-8"))


if __name__ == "__main__":
    tokenizer_seeds()
    encode_seeds()
    safetensors_seeds()
    pickle_seeds()
    corpus_seeds()
    pipeline_seeds()
