#!/usr/bin/env python3
"""Random-weight checkpoints with the shapes of real code models, for app/bench/real_shapes.py.

  ~/.cache/ascviz/venv-bench/bin/python app/bench/make_shapes.py --shape 0.5B --dtype float32 \\
      --out /work/benchdata/0.5B-float32 [--shard-gb 2] [--seed 0]

Shapes (the configs of the published checkpoints; only the weights are random):
  tiny   qwen2, 2 layers, hidden 64, vocabulary 1,000 (the ctest's shape)
  0.5B   Qwen2.5-Coder-0.5B    qwen2, 24 layers, hidden 896, GQA 14/2, vocabulary 151,936, tied head
  1.5B   Qwen2.5-Coder-1.5B    qwen2, 28 layers, hidden 1536, GQA 12/2, vocabulary 151,936, tied head
  3B     StarCoder2-3B         starcoder2, 30 layers, hidden 3072, GQA 24/2, vocabulary 49,152, tied head
  7B     Qwen2.5-Coder-7B      qwen2, 28 layers, hidden 3584, GQA 28/4, vocabulary 152,064 (bfloat16 only)

The model is built by transformers on the meta device (no memory for weights) only to list the parameter names
and shapes; the tensors are then drawn one by one (normal, std --std; norm weights 1, norm biases 0) and written
as safetensors shards of about --shard-gb GB with model.safetensors.index.json, so the peak memory is one shard.
The tokenizer is a byte-level BPE whose first 256 ids are the 256 bytes (id = byte value) and whose other ids
are unreachable placeholders up to the vocabulary size; the bench gives every engine token ids, not text.
"""
import argparse
import json
import os
import sys
import time

CONFIGS = {
    "tiny": {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 64,
             "intermediate_size": 160, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "vocab_size": 1000, "max_position_embeddings": 4096, "rope_theta": 1000000.0, "rms_norm_eps": 1e-6,
             "hidden_act": "silu", "tie_word_embeddings": True, "use_sliding_window": False,
             "bos_token_id": 999, "eos_token_id": 999},
    "0.5B": {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 896,
             "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
             "vocab_size": 151936, "max_position_embeddings": 32768, "rope_theta": 1000000.0, "rms_norm_eps": 1e-6,
             "hidden_act": "silu", "tie_word_embeddings": True, "use_sliding_window": False,
             "bos_token_id": 151643, "eos_token_id": 151643},
    "1.5B": {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 1536,
             "intermediate_size": 8960, "num_hidden_layers": 28, "num_attention_heads": 12, "num_key_value_heads": 2,
             "vocab_size": 151936, "max_position_embeddings": 32768, "rope_theta": 1000000.0, "rms_norm_eps": 1e-6,
             "hidden_act": "silu", "tie_word_embeddings": True, "use_sliding_window": False,
             "bos_token_id": 151643, "eos_token_id": 151643},
    "3B": {"model_type": "starcoder2", "architectures": ["Starcoder2ForCausalLM"], "hidden_size": 3072,
           "intermediate_size": 12288, "num_hidden_layers": 30, "num_attention_heads": 24, "num_key_value_heads": 2,
           "vocab_size": 49152, "max_position_embeddings": 16384, "rope_theta": 999999.4420358813,
           "norm_epsilon": 1e-5, "hidden_act": "gelu_pytorch_tanh", "use_bias": True, "sliding_window": 4096,
           "tie_word_embeddings": True, "bos_token_id": 0, "eos_token_id": 0},
    "7B": {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584,
           "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
           "vocab_size": 152064, "max_position_embeddings": 32768, "rope_theta": 1000000.0, "rms_norm_eps": 1e-6,
           "hidden_act": "silu", "tie_word_embeddings": False, "use_sliding_window": False,
           "bos_token_id": 151643, "eos_token_id": 151643},
}
DTYPES = ("float32", "bfloat16")


