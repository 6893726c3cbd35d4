#!/usr/bin/env python3
"""Committed fixtures tests/data/fixtures/models/tiny-<model_type>/ (format: tests/data/fixtures/README.md), made
with the pinned transformers from a live variant of make_cases.py (same tiny shapes, weights from N(0, 0.25)):

    make_fixtures.py --out tests/data/fixtures/models --tokenizer .../ascviz-code-bpe2k/tokenizer.json \
        --variants qwen3,mistral-sliding8,gemma2,phi3-longrope

Writes each checkpoint (config.json, generation_config.json, model.safetensors, tokenizer.json,
tokenizer_config.json), reference.json (per text: input_ids, ntp, cross_entropy, greedy_prompt_ids, greedy_ids)
and reference.safetensors (input_ids_K, top5_ids_K, top5_logits_K, logits_0), and adds the model type to
index.json ({"ok": true, "params", "weights"}). Test-only: runs in the test venv, never in the product.
"""
import argparse
import json
import os
import shutil

import torch
import transformers
from safetensors.torch import save_file
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM

import make_cases

TOKENIZER_CONFIG = {
    "tokenizer_class": "PreTrainedTokenizerFast",
    "bos_token": "<|endoftext|>",
    "eos_token": "<|endoftext|>",
    "unk_token": "<|endoftext|>",
    "model_max_length": 128,
    "add_prefix_space": False,
    "clean_up_tokenization_spaces": False,
}


def make_fixture(out_dir, tokenizer_json, variant):
    name, model_type, overrides, opts = next(v for v in make_cases.VARIANTS if v[0] == variant)
    if (opts.get("expect", "match") != "match" or opts.get("dtype", "float32") != "float32" or opts.get("format")
            or opts.get("mxfp4")):
        raise SystemExit(f"{variant}: fixtures are float32 safetensors checkpoints the runtime implements")
    staging = os.path.join(out_dir, ".staging")
    # the weights exactly as the live variant makes them (its "scale" of some tensors included)
    make_cases.make(staging, tokenizer_json, name, model_type, overrides, {"scale": opts.get("scale", {})})
    d = os.path.join(out_dir, f"tiny-{model_type}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for f in ("config.json", "generation_config.json", "model.safetensors", "tokenizer.json"):
        shutil.copy(os.path.join(staging, name, f), os.path.join(d, f))
    shutil.rmtree(staging)
    json.dump(TOKENIZER_CONFIG, open(os.path.join(d, "tokenizer_config.json"), "w"), indent=1)

    tok = Tokenizer.from_file(tokenizer_json)
    model = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32, attn_implementation="eager").eval()
    cases, tensors = [], {}
    for k, text in enumerate(make_cases.TEXTS):
        ids = tok.encode(text, add_special_tokens=False).ids
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0].float()
        logp = torch.log_softmax(logits, -1)
        targets = torch.tensor(ids[1:])
        picked = logp[:-1].gather(1, targets.view(-1, 1)).view(-1)
        prompt = ids[:make_cases.GREEDY_PROMPT]
        cases.append({"text": text, "input_ids": ids, "ntp": picked.exp().tolist(),
                      "cross_entropy": (-picked.mean()).item(), "greedy_prompt_ids": prompt,
                      "greedy_ids": make_cases.greedy(model, prompt)})
        top = torch.topk(logits, 5, -1)
        tensors[f"input_ids_{k}"] = torch.tensor(ids, dtype=torch.int64)
        tensors[f"top5_ids_{k}"] = top.indices.contiguous()
        tensors[f"top5_logits_{k}"] = top.values.contiguous()
        if k == 0:
            tensors["logits_0"] = logits.contiguous()
    json.dump({"architecture": model_type, "model_type": model_type, "transformers": transformers.__version__,
               "torch": torch.__version__, "dtype": "float32", "attn": "eager", "cases": cases},
              open(os.path.join(d, "reference.json"), "w"), indent=0)
    save_file(tensors, os.path.join(d, "reference.safetensors"))

    index_path = os.path.join(out_dir, "index.json")
    index = json.load(open(index_path))
    index[model_type] = {"ok": True, "params": sum(p.numel() for p in model.parameters()),
                         "weights": sorted(os.listdir(d))}
    json.dump(index, open(index_path, "w"), indent=1)
    print(f"tiny-{model_type} from {variant}: {index[model_type]['params']} parameters")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--variants", required=True, help="comma-separated make_cases.py variant names")
    a = ap.parse_args()
    torch.set_num_threads(1)
    for v in a.variants.split(","):
        make_fixture(a.out, a.tokenizer, v)


if __name__ == "__main__":
    main()
