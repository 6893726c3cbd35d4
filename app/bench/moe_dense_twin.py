#!/usr/bin/env python3
"""A mixture-of-experts checkpoint and its dense twin with the same active parameters, for ascviz-bench-moe
(issue 42: MoE scoring and generation within 1.5x of a dense model of the same active size; peak memory <= 1.2x
the weights). Random weights (transformers, seeded); the twin has the MoE's hidden size, layers, attention and
vocabulary, and an MLP of intermediate = top_k x the expert's intermediate size (+ the shared expert's where the
family has one), so that one token passes through as many MLP weights in both.

    moe_dense_twin.py --from tests/data/fixtures/models/tiny-qwen3_moe --out /tmp/moe-bench \
                      [--hidden 1024 --head-dim 64] [--layers 8] [--experts 8] [--expert-size 1024]

Writes OUT/moe and OUT/dense (config.json, model.safetensors, tokenizer files of --from), prints their parameter
counts. Families: qwen3_moe (twin qwen3), mixtral (twin mistral), qwen2_moe (twin qwen2, intermediate + the shared
expert's; its sigmoid gate has no dense counterpart and is left out). Needs transformers (the live tier's venv)."""
from __future__ import annotations

import argparse
import json
import os
import shutil

import torch
from transformers import AutoConfig, AutoModelForCausalLM

TWIN = {"qwen3_moe": "qwen3", "mixtral": "mistral", "qwen2_moe": "qwen2"}
KEEP = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size",
        "max_position_embeddings", "rms_norm_eps", "rope_parameters", "hidden_act", "tie_word_embeddings",
        "bos_token_id", "eos_token_id", "attention_bias", "sliding_window")


def expert_size(cfg: dict) -> int:
    return cfg.get("moe_intermediate_size") or cfg["intermediate_size"]  # mixtral: intermediate_size per expert


def save(model_type: str, kw: dict, out: str, src: str, seed: int) -> int:
    config = AutoConfig.for_model(model_type, **kw)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    shutil.rmtree(out, ignore_errors=True)
    model.save_pretrained(out)
    for f in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        if os.path.exists(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), os.path.join(out, f))
    return sum(p.numel() for p in model.parameters())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="src", required=True, help="an MoE checkpoint folder (its config and tokenizer)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hidden", type=int, help="scale: hidden size (heads keep their head_dim)")
    ap.add_argument("--layers", type=int)
    ap.add_argument("--experts", type=int)
    ap.add_argument("--expert-size", type=int)
    ap.add_argument("--head-dim", type=int, help="with --hidden: the heads' size (default: the source's)")
    a = ap.parse_args()
    cfg = json.load(open(os.path.join(a.src, "config.json")))
    mt = cfg["model_type"]
    if mt not in TWIN:
        raise SystemExit(f"{mt}: no dense twin known (qwen3_moe, mixtral, qwen2_moe)")
    moe = {k: v for k, v in cfg.items() if k not in ("architectures", "model_type", "transformers_version", "dtype")}
    if a.hidden:
        hd = a.head_dim or cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
        moe["hidden_size"] = a.hidden
        moe["num_attention_heads"] = a.hidden // hd
        moe["num_key_value_heads"] = max(1, moe["num_attention_heads"] * cfg["num_key_value_heads"] //
                                         cfg["num_attention_heads"])
        moe["head_dim"] = hd
    if a.layers:
        moe["num_hidden_layers"] = a.layers
        moe["mlp_only_layers"] = []
    if a.experts:
        moe["num_local_experts" if "num_local_experts" in moe else "num_experts"] = a.experts
        if "num_experts" in moe and "num_local_experts" in moe:
            moe["num_experts"] = moe["num_local_experts"] = a.experts
    if a.expert_size:
        moe["moe_intermediate_size" if "moe_intermediate_size" in moe else "intermediate_size"] = a.expert_size
    k = moe["num_experts_per_tok"]
    dense = {key: moe[key] for key in KEEP if key in moe}
    dense["intermediate_size"] = k * expert_size(moe) + moe.get("shared_expert_intermediate_size", 0)
    n_moe = save(mt, moe, os.path.join(a.out, "moe"), a.src, 1)
    n_dense = save(TWIN[mt], dense, os.path.join(a.out, "dense"), a.src, 2)
    print(json.dumps({"moe": {"model_type": mt, "parameters": n_moe, "intermediate": expert_size(moe), "top_k": k},
                      "dense": {"model_type": TWIN[mt], "parameters": n_dense,
                                "intermediate": dense["intermediate_size"]}}))


if __name__ == "__main__":
    main()