def bytes_to_unicode():
    """The byte-level BPE alphabet: printable bytes stand for themselves, the others are shifted past 255."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def tokenizer_json(vocab_size, eos_id):
    alphabet = bytes_to_unicode()
    eos = "<|endoftext|>"
    # The end-of-text token holds its id in the vocabulary itself, also where that id is a byte's (StarCoder2: 0;
    # the byte then has no token, which the bench never needs: it gives ids): a token only in added_tokens would be
    # given a new id past the vocabulary by tokenizers, which llama.cpp's converter refuses.
    vocab = {alphabet[b]: b for b in range(256) if b != eos_id}
    for i in range(256, vocab_size):
        vocab[eos if i == eos_id else f"<|r{i}|>"] = i
    if eos_id < 256:
        vocab[eos] = eos_id
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": eos_id, "content": eos, "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": False, "special": True}],
            "normalizer": None, "pre_tokenizer": byte_level, "post_processor": None, "decoder": byte_level,
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": vocab, "merges": []}}


def parameter_shapes(config_dict):
    """(name, shape) of every tensor the checkpoint stores, from a model built on the meta device."""
    import torch
    import transformers
    cfg = transformers.AutoConfig.for_model(**config_dict)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg)
    out = []
    for name, t in model.state_dict().items():
        if config_dict.get("tie_word_embeddings") and name == "lm_head.weight":
            continue
        if "rotary_emb" in name:
            continue
        out.append((name, tuple(t.shape)))
    return out


def is_norm(name):
    return "norm" in name


def write(shape, dtype_name, out, shard_gb=2.0, std=0.02, seed=0):
    """Writes the checkpoint; each shard is drawn, written and freed before the next (peak memory: one shard)."""
    import torch
    from safetensors.torch import save_file
    if shape not in CONFIGS:
        sys.exit(f"make_shapes: unknown --shape {shape} ({', '.join(CONFIGS)})")
    if dtype_name not in DTYPES:
        sys.exit(f"make_shapes: unknown --dtype {dtype_name} ({', '.join(DTYPES)})")
    if shape == "7B" and dtype_name != "bfloat16":
        sys.exit("make_shapes: the 7B shape is made in bfloat16 only (28 GB in float32 does not fit this machine)")
    cfg = dict(CONFIGS[shape])
    cfg["torch_dtype"] = dtype_name
    dtype = getattr(torch, dtype_name)
    os.makedirs(out, exist_ok=True)
    t0 = time.perf_counter()
    shapes = parameter_shapes(cfg)
    elem = torch.tensor([], dtype=dtype).element_size()
    limit = int(shard_gb * 1e9)
    groups, cur, size = [], [], 0  # plan the shards from the shapes alone
    for name, s in shapes:
        nbytes = elem
        for d in s:
            nbytes *= d
        if cur and size + nbytes > limit:
            groups.append(cur)
            cur, size = [], 0
        cur.append((name, s))
        size += nbytes
    if cur:
        groups.append(cur)
    gen = torch.Generator().manual_seed(seed)
    weight_map, total, n = {}, 0, len(groups)
    for i, group in enumerate(groups):
        fname = "model.safetensors" if n == 1 else f"model-{i + 1:05d}-of-{n:05d}.safetensors"
        tensors = {}
        for name, s in group:
            if is_norm(name):
                t = torch.ones(s, dtype=dtype) if name.endswith("weight") else torch.zeros(s, dtype=dtype)
            else:
                t = (torch.randn(s, generator=gen, dtype=torch.float32) * std).to(dtype)
            tensors[name] = t
            weight_map[name] = fname
            total += t.numel() * t.element_size()
        save_file(tensors, os.path.join(out, fname), metadata={"format": "pt"})
        del tensors
    if n > 1:
        with open(os.path.join(out, "model.safetensors.index.json"), "w", encoding="utf-8") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=1)
    return finish(cfg, out, total, t0)


def finish(cfg, out, total, t0):
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=1)
    with open(os.path.join(out, "generation_config.json"), "w", encoding="utf-8") as f:
        json.dump({"bos_token_id": cfg["bos_token_id"], "eos_token_id": cfg["eos_token_id"]}, f, indent=1)
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(cfg["vocab_size"], cfg["eos_token_id"]), f, ensure_ascii=False)
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "<|endoftext|>",
                   "bos_token": None, "model_max_length": cfg["max_position_embeddings"]}, f, indent=1)
    return {"dir": out, "bytes": total, "seconds": time.perf_counter() - t0}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", required=True, choices=list(CONFIGS))
    ap.add_argument("--dtype", required=True, choices=DTYPES)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shard-gb", type=float, default=2.0)
    ap.add_argument("--std", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    r = write(a.shape, a.dtype, a.out, a.shard_gb, a.std, a.seed)
    print(f"make_shapes: {a.shape} {a.dtype}: {r['bytes'] / 1e9:.2f} GB in {r['seconds']:.1f} s -> {r['dir']}")


if __name__ == "__main__":
    main()
