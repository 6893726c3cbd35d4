#!/usr/bin/env python3
"""Live conformance tier: tiny random Hugging Face checkpoints of every architecture and config variant,
made with `transformers` at test time, each with reference NtP and greedy ids from transformers itself.

    make_cases.py --out DIR --tokenizer tokenizer.json

Writes DIR/<variant>/ (a checkpoint folder as save_pretrained leaves it, plus reference.json holding, per text, its input ids, NtP, the layer lens's NtP per predicted position and layer
("uncertainty": entropy, top-10 entropy, p1, margin and rank per position, docs/method.md §17;
"ntp_layers": output_hidden_states through the final norm and head; "top1_layers"/"top1_gaps": each layer's top-1 id
and its margin over the second logit), the top-5 ids and logits, and the greedy ids) and DIR/manifest.json:
    {"transformers": str, "torch": str, "variants": [{"name", "expect": "match" | "refuse", "error": str}]}
Per text, "ablation" holds {"heads": [[layer, head], ...], "zero": NtP, "mean": NtP}: the NtP with those heads'
slices of the attention output projection's input zeroed or replaced by their mean (method.md 14.1); for a
mixture-of-experts model also "experts": [[layer, expert], ...] and "experts_ntp": the NtP with the router's choice
of those experts masked (their router logits -inf, expert_ablated_ntp).
Per text, reference.json also holds "attentions": output_attentions=True of the eager attention,
[layer][head][query] = that query's row up to and including the query (the causal lower triangle), rounded to 1e-9.
"refuse" variants are configurations the runtime does not implement: loading them must be a ModelError whose
message contains "error" (the config key and value), never different numbers.

Test-only: runs in the test venv (transformers, tokenizers, torch from PyPI); the product never runs Python.
"""
import argparse
import hashlib
import json
import os
import re
import shutil

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

VOCAB = 2048
TEXTS = [
    "def count_chars(string, character):\n    count = 0\n    for c in string:\n"
    "        if c == character:\n            count += 1\n    return count\n",
    "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n"
    "        self.items.append(x)\n\n    def pop(self):\n        return self.items.pop()\n",
]
GREEDY_PROMPT, GREEDY_NEW = 16, 16
# A text of more than one 64-position chunk of the gated delta rule (hybrid families: opts "long_text"), and the
# greedy prompt there long enough that the prefill crosses a chunk boundary before the recurrent steps.
LONG_TEXT = (
    "def merge_sorted(left, right):\n    result = []\n    i = j = 0\n    while i < len(left) and j < len(right):\n"
    "        if left[i] <= right[j]:\n            result.append(left[i])\n            i += 1\n        else:\n"
    "            result.append(right[j])\n            j += 1\n    result.extend(left[i:])\n"
    "    result.extend(right[j:])\n    return result\n")
LONG_PROMPT = 70

# Tiny shapes per architecture (hidden 32, 2 layers, 4 heads, context 128), in transformers 5 spellings.
BASE = {
    "gpt2": dict(n_embd=32, n_layer=2, n_head=4, n_positions=128, bos_token_id=0, eos_token_id=0),
    "gpt_neo": dict(hidden_size=32, num_layers=2, num_heads=4, max_position_embeddings=128, window_size=8,
                    attention_types=[[["global", "local"], 1]], bos_token_id=0, eos_token_id=0),
    "codegen": dict(n_embd=32, n_layer=2, n_head=4, n_positions=128, n_ctx=128, rotary_dim=4,
                    tie_word_embeddings=False, bos_token_id=0, eos_token_id=0),
    "gpt_bigcode": dict(n_embd=32, n_layer=2, n_head=4, n_positions=128, multi_query=True, bos_token_id=0,
                        eos_token_id=0),
    "gpt_neox": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                     max_position_embeddings=128, rotary_pct=0.25, bos_token_id=0, eos_token_id=0),
    "llama": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0),
    "qwen2": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=64, max_position_embeddings=128, tie_word_embeddings=True, bos_token_id=0,
                  eos_token_id=0),
    "starcoder2": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                       intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0),
    "qwen3": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                  intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0),
    "mistral": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=64, max_position_embeddings=128, sliding_window=None, bos_token_id=0,
                    eos_token_id=0),
    "gemma": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1, head_dim=8,
                  intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0,
                  pad_token_id=0),
    # 4 layers: local, global, local, global (window 8); soft-capping small enough to bend the logits.
    "gemma2": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                   intermediate_size=64, max_position_embeddings=128, sliding_window=8, query_pre_attn_scalar=16,
                   attn_logit_softcapping=2.0, final_logit_softcapping=3.0, bos_token_id=0, eos_token_id=0,
                   pad_token_id=0),
    # 4 layers: three local (base 10^4, window 8) and one global (base 10^6).
    "gemma3_text": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                        head_dim=8, intermediate_size=64, max_position_embeddings=128, sliding_window=8,
                        query_pre_attn_scalar=16, layer_types=["sliding_attention"] * 3 + ["full_attention"],
                        final_logit_softcapping=3.0, bos_token_id=0, eos_token_id=0, pad_token_id=0),
    "gptj": dict(n_embd=32, n_layer=2, n_head=4, n_positions=128, rotary_dim=4, bos_token_id=0, eos_token_id=0),
    "phi": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                max_position_embeddings=128, bos_token_id=0, eos_token_id=0),
    "stablelm": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                     intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0),
    "granite": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=64, max_position_embeddings=128, embedding_multiplier=3.0,
                    residual_multiplier=0.7, attention_multiplier=0.3, logits_scaling=2.5, bos_token_id=0,
                    eos_token_id=0, pad_token_id=0),
    "olmo2": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # 4 layers: the 4th without rope (no_rope_layer_interval 4).
    "smollm3": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0,
                    pad_token_id=0),
    # 4 layers: local, local, local, global (window 8); the global layers' rope base 5·10^5, the local ones' 10^4.
    "olmo3": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=64, max_position_embeddings=128, sliding_window=8,
                  rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 500000.0},
                                   "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},
                  bos_token_id=0, eos_token_id=0, pad_token_id=0),
    "seed_oss": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                     intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0,
                     pad_token_id=0),
    # 4 layers: global, local, local, local (window 8).
    "cwm": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                intermediate_size=64, max_position_embeddings=128, sliding_window=8, bos_token_id=0,
                eos_token_id=0),
    # 4 layers: local with rope, local, local, global without rope (window 8).
    "exaone4": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                    intermediate_size=64, max_position_embeddings=128, sliding_window=8, sliding_window_pattern=4,
                    bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # Mixtures of experts (3 layers): mixtral 4 experts top-2 on every layer; qwen2_moe 4 experts top-2 with a
    # shared expert, the middle layer dense (mlp_only_layers); qwen3_moe 4 experts top-2, every layer sparse.
    "mixtral": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=48, max_position_embeddings=128, num_local_experts=4, num_experts_per_tok=2,
                    bos_token_id=0, eos_token_id=0),
    "qwen2_moe": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                      intermediate_size=64, moe_intermediate_size=24, shared_expert_intermediate_size=40,
                      num_experts=4, num_experts_per_tok=2, mlp_only_layers=[1], max_position_embeddings=128,
                      bos_token_id=0, eos_token_id=0),
    "qwen3_moe": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                      intermediate_size=64, moe_intermediate_size=24, num_experts=4, num_experts_per_tok=2,
                      max_position_embeddings=128, bos_token_id=0, eos_token_id=0),
    # DeepSeek (3 layers, multi-head latent attention: kv_lora_rank 16, q/k heads 8 + 4 rope dims, values 6 wide):
    # deepseek_v2 without q_lora_rank, greedy top-2 of 4 experts, one shared expert, the first layer dense;
    # deepseek_v3 with q_lora_rank 12, 8 experts in 4 groups (2 compete), top-2, one shared expert, first layer dense.
    "deepseek_v2": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=4,
                        intermediate_size=48, moe_intermediate_size=16, n_routed_experts=4, num_experts_per_tok=2,
                        n_shared_experts=1, first_k_dense_replace=1, q_lora_rank=None, kv_lora_rank=16,
                        qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=6, max_position_embeddings=128,
                        topk_method="greedy", bos_token_id=0, eos_token_id=0),
    "deepseek_v3": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=4,
                        intermediate_size=48, moe_intermediate_size=16, n_routed_experts=8, num_experts_per_tok=2,
                        n_group=4, topk_group=2, n_shared_experts=1, first_k_dense_replace=1, q_lora_rank=12,
                        kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=6,
                        routed_scaling_factor=2.5, max_position_embeddings=128, bos_token_id=0, eos_token_id=0),
    # mellum (4 layers): local, global, local, global (window 8, rope bases 10^4 and 5·10^5), the first MLP dense,
    # the others 4 experts top-2.
    "mellum": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                   intermediate_size=64, moe_intermediate_size=24, num_experts=4, num_experts_per_tok=2,
                   max_position_embeddings=128, sliding_window=8,
                   layer_types=["sliding_attention", "full_attention"] * 2,
                   mlp_layer_types=["dense", "sparse", "sparse", "sparse"], bos_token_id=0, eos_token_id=0),
    # gpt_oss (4 layers): local, global, local, global (window 8), 4 clamped-SwiGLU experts top-2 on every layer,
    # attention sinks, biases; transformers' default rope (yarn, factor 32 over 4096 positions).
    "gpt_oss": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                    intermediate_size=32, num_local_experts=4, num_experts_per_tok=2, max_position_embeddings=128,
                    sliding_window=8, bos_token_id=0, eos_token_id=0),
    # issue 58. olmoe (3 layers): 4 experts top-2 on every layer, q/k norms over the whole projections.
    "olmoe": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=24, num_experts=4, num_experts_per_tok=2, max_position_embeddings=128,
                  bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # granitemoe / granitemoeshared (3 layers): granite's multipliers, 4 experts top-2 (top-k, then softmax).
    "granitemoe": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                       intermediate_size=24, num_local_experts=4, num_experts_per_tok=2, max_position_embeddings=128,
                       embedding_multiplier=3.0, residual_multiplier=0.7, attention_multiplier=0.3,
                       logits_scaling=2.5, bos_token_id=0, eos_token_id=0, pad_token_id=0),
    "granitemoeshared": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                             intermediate_size=24, num_local_experts=4, num_experts_per_tok=2,
                             shared_intermediate_size=40, max_position_embeddings=128, embedding_multiplier=3.0,
                             residual_multiplier=0.7, attention_multiplier=0.3, logits_scaling=2.5, bos_token_id=0,
                             eos_token_id=0, pad_token_id=0),
    "arcee": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0),
    # glm4: sandwich norms, interleaved rope on half of each head (partial_rotary_factor 0.5 by default).
    "glm4": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                 intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0, pad_token_id=0),
    "ernie4_5": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                     intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0,
                     pad_token_id=0),
    # apertus: xIELU (learned per layer), per-head q/k norms; transformers' default rope (llama3, factor 8).
    "apertus": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=64, max_position_embeddings=128, bos_token_id=0, eos_token_id=0,
                    pad_token_id=0),
    # hunyuan: per-head q/k norms after rope; the MoE (3 layers): 4 experts top-2 plus a shared expert.
    "hunyuan_v1_dense": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                             head_dim=8, intermediate_size=64, max_position_embeddings=128, bos_token_id=0,
                             eos_token_id=0, pad_token_id=0),
    "hunyuan_v1_moe": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                           head_dim=8, intermediate_size=24, num_experts=4, moe_topk=2, max_position_embeddings=128,
                           bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # qwen3_next (4 layers): gated DeltaNet, DeltaNet, DeltaNet, gated full attention (full_attention_interval 4);
    # 2 key heads of 8 serving 4 value heads of 8 (a conv of 4 taps), partial rotary 0.25 (2 of 8 dims); 4 experts
    # top-2 with a shared expert, layer 1 dense (mlp_only_layers).
    "qwen3_next": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                       intermediate_size=64, moe_intermediate_size=24, shared_expert_intermediate_size=40,
                       num_experts=4, num_experts_per_tok=2, mlp_only_layers=[1], linear_conv_kernel_dim=4,
                       linear_key_head_dim=8, linear_value_head_dim=8, linear_num_key_heads=2,
                       linear_num_value_heads=4, max_position_embeddings=256, bos_token_id=0, eos_token_id=0),
    # qwen3_5_text (Qwen3.5's text model): qwen3_next's layers with plain linear_attn projections, dense MLPs;
    # qwen3_5_moe_text: every MLP 4 experts top-2 with a shared expert.
    "qwen3_5_text": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                         intermediate_size=64, linear_conv_kernel_dim=4, linear_key_head_dim=8,
                         linear_value_head_dim=8, linear_num_key_heads=2, linear_num_value_heads=4,
                         max_position_embeddings=256, bos_token_id=0, eos_token_id=0),
    "qwen3_5_moe_text": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                             head_dim=8, moe_intermediate_size=24, shared_expert_intermediate_size=40,
                             num_experts=4, num_experts_per_tok=2, linear_conv_kernel_dim=4, linear_key_head_dim=8,
                             linear_value_head_dim=8, linear_num_key_heads=2, linear_num_value_heads=4,
                             max_position_embeddings=256, bos_token_id=0, eos_token_id=0),
    # lfm2 (4 layers): short convolution, attention, short convolution, attention; conv_L_cache 3; the MLP width
    # 2/3 of intermediate_size rounded up to a multiple of block_multiple_of (96 -> 64).
    "lfm2": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                 intermediate_size=96, block_multiple_of=16, layer_types=["conv", "full_attention"] * 2,
                 max_position_embeddings=256, bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # lfm2_moe: lfm2's layers; layer 0 dense (num_dense_layers 1), then 4 experts top-2 (sigmoid router, expert bias).
    "lfm2_moe": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                     intermediate_size=64, moe_intermediate_size=24, num_experts=4, num_experts_per_tok=2,
                     num_dense_layers=1, layer_types=["conv", "full_attention"] * 2, max_position_embeddings=256,
                     bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # granitemoehybrid (Granite 4.0-H): Mamba-2, attention, Mamba-2 (4 heads of 16 channels, 2 groups of B and C with 8
    # states, a conv of 4 taps, chunks of 8 positions so that the texts cross chunks); granite's multipliers; 4
    # experts top-2 with the shared MLP.
    "granitemoehybrid": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                             intermediate_size=24, shared_intermediate_size=40, num_local_experts=4,
                             num_experts_per_tok=2, layer_types=["mamba", "attention", "mamba"], mamba_n_heads=4,
                             mamba_n_groups=2, mamba_d_state=8, mamba_d_conv=4, mamba_expand=2, mamba_chunk_size=8,
                             position_embedding_type="rope", embedding_multiplier=2.0, residual_multiplier=0.6,
                             attention_multiplier=0.3, logits_scaling=1.5, max_position_embeddings=256,
                             bos_token_id=0, eos_token_id=0),
    # nemotron_h: one block per layer, Mamba-2 (M: 4 heads of 16, 2 groups of 8 states, conv of 4, chunks of 8),
    # attention without rope (*), a relu2 MLP (-) and 4 ungated experts top-2 with the shared expert (E).
    "nemotron_h": dict(hidden_size=32, hybrid_override_pattern="M*-E", num_attention_heads=4, num_key_value_heads=2,
                       head_dim=8, intermediate_size=48, mamba_num_heads=4, mamba_head_dim=16, ssm_state_size=8,
                       n_groups=2, conv_kernel=4, chunk_size=8, n_routed_experts=4, num_experts_per_tok=2,
                       moe_intermediate_size=24, moe_shared_expert_intermediate_size=40, max_position_embeddings=256,
                       bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # issue 58, the attention-only wave. flex_olmo (3 layers): olmo2's post-norms, 4 experts top-2 on every layer.
    "flex_olmo": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                      intermediate_size=24, num_experts=4, num_experts_per_tok=2, max_position_embeddings=128,
                      bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # ernie4_5_moe (3 layers): the first dense, then 4 experts top-2 (biased softmax choice) and one shared expert.
    "ernie4_5_moe": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                         head_dim=8, intermediate_size=64, moe_intermediate_size=16, moe_num_experts=4, moe_k=2,
                         moe_num_shared_experts=1, max_position_embeddings=128, bos_token_id=0, eos_token_id=0,
                         pad_token_id=0),
    # glm4_moe (3 layers): the first dense, then 8 experts in 4 groups (2 compete), top-2, one shared expert.
    "glm4_moe": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                     intermediate_size=48, moe_intermediate_size=16, n_routed_experts=8, num_experts_per_tok=2,
                     n_group=4, topk_group=2, n_shared_experts=1, first_k_dense_replace=1, routed_scaling_factor=2.5,
                     max_position_embeddings=128, bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # dots1 (4 layers): global, global, local, local (window 8), the first MLP dense, then 4 experts top-2 + shared.
    "dots1": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                  intermediate_size=48, moe_intermediate_size=16, n_routed_experts=4, num_experts_per_tok=2,
                  n_shared_experts=1, first_k_dense_replace=1, sliding_window=8, max_window_layers=2,
                  max_position_embeddings=128, bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # minimax_m2 (3 layers): full q/k norms, rope on half of each head, 4 experts top-2 (biased sigmoid choice).
    "minimax_m2": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                       intermediate_size=24, num_local_experts=4, num_experts_per_tok=2, max_position_embeddings=128,
                       rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
                       bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # cohere2 (4 layers): local, local, local, global without rope (window 8), parallel block, logits × 0.5.
    "cohere2": dict(hidden_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=64, max_position_embeddings=128, sliding_window=8, logit_scale=0.5,
                    bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # ministral3: yarn over 32 original positions; the queries from position 32 on scaled (llama_4_scaling_beta).
    "ministral3": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                       intermediate_size=64, max_position_embeddings=128,
                       rope_parameters={"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 4.0,
                                        "original_max_position_embeddings": 32, "beta_fast": 32.0, "beta_slow": 1.0,
                                        "mscale": 1.0, "mscale_all_dim": 1.0, "llama_4_scaling_beta": 0.1},
                       bos_token_id=0, eos_token_id=0, pad_token_id=0),
    # phimoe (3 layers): LayerNorm, 4 experts on every layer chosen by the sparsemixer (two, eval mode).
    "phimoe": dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                   intermediate_size=24, num_local_experts=4, num_experts_per_tok=2, max_position_embeddings=128,
                   bos_token_id=0, eos_token_id=0, pad_token_id=0),
    "phi3": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                 intermediate_size=64, max_position_embeddings=128, original_max_position_embeddings=128,
                 bos_token_id=0, eos_token_id=0, pad_token_id=0),
}


def rope(kind, **kw):
    """rope_parameters (transformers 5) of a scaling type."""
    p = {"rope_type": kind, "rope_theta": kw.pop("theta", 10000.0)}
    p.update(kw)
    return p


# name, model_type, config overrides, options: format (safetensors|bin), dtype, spelling (5|4),
# expect (match|refuse) and the error text a refusal must contain; config_json: keys written into the saved config.json
# (None: removed) before transformers reloads it, config_null: keys written as null; greedy_cached: the greedy reference
# checked on transformers' cache; masked: a reference with positions masked inside the text (masked_target).
VARIANTS = [
    ("gpt2", "gpt2", {}, {}),
    ("gpt2-untied", "gpt2", {"tie_word_embeddings": False}, {}),
    ("gpt2-inverse-layer-idx", "gpt2", {"scale_attn_by_inverse_layer_idx": True}, {}),
    ("gpt2-no-attn-scale", "gpt2", {"scale_attn_weights": False}, {}),
    ("gpt2-gelu-erf", "gpt2", {"activation_function": "gelu"}, {}),
    ("gpt2-bin", "gpt2", {}, {"format": "bin"}),
    ("gpt2-fp16", "gpt2", {}, {"dtype": "float16"}),
    ("gpt2-bf16", "gpt2", {}, {"dtype": "bfloat16"}),
    ("gpt_neo", "gpt_neo", {}, {}),
    ("gpt_neo-all-local", "gpt_neo", {"attention_types": [[["local"], 2]]}, {}),
    ("codegen", "codegen", {}, {}),
    ("codegen-rotary8", "codegen", {"rotary_dim": 8}, {}),
    ("gpt_bigcode-mqa", "gpt_bigcode", {}, {}),
    ("gpt_bigcode-mha", "gpt_bigcode", {"multi_query": False}, {}),
    ("gpt_neox", "gpt_neox", {}, {}),
    ("gpt_neox-full-rotary", "gpt_neox", {"rotary_pct": 1.0}, {}),
    ("gpt_neox-sequential", "gpt_neox", {"use_parallel_residual": False}, {}),
    ("gpt_neox-untied-bias", "gpt_neox", {"attention_bias": False}, {}),
    ("llama-gqa", "llama", {}, {}),
    ("llama-mqa", "llama", {"num_key_value_heads": 1}, {}),
    ("llama-mha-tied", "llama", {"num_key_value_heads": 4, "tie_word_embeddings": True}, {}),
    ("llama-biases", "llama", {"attention_bias": True, "mlp_bias": True}, {}),
    ("llama-theta1e6", "llama", {"rope_parameters": rope("default", theta=1e6)}, {}),
    ("llama-theta1e6-v4", "llama", {"rope_parameters": rope("default", theta=1e6)}, {"spelling": 4}),
    ("llama-linear2", "llama", {"rope_parameters": rope("linear", factor=2.0)}, {}),
    ("llama-linear2-v4", "llama", {"rope_parameters": rope("linear", factor=2.0)}, {"spelling": 4}),
    ("llama-bf16", "llama", {}, {"dtype": "bfloat16"}),
    # dynamic NTK: max_position_embeddings below the texts (48-57 tokens), so scoring and every greedy step
    # rotate with a base of their own length; the context is max_position_embeddings x factor.
    ("llama-dynamic", "llama", {"max_position_embeddings": 20, "rope_parameters": rope("dynamic", factor=4.0)}, {}),
    ("llama-dynamic-within", "llama", {"rope_parameters": rope("dynamic", factor=3.0, theta=5e5)}, {}),
    ("llama-yarn", "llama", {"rope_parameters": rope("yarn", factor=2.0, original_max_position_embeddings=64)}, {}),
    ("llama-yarn-options", "llama", {"rope_parameters": rope("yarn", factor=4.0, original_max_position_embeddings=32,
                                                            attention_factor=1.2, beta_fast=16, beta_slow=2,
                                                            theta=5e5)}, {}),
    ("llama-yarn-mscale-v4", "llama", {"rope_parameters": rope("yarn", factor=4.0, original_max_position_embeddings=32,
                                                              mscale=0.707, mscale_all_dim=1.0)}, {"spelling": 4}),
    ("llama-llama3", "llama", {"rope_parameters": rope("llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                                      original_max_position_embeddings=64)},
     {}),
    ("llama-llama3-v4", "llama", {"rope_parameters": rope("llama3", factor=8.0, low_freq_factor=1.0,
                                                         high_freq_factor=4.0, original_max_position_embeddings=64)},
     {"spelling": 4}),
    ("llama-longrope", "llama", {"rope_parameters": rope("longrope", short_factor=[1.0] * 4, long_factor=[2.0] * 4,
                                                        original_max_position_embeddings=64)}, {}),
    ("llama-rope-unknown", "llama", {"rope_parameters": rope("proportional", factor=2.0)},
     {"expect": "refuse", "error": 'rope_parameters.rope_type = "proportional"'}),
    ("qwen2-yarn", "qwen2", {"rope_parameters": rope("yarn", factor=4.0, original_max_position_embeddings=32)}, {}),
    ("starcoder2-dynamic-v4", "starcoder2", {"max_position_embeddings": 32, "rope_parameters": rope("dynamic", factor=4.0)},
     {"spelling": 4}),
    ("gpt_neox-dynamic-partial", "gpt_neox", {"max_position_embeddings": 24, "rotary_pct": 0.5,
                                              "rope_parameters": rope("dynamic", factor=3.5)}, {}),
    ("llama-dynamic-factor-below-1", "llama", {"rope_parameters": rope("dynamic", factor=0.5)},
     {"expect": "refuse", "error": "a dynamic rope factor must be 1 to 1024"}),
    ("gpt_neox-linear2", "gpt_neox", {"rope_parameters": rope("linear", factor=2.0)}, {}),
    ("qwen2-linear4-v4", "qwen2", {"rope_parameters": rope("linear", factor=4.0, theta=1e6)}, {"spelling": 4}),
    ("gpt_bigcode-inverse-layer-idx", "gpt_bigcode", {"scale_attn_by_inverse_layer_idx": True},
     {"expect": "refuse", "error": "scale_attn_by_inverse_layer_idx = true"}),
    ("qwen2", "qwen2", {}, {}),
    ("qwen2-untied", "qwen2", {"tie_word_embeddings": False}, {}),
    ("qwen2-sliding8", "qwen2", {"use_sliding_window": True, "sliding_window": 8, "max_window_layers": 0}, {}),
    ("starcoder2", "starcoder2", {}, {}),
    ("starcoder2-sliding8", "starcoder2", {"sliding_window": 8}, {}),
    ("starcoder2-nobias", "starcoder2", {"use_bias": False}, {}),
    # qwen3: per-head q/k RMSNorm before rope.
    ("qwen3", "qwen3", {}, {}),
    ("qwen3-tied-mqa", "qwen3", {"tie_word_embeddings": True, "num_key_value_heads": 1}, {}),
    ("qwen3-bias-sliding8", "qwen3", {"attention_bias": True, "use_sliding_window": True, "sliding_window": 8,
                                      "max_window_layers": 1}, {}),
    ("qwen3-headdim16", "qwen3", {"head_dim": 16, "rope_parameters": rope("yarn", factor=4.0, theta=1e6,
                                                                          original_max_position_embeddings=32)}, {}),
    ("qwen3-bf16", "qwen3", {}, {"dtype": "bfloat16"}),
    # mistral: llama with a sliding window on every layer.
    ("mistral", "mistral", {}, {}),
    ("mistral-sliding8", "mistral", {"sliding_window": 8}, {}),
    ("mistral-tied-mha", "mistral", {"num_key_value_heads": 4, "tie_word_embeddings": True, "sliding_window": 4096},
     {}),
    # gemma: x·(1 + w) RMSNorm, √hidden embeddings, GeGLU.
    ("gemma", "gemma", {}, {}),
    ("gemma-untied-gqa", "gemma", {"tie_word_embeddings": False, "num_key_value_heads": 2}, {}),
    ("gemma-bf16", "gemma", {}, {"dtype": "bfloat16"}),
    ("gemma-bidirectional", "gemma", {"use_bidirectional_attention": True},
     {"expect": "refuse", "error": "use_bidirectional_attention = true"}),
    # gemma2: sandwich norms, soft-capping, alternating local/global layers, query_pre_attn_scalar.
    ("gemma2", "gemma2", {}, {}),
    ("gemma2-no-softcap", "gemma2", {"attn_logit_softcapping": None, "final_logit_softcapping": None}, {}),
    ("gemma2-untied-all-global", "gemma2", {"tie_word_embeddings": False, "layer_types": ["full_attention"] * 4},
     {}),
    ("gemma2-fp16", "gemma2", {}, {"dtype": "float16"}),
    # gemma3_text: q/k norms, local layers' own rope base, final soft-capping (attn_logit_softcapping is not
    # applied by transformers 5.17's Gemma 3).
    ("gemma3_text", "gemma3_text", {}, {}),
    ("gemma3_text-linear8-mqa", "gemma3_text",
     {"num_key_value_heads": 1, "final_logit_softcapping": None,
      "rope_parameters": {"full_attention": rope("linear", factor=8.0, theta=1e6),
                          "sliding_attention": rope("default", theta=1e4)}}, {}),
    ("gemma3_text-attn-softcap-unused", "gemma3_text", {"attn_logit_softcapping": 1.0,
                                                        "layer_types": ["sliding_attention", "full_attention"] * 2},
     {}),
    ("gemma3_text-local-yarn", "gemma3_text",
     {"rope_parameters": {"full_attention": rope("default", theta=1e6),
                          "sliding_attention": rope("yarn", factor=2.0, theta=1e4,
                                                    original_max_position_embeddings=64)}},
     {"expect": "refuse", "error": 'rope_parameters.sliding_attention.rope_type = "yarn"'}),
    # phi3: fused qkv and gate_up projections, partial rotary, longrope.
    ("phi3", "phi3", {}, {}),
    ("phi3-partial-gqa-tied", "phi3", {"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                                           "partial_rotary_factor": 0.5},
                                       "num_key_value_heads": 1, "tie_word_embeddings": True}, {}),
    ("phi3-sliding8", "phi3", {"sliding_window": 8}, {}),
    # longrope: original context 32, so the texts (48 and 57 tokens) rotate with the long factors and greedy
    # decoding (at most 31 tokens) with the short ones.
    ("phi3-longrope", "phi3", {"original_max_position_embeddings": 32,
                               "rope_parameters": rope("longrope", short_factor=[1.0, 1.5, 2.0, 1.2],
                                                       long_factor=[3.0, 5.0, 9.0, 17.0],
                                                       original_max_position_embeddings=32)}, {}),
    # original context 20: greedy decoding crosses it (transformers then rotates every position anew).
    ("phi3-longrope-crossing-partial", "phi3",
     {"original_max_position_embeddings": 20,
      "rope_parameters": rope("longrope", short_factor=[1.0, 1.5], long_factor=[4.0, 9.0],
                              original_max_position_embeddings=20, partial_rotary_factor=0.5)}, {}),
    # gptj: codegen's rotary and parallel layout with separate q/k/v and a head with bias.
    ("gptj", "gptj", {}, {}),
    ("gptj-full-rotary-tied", "gptj", {"rotary_dim": 8, "tie_word_embeddings": True}, {}),
    # phi: partial rotary (0.5), parallel attention + MLP, biases, LayerNorm.
    ("phi", "phi", {}, {}),
    ("phi-qk-layernorm-gqa", "phi", {"qk_layernorm": True, "num_key_value_heads": 2,
                                     "rope_parameters": rope("default", partial_rotary_factor=0.25)}, {}),
    # stablelm: partial rotary 0.25, LayerNorm with bias, SwiGLU.
    ("stablelm", "stablelm", {}, {}),
    ("stablelm-parallel-qkv-bias", "stablelm", {"use_parallel_residual": True, "use_qkv_bias": True,
                                                "tie_word_embeddings": True}, {}),
    ("stablelm-qk-layernorm", "stablelm", {"qk_layernorm": True},
     {"expect": "refuse", "error": "qk_layernorm = true"}),
    # granite: embedding, residual and attention multipliers, logits scaling.
    ("granite", "granite", {}, {}),
    ("granite-tied-mqa-bias", "granite", {"tie_word_embeddings": True, "num_key_value_heads": 1,
                                          "attention_bias": True}, {}),
    ("granite-bf16", "granite", {}, {"dtype": "bfloat16"}),
    # olmo2: no input norms, post-attention / post-feedforward norms, q/k norms over the whole projections.
    ("olmo2", "olmo2", {}, {}),
    ("olmo2-mha-tied", "olmo2", {"num_key_value_heads": 4, "tie_word_embeddings": True}, {}),
    ("olmo2-bf16", "olmo2", {}, {"dtype": "bfloat16"}),
    # smollm3: layers without rope.
    ("smollm3", "smollm3", {}, {}),
    ("smollm3-nope-list-untied", "smollm3", {"no_rope_layers": [0, 1, 0, 1], "tie_word_embeddings": False}, {}),
    ("smollm3-sliding", "smollm3", {"use_sliding_window": True, "sliding_window": 8},
     {"expect": "refuse", "error": "use_sliding_window = true"}),
    # olmo3: olmo2 with local layers and a rope per layer type.
    ("olmo3", "olmo3", {}, {}),
    ("olmo3-yarn-global-mqa", "olmo3", {"num_key_value_heads": 1, "rope_parameters": {
        "full_attention": rope("yarn", factor=4.0, theta=500000.0, original_max_position_embeddings=32),
        "sliding_attention": rope("default", theta=10000.0)}}, {}),
    ("olmo3-bf16", "olmo3", {}, {"dtype": "bfloat16"}),
    # seed_oss: llama with q/k/v biases (attention_bias), attention_out_bias, mlp_bias.
    ("seed_oss", "seed_oss", {}, {}),
    ("seed_oss-all-biases-tied", "seed_oss", {"attention_out_bias": True, "mlp_bias": True,
                                              "tie_word_embeddings": True}, {}),
    # cwm: llama with local layers (layer_types).
    ("cwm", "cwm", {}, {}),
    ("cwm-llama3-untied-types", "cwm", {"layer_types": ["sliding_attention", "full_attention"] * 2,
                                        "rope_parameters": rope("llama3", factor=8.0, low_freq_factor=1.0,
                                                                high_freq_factor=4.0,
                                                                original_max_position_embeddings=64)}, {}),
    # exaone4: post-norm layout, per-head q/k norms, rope only on local layers when there is a window.
    ("exaone4", "exaone4", {}, {}),
    ("exaone4-no-window-tied", "exaone4", {"sliding_window": None, "layer_types": ["full_attention"] * 4,
                                           "tie_word_embeddings": True}, {}),
    ("exaone4-bf16", "exaone4", {}, {"dtype": "bfloat16"}),
    # Mixtures of experts: top-1 / top-2, renormalised or not, shared expert on/off, sparse steps and dense layers.
    ("mixtral", "mixtral", {}, {}),
    ("mixtral-top1-8experts", "mixtral", {"num_local_experts": 8, "num_experts_per_tok": 1}, {}),
    ("mixtral-bf16", "mixtral", {}, {"dtype": "bfloat16"}),
    ("qwen2_moe", "qwen2_moe", {}, {}),
    ("qwen2_moe-norm-top3-step2", "qwen2_moe", {"num_experts": 6, "num_experts_per_tok": 3, "norm_topk_prob": True,
                                               "decoder_sparse_step": 2, "mlp_only_layers": []}, {}),
    ("qwen2_moe-top1-all-sparse", "qwen2_moe", {"num_experts_per_tok": 1, "mlp_only_layers": []}, {}),
    ("qwen3_moe", "qwen3_moe", {}, {}),
    ("qwen3_moe-norm-topk", "qwen3_moe", {"norm_topk_prob": True, "num_experts": 8, "num_experts_per_tok": 3}, {}),
    ("qwen3_moe-dense-first-top1", "qwen3_moe", {"mlp_only_layers": [0], "num_experts_per_tok": 1}, {}),
    # DeepSeek: q_lora_rank null / set, greedy / group-limited / grouped sigmoid routing, shared experts 0 to 2,
    # dense first layer or none, interleaved / NeoX rope, yarn with its softmax-scale correction (mscale_all_dim).
    ("deepseek_v2", "deepseek_v2", {}, {}),
    ("deepseek_v2-qlora-grouped-biases", "deepseek_v2",
     {"q_lora_rank": 12, "topk_method": "group_limited_greedy", "n_routed_experts": 8, "num_experts_per_tok": 3,
      "n_group": 4, "topk_group": 2, "n_shared_experts": 2, "first_k_dense_replace": 0, "routed_scaling_factor": 1.5,
      "attention_bias": True, "mlp_bias": True}, {}),
    ("deepseek_v2-yarn-top1", "deepseek_v2",
     {"num_experts_per_tok": 1, "rope_parameters": rope("yarn", factor=4.0, mscale=0.707, mscale_all_dim=0.707,
                                                        original_max_position_embeddings=32)}, {}),
    ("deepseek_v2-norm-topk", "deepseek_v2", {"norm_topk_prob": True},
     {"expect": "refuse", "error": "norm_topk_prob = true"}),
    ("deepseek_v3", "deepseek_v3", {}, {}),
    ("deepseek_v3-halves-qproj-top1", "deepseek_v3",
     {"rope_interleave": False, "q_lora_rank": None, "norm_topk_prob": False, "n_routed_experts": 4, "n_group": 2,
      "topk_group": 1, "num_experts_per_tok": 1, "n_shared_experts": 2, "first_k_dense_replace": 0}, {}),
    ("deepseek_v3-yarn-noshared", "deepseek_v3",
     {"n_shared_experts": 0, "num_experts_per_tok": 3, "rope_parameters": rope(
         "yarn", factor=4.0, mscale=1.0, mscale_all_dim=1.0, original_max_position_embeddings=32)}, {}),
    ("deepseek_v3-bf16", "deepseek_v3", {}, {"dtype": "bfloat16"}),
    # mellum: local/global layers with a rope per layer type, dense and sparse MLPs, q/k norms.
    ("mellum", "mellum", {}, {}),
    ("mellum-global-top1-bias-8experts", "mellum",
     {"layer_types": ["full_attention"] * 4, "mlp_layer_types": ["sparse"] * 4, "num_experts": 8,
      "num_experts_per_tok": 1, "attention_bias": True, "norm_topk_prob": False}, {}),
    ("mellum-yarn-tied-top3", "mellum",
     {"num_experts_per_tok": 3, "tie_word_embeddings": True, "mlp_layer_types": ["sparse", "dense"] * 2,
      "rope_parameters": {"full_attention": rope("yarn", factor=4.0, theta=500000.0,
                                                 original_max_position_embeddings=32),
                          "sliding_attention": rope("default", theta=10000.0)}}, {}),
    ("mellum-bf16", "mellum", {}, {"dtype": "bfloat16"}),
    ("mellum-partial-rotary", "mellum",
     {"rope_parameters": {"full_attention": rope("default", theta=500000.0, partial_rotary_factor=0.5),
                          "sliding_attention": rope("default", theta=10000.0)}},
     {"expect": "refuse", "error": "rope_parameters.full_attention.partial_rotary_factor = 0.5"}),
    # gpt_oss: sinks, clamped SwiGLU experts (the gate_up weights scaled so that the clamp at 7 bites), top-k then
    # softmax routing with a bias, alternating local layers; MXFP4 expert weights (blocks and scales written in place
    # of the float tensors, from weights on the FP4 grid, so the float reference is exact).
    ("gpt_oss", "gpt_oss", {}, {"scale": {"gate_up_proj": 24.0}}),
    ("gpt_oss-top1-8experts-global-default-rope", "gpt_oss",
     {"layer_types": ["full_attention"] * 4, "num_local_experts": 8, "num_experts_per_tok": 1,
      "attention_bias": False, "rope_parameters": rope("default", theta=150000.0)}, {"scale": {"gate_up_proj": 24.0}}),
    ("gpt_oss-unscaled", "gpt_oss", {}, {}),  # tiny-gpt_oss: stable in bfloat16 (the clamp rarely bites)
    ("gpt_oss-mxfp4-top3", "gpt_oss", {"num_experts_per_tok": 3}, {"mxfp4": True}),
    ("gpt_oss-bf16", "gpt_oss", {}, {"dtype": "bfloat16"}),
    ("gpt_oss-swiglu-limit", "gpt_oss", {"swiglu_limit": 5.0},
     {"expect": "refuse", "error": "swiglu_limit = 5.0"}),
    # olmoe: clip_qkv (small enough to bite on q, k and v), renormalised top-3 of 6, GQA / MHA, biases, tied.
    ("olmoe", "olmoe", {}, {}),
    ("olmoe-clip-norm-top3", "olmoe", {"clip_qkv": 0.3, "norm_topk_prob": True, "num_experts": 6,
                                       "num_experts_per_tok": 3}, {}),
    ("olmoe-mha-tied-bias-top1", "olmoe", {"num_key_value_heads": 4, "tie_word_embeddings": True,
                                           "attention_bias": True, "num_experts_per_tok": 1}, {}),
    ("olmoe-bf16", "olmoe", {}, {"dtype": "bfloat16"}),
    # granitemoe: top-k of the router logits then softmax; granitemoeshared adds an ungated shared expert.
    ("granitemoe", "granitemoe", {}, {}),
    ("granitemoe-top1-8experts-tied-mqa", "granitemoe", {"num_local_experts": 8, "num_experts_per_tok": 1,
                                                         "tie_word_embeddings": True, "num_key_value_heads": 1}, {}),
    ("granitemoe-bf16", "granitemoe", {}, {"dtype": "bfloat16"}),
    ("granitemoeshared", "granitemoeshared", {}, {}),
    ("granitemoeshared-none-top3-bias", "granitemoeshared", {"shared_intermediate_size": 0, "num_experts_per_tok": 3,
                                                             "attention_bias": True}, {}),
    # arcee: llama with an ungated relu2 MLP (or another hidden_act).
    ("arcee", "arcee", {}, {}),
    ("arcee-biases-tied-mqa", "arcee", {"attention_bias": True, "mlp_bias": True, "tie_word_embeddings": True,
                                        "num_key_value_heads": 1}, {}),
    ("arcee-silu-yarn", "arcee", {"hidden_act": "silu", "rope_parameters": rope(
        "yarn", factor=4.0, original_max_position_embeddings=32)}, {}),
    # glm4: post-attention / post-MLP norms, interleaved partial rope, q/k/v biases.
    ("glm4", "glm4", {}, {}),
    ("glm4-full-rotary-nobias-tied-mha", "glm4", {"rope_parameters": rope("default", partial_rotary_factor=1.0),
                                                  "attention_bias": False, "tie_word_embeddings": True,
                                                  "num_key_value_heads": 4}, {}),
    ("glm4-bf16", "glm4", {}, {"dtype": "bfloat16"}),
    # ernie4_5: interleaved rope in float32, use_bias everywhere, tied by default.
    ("ernie4_5", "ernie4_5", {}, {}),
    ("ernie4_5-bias-untied-mha", "ernie4_5", {"use_bias": True, "tie_word_embeddings": False,
                                              "num_key_value_heads": 4}, {}),
    ("ernie4_5-bf16-linear", "ernie4_5", {"rope_parameters": rope("linear", factor=2.0, theta=500000.0)},
     {"dtype": "bfloat16"}),
    # apertus: xIELU with its learned parameters, or another ungated hidden_act.
    ("apertus", "apertus", {}, {}),
    ("apertus-relu2-bias-tied-mqa", "apertus", {"hidden_act": "relu2", "attention_bias": True,
                                                "tie_word_embeddings": True, "num_key_value_heads": 1,
                                                "rope_parameters": rope("default", theta=1e6)}, {}),
    ("apertus-bf16", "apertus", {}, {"dtype": "bfloat16"}),
    # hunyuan: q/k norms after rope, NTK-alpha rope (rope type dynamic with alpha: one fixed base).
    ("hunyuan_v1_dense", "hunyuan_v1_dense", {}, {}),
    ("hunyuan_v1_dense-alpha-bias-tied-mqa", "hunyuan_v1_dense",
     {"rope_parameters": rope("dynamic", alpha=1000.0, factor=1.0), "attention_bias": True,
      "tie_word_embeddings": True, "num_key_value_heads": 1}, {}),
    ("hunyuan_v1_moe", "hunyuan_v1_moe", {}, {}),
    ("hunyuan_v1_moe-alpha-top1-8experts", "hunyuan_v1_moe",
     {"rope_parameters": rope("dynamic", alpha=50.0, factor=1.0), "num_experts": 8, "moe_topk": 1}, {}),
    ("hunyuan_v1_moe-topk-per-layer", "hunyuan_v1_moe", {"moe_topk": [1, 2, 2]},
     {"expect": "refuse", "error": "moe_topk = [1,2,2]"}),
    # Hybrids: gated DeltaNet layers beside gated attention; a text longer than one chunk (64 positions) and a greedy
    # prompt of 70 (prefill across a chunk boundary, then the recurrent steps on the cache).
    ("qwen3_next", "qwen3_next", {}, {"long_text": True}),
    ("qwen3_next-dense-tied-alternating", "qwen3_next",
     {"num_experts": 0, "tie_word_embeddings": True, "linear_num_key_heads": 4, "linear_conv_kernel_dim": 3,
      "layer_types": ["linear_attention", "full_attention"] * 2,
      "rope_parameters": rope("default", theta=5000.0, partial_rotary_factor=0.5)}, {"long_text": True}),
    ("qwen3_next-norm-off-step2-bias", "qwen3_next",
     {"norm_topk_prob": False, "decoder_sparse_step": 2, "mlp_only_layers": [], "attention_bias": True,
      "full_attention_interval": 3, "layer_types": None, "linear_value_head_dim": 6}, {"long_text": True}),
    ("qwen3_next-bf16", "qwen3_next", {}, {"dtype": "bfloat16", "long_text": True}),
    ("qwen3_5_text", "qwen3_5_text", {}, {"long_text": True}),
    ("qwen3_5_text-tied-alternating", "qwen3_5_text",
     {"tie_word_embeddings": True, "linear_num_key_heads": 4, "layer_types": ["full_attention", "linear_attention"] * 2},
     {"long_text": True}),
    ("qwen3_5_moe_text", "qwen3_5_moe_text", {}, {"long_text": True}),
    ("qwen3_5_moe_text-top1-interval2", "qwen3_5_moe_text",
     {"num_experts_per_tok": 1, "layer_types": ["linear_attention", "full_attention"] * 2}, {"long_text": True}),
    # Mamba-2 hybrids: texts across several SSD chunks (8 or 16 positions) and conv windows; the long text's greedy
    # prompt of 70 prefills across chunks before the recurrent steps on the cache.
    ("granitemoehybrid", "granitemoehybrid", {}, {"long_text": True}),
    ("granitemoehybrid-dense-nope-bias-clamp", "granitemoehybrid",
     {"num_local_experts": 0, "position_embedding_type": None, "mamba_n_groups": 1, "mamba_d_head": 8,
      "mamba_n_heads": 8, "mamba_d_conv": 3, "mamba_conv_bias": False, "mamba_proj_bias": True,
      "time_step_limit": (0.05, 1.5), "mamba_chunk_size": 16, "tie_word_embeddings": True, "attention_bias": True,
      "layer_types": ["attention", "mamba", "mamba", "attention"], "num_hidden_layers": 4}, {"long_text": True}),
    ("granitemoehybrid-top1-gelu-rope-theta", "granitemoehybrid",
     {"num_experts_per_tok": 1, "hidden_act": "gelu", "shared_intermediate_size": 0, "mamba_n_groups": 4,
      "rope_parameters": rope("default", theta=500.0)}, {}),
    ("granitemoehybrid-bf16", "granitemoehybrid", {}, {"dtype": "bfloat16", "long_text": True}),
    ("granitemoehybrid-position-alibi", "granitemoehybrid", {"position_embedding_type": "alibi"},
     {"expect": "refuse", "error": "position_embedding_type = \"alibi\""}),
    ("nemotron_h", "nemotron_h", {}, {"long_text": True}),
    ("nemotron_h-groups4-bias-dtmin-mqa", "nemotron_h",
     {"layers_block_type": ["linear_attention", "linear_attention", "full_attention", "mlp"], "n_groups": 4,
      "use_bias": True, "use_conv_bias": False, "time_step_min": 0.3, "conv_kernel": 3, "chunk_size": 16,
      "mlp_hidden_act": "silu", "mlp_bias": True, "num_key_value_heads": 1}, {"long_text": True}),
    ("nemotron_h-moe-grouped-top3-scaled", "nemotron_h",
     {"hybrid_override_pattern": "ME*E", "n_routed_experts": 8, "n_group": 2, "topk_group": 1, "num_experts_per_tok": 3,
      "norm_topk_prob": False, "routed_scaling_factor": 2.5, "mlp_bias": True, "mamba_hidden_act": "gelu"}, {}),
    ("nemotron_h-bf16", "nemotron_h", {}, {"dtype": "bfloat16", "long_text": True}),
    ("nemotron_h-latent", "nemotron_h", {"moe_latent_size": 16},
     {"expect": "refuse", "error": "moe_latent_size = 16"}),
    ("qwen3_next-layer-type", "qwen3_next", {"layer_types": ["linear_attention"] * 3 + ["sliding_attention"]},
     {"expect": "refuse", "error": "layer_types = \"sliding_attention\""}),
    # LFM2: gated short convolutions beside attention; texts and greedy prompts far longer than conv_L_cache, the
    # greedy reference decoded on transformers' cache (conv states), checked against its uncached decoding.
    ("lfm2", "lfm2", {}, {"long_text": True, "greedy_cached": True, "masked": True}),
    # full_attn_idxs without layer_types, conv_bias, conv_L_cache 4, the original spellings tie_embedding (false, over
    # tie_word_embeddings true) and block_ff_dim (over intermediate_size), no width adjustment, linear rope.
    ("lfm2-idxs-bias-untied-spellings", "lfm2",
     {"layer_types": None, "full_attn_idxs": [0, 2], "conv_bias": True, "conv_L_cache": 4, "tie_word_embeddings": False,
      "block_auto_adjust_ff_dim": False, "intermediate_size": 40, "norm_eps": 1e-3,
      "rope_parameters": rope("linear", theta=5000.0, factor=2.0)},
     {"long_text": True, "greedy_cached": True, "masked": True,
      "config_json": {"tie_embedding": False, "tie_word_embeddings": True, "block_ff_dim": 40, "intermediate_size": 7,
                      "layer_types": None}}),
    # block_ffn_dim_multiplier 1.5 and block_multiple_of 24 (100 -> 66 -> 99 -> 120), head_dim 16 (not hidden/heads),
    # attention first, conv_L_cache 2.
    ("lfm2-multiplier-head-dim", "lfm2",
     {"intermediate_size": 100, "block_ffn_dim_multiplier": 1.5, "block_multiple_of": 24, "head_dim": 16,
      "conv_L_cache": 2, "layer_types": ["full_attention", "conv", "conv", "full_attention"]},
     {"long_text": True, "greedy_cached": True, "masked": True}),
    ("lfm2-bf16", "lfm2", {"intermediate_size": 100}, {"dtype": "bfloat16", "greedy_cached": True, "masked": True}),
    ("lfm2-layer-type", "lfm2", {"layer_types": ["conv", "sliding_attention"] * 2},
     {"expect": "refuse", "error": "layer_types = \"sliding_attention\""}),
    ("lfm2-partial-rotary", "lfm2", {"rope_parameters": rope("default", theta=5000.0, partial_rotary_factor=0.5)},
     {"expect": "refuse", "error": "partial_rotary_factor = 0.5"}),
    # a null multiplier (Lfm2MLP would skip it, Lfm2Config rejects it) written into the saved config.json
    ("lfm2-multiplier-null", "lfm2", {}, {"expect": "refuse", "error": "block_ffn_dim_multiplier = null",
                                          "config_null": ["block_ffn_dim_multiplier"]}),
    ("lfm2_moe", "lfm2_moe", {}, {"long_text": True, "greedy_cached": True, "masked": True}),
    # transformers 5.17 builds no lfm2_moe without layer_types (it reads no full_attn_idxs for it)
    ("lfm2_moe-no-layer-types", "lfm2_moe", {"full_attn_idxs": [1, 3]},
     {"expect": "refuse", "error": "layer_types is missing", "config_json": {"layer_types": None}}),
    # no expert bias, no renormalisation, routed_scaling_factor 2.5, every layer sparse, conv_bias, untied, top-1 of 4.
    ("lfm2_moe-nobias-nonorm-scaled", "lfm2_moe",
     {"use_expert_bias": False, "norm_topk_prob": False, "routed_scaling_factor": 2.5, "num_dense_layers": 0,
      "conv_bias": True, "tie_word_embeddings": False, "num_experts_per_tok": 1, "conv_L_cache": 2,
      "layer_types": ["full_attention", "conv", "conv", "conv"]},
     {"long_text": True, "greedy_cached": True, "masked": True}),
    # issue 58, the attention-only wave. flex_olmo: olmo2's layout with olmoe's router.
    ("flex_olmo", "flex_olmo", {}, {}),
    ("flex_olmo-norm-top3-bias-tied-mha", "flex_olmo", {"norm_topk_prob": True, "num_experts": 6,
                                                        "num_experts_per_tok": 3, "attention_bias": True,
                                                        "tie_word_embeddings": True, "num_key_value_heads": 4}, {}),
    # ernie4_5_moe: softmax scores, the choice biased; sparse layers by start / end index and interval.
    ("ernie4_5_moe", "ernie4_5_moe", {}, {}),
    ("ernie4_5_moe-bias-noshared-top3-end1-untied", "ernie4_5_moe",
     {"use_bias": True, "moe_num_shared_experts": 0, "moe_num_experts": 6, "moe_k": 3, "moe_layer_start_index": 0,
      "moe_layer_end_index": 1, "tie_word_embeddings": False}, {}),
    ("ernie4_5_moe-interval2-shared2-bf16", "ernie4_5_moe",
     {"moe_layer_start_index": 0, "moe_layer_interval": 2, "moe_num_shared_experts": 2}, {"dtype": "bfloat16"}),
    # glm4_moe: grouped sigmoid routing with its correction bias, partial rope, optional per-head q/k norms.
    ("glm4_moe", "glm4_moe", {}, {}),
    ("glm4_moe-qknorm-bias-full-rotary-noshared-top3", "glm4_moe",
     {"use_qk_norm": True, "attention_bias": True, "n_shared_experts": 0, "first_k_dense_replace": 0,
      "norm_topk_prob": False, "n_group": 1, "topk_group": 1, "num_experts_per_tok": 3,
      "rope_parameters": rope("default", partial_rotary_factor=1.0)}, {}),
    ("glm4_moe-bf16", "glm4_moe", {}, {"dtype": "bfloat16"}),
    # dots1: per-head q/k norms, local layers from max_window_layers on (or by layer_types), grouped sigmoid routing.
    ("dots1", "dots1", {}, {}),
    ("dots1-groups-norm-scaled-alternating-bias", "dots1",
     {"n_routed_experts": 8, "n_group": 4, "topk_group": 2, "norm_topk_prob": True, "routed_scaling_factor": 2.0,
      "layer_types": ["sliding_attention", "full_attention"] * 2, "attention_bias": True, "n_shared_experts": 2,
      "first_k_dense_replace": 0}, {}),
    # minimax_m2: sigmoid scores with a biased choice, renormalised; full q/k norms, partial rope.
    ("minimax_m2", "minimax_m2", {}, {}),
    ("minimax_m2-top3-8experts-full-rotary-tied-mha", "minimax_m2",
     {"num_local_experts": 8, "num_experts_per_tok": 3, "tie_word_embeddings": True, "num_key_value_heads": 4,
      "rope_parameters": rope("default", theta=50000.0)}, {}),
    ("minimax_m2-bf16", "minimax_m2", {}, {"dtype": "bfloat16"}),
    ("minimax_m2-rotary-dim", "minimax_m2", {"rotary_dim": 8},
     {"expect": "refuse", "error": "rotary_dim = 8"}),
    # cohere2: parallel block on one LayerNorm, interleaved rope on local layers only, logit_scale.
    ("cohere2", "cohere2", {}, {}),
    ("cohere2-pattern2-bias-untied-mha", "cohere2",
     {"sliding_window_pattern": 2, "attention_bias": True, "tie_word_embeddings": False, "num_key_value_heads": 4,
      "logit_scale": 0.3, "rope_parameters": rope("default", theta=50000.0)}, {}),
    # ministral3: the llama 4 query scale beyond original_max_position_embeddings.
    ("ministral3", "ministral3", {}, {}),
    ("ministral3-window-default-rope-beta-tied", "ministral3",
     {"sliding_window": 8, "tie_word_embeddings": True,
      "rope_parameters": rope("default", theta=50000.0, original_max_position_embeddings=16,
                              llama_4_scaling_beta=0.5)}, {}),
    ("ministral3-no-beta", "ministral3", {"rope_parameters": rope("default", original_max_position_embeddings=16)},
     {"expect": "refuse", "error": "llama_4_scaling_beta"}),
    # phimoe: the sparsemixer with a wide jitter band (both softmaxes over several logits), longrope as phimoe runs it
    # (short factors, one mscale), biases, window.
    ("phimoe", "phimoe", {}, {}),
    ("phimoe-jitter-longrope-bias-window-8experts", "phimoe",
     {"router_jitter_noise": 0.5, "num_local_experts": 8, "attention_bias": True, "lm_head_bias": True,
      "sliding_window": 8, "original_max_position_embeddings": 32,
      "rope_parameters": rope("longrope", short_factor=[1.0, 1.5, 2.0, 1.2], long_factor=[3.0, 5.0, 9.0, 17.0],
                              short_mscale=1.2, long_mscale=1.2, original_max_position_embeddings=32)}, {}),
    ("phimoe-bf16", "phimoe", {"router_jitter_noise": 0.5}, {"dtype": "bfloat16"}),
    ("phimoe-top1", "phimoe", {"num_experts_per_tok": 1}, {"expect": "refuse", "error": "num_experts_per_tok = 1"}),
    ("phimoe-two-mscales", "phimoe",
     {"original_max_position_embeddings": 32,
      "rope_parameters": rope("longrope", short_factor=[1.0, 1.5, 2.0, 1.2], long_factor=[3.0, 5.0, 9.0, 17.0],
                              short_mscale=1.2, long_mscale=1.4, original_max_position_embeddings=32)},
     {"expect": "refuse", "error": "long_mscale = 1.4"}),
    # transformers 4 spelling with the legacy type name "su", which Phi3Config reads as longrope.
    ("phi3-longrope-su-v4", "phi3", {"original_max_position_embeddings": 32,
                                     "rope_parameters": rope("longrope", short_factor=[1.0, 1.5, 2.0, 1.2],
                                                             long_factor=[3.0, 5.0, 9.0, 17.0])},
     {"spelling": 4, "v4_rope_type": "su"}),
    ("phi3-longrope-short-factor-length", "phi3",
     {"original_max_position_embeddings": 32,
      "rope_parameters": rope("longrope", short_factor=[1.0, 1.5, 2.0, 1.2], long_factor=[3.0, 5.0, 9.0, 17.0])},
     {"expect": "refuse", "drop_factor": "long_factor",
      "error": "rope_parameters.long_factor must list 4 numbers"}),
]


def to_v4_spelling(config_path, rope_type=None):
    """Rewrites a transformers 5 config.json as transformers 4 wrote it: rope_theta and rope_scaling at the top
    (rope_type: the type name to write, e.g. phi3's legacy "su")."""
    cfg = json.load(open(config_path))
    params = cfg.pop("rope_parameters", None)
    if params:
        params = dict(params)
        cfg["rope_theta"] = params.pop("rope_theta", 10000.0)
        kind = rope_type or params.pop("rope_type", "default")
        params.pop("rope_type", None)
        if kind != "default":
            params["type"] = kind  # 4.x wrote "type" (later also "rope_type")
            cfg["rope_scaling"] = params
    json.dump(cfg, open(config_path, "w"), indent=1)


def greedy(model, prompt):
    ids = torch.tensor([prompt])
    with torch.no_grad():
        for _ in range(GREEDY_NEW):
            nxt = model(ids).logits[0, -1].argmax().item()
            ids = torch.cat([ids, torch.tensor([[nxt]])], 1)
    return ids[0].tolist()


def dynamic_rope(model):
    """The rotary modules with transformers' dynamic NTK rope (they keep the longest length seen so far)."""
    return [m for m in model.modules()
            if hasattr(m, "original_inv_freq") and "dynamic" in str(getattr(m, "rope_type", ""))]


def fresh_rope(model):
    """Puts dynamic-NTK rotary modules back in a fresh model's state, so that every reference call is that of a
    fresh model (AsC-Viz scores each text as one; docs/architectures.md)."""
    for m in dynamic_rope(model):
        m.register_buffer("inv_freq", m.original_inv_freq.clone(), persistent=False)
        m.max_seq_len_cached = m.original_max_seq_len


def greedy_cached(model, prompt):
    """Greedy decoding as transformers' generate runs it: one prefill, then one position a step on the KV cache
    (the cached keys keep the rotation of their step; dynamic NTK rotates each new position by the length so far)."""
    fresh_rope(model)
    out = list(prompt)
    with torch.no_grad():
        r = model(torch.tensor([prompt]), use_cache=True)
        for _ in range(GREEDY_NEW):
            nxt = r.logits[0, -1].argmax().item()
            out.append(nxt)
            r = model(torch.tensor([[nxt]]), past_key_values=r.past_key_values, use_cache=True)
    return out


def greedy_ids(model, prompt, opts):
    """The greedy reference: decoded on transformers' cache for dynamic NTK rope and where opts "greedy_cached" asks
    (the recurrent layers' states: then equal to the uncached decoding, or the case is not made), else uncached."""
    if dynamic_rope(model):
        return greedy_cached(model, prompt)
    plain = greedy(model, prompt)
    if opts.get("greedy_cached"):
        cached = greedy_cached(model, prompt)
        assert cached == plain, f"transformers' cached greedy {cached} differs from its uncached {plain}"
    return plain


def masked_target(model, ids):
    """Padding inside a text as transformers masks it: log P of the last four tokens with three earlier positions'
    attention_mask 0 (hidden as attention keys; the recurrent layers' inputs there zeroed), and without the mask."""
    n = len(ids)
    positions = [1, n // 3, n // 2]
    begin = n - 4

    def logprob(mask):
        with torch.no_grad():
            lg = model(torch.tensor([ids]), attention_mask=mask).logits[0].float()
        lp = torch.log_softmax(lg, -1)
        return sum(lp[i - 1, ids[i]].item() for i in range(begin, n))
    mask = torch.ones(1, n, dtype=torch.long)
    mask[0, positions] = 0
    fresh_rope(model)
    masked = logprob(mask)
    fresh_rope(model)
    return {"positions": positions, "begin": begin, "end": n, "logprob": masked,
            "clean": logprob(torch.ones(1, n, dtype=torch.long))}


def final_norm(model):
    """The final norm of a causal LM (gpt2/gpt_neo/codegen/gpt_bigcode: ln_f, gpt_neox: final_layer_norm,
    phi: final_layernorm, llama/qwen2/qwen3/mistral/gemma*/phi3/granite/olmo2/smollm3/stablelm/starcoder2:
    norm, nemotron_h: norm_f)."""
    base = model.base_model
    for name in ("ln_f", "final_layer_norm", "final_layernorm", "norm", "norm_f", "embedding_norm"):  # lfm2: embedding_norm
        if hasattr(base, name):
            return getattr(base, name)
    raise RuntimeError(f"no final norm found in {type(model).__name__}")


def head_logits(model, h):
    """The LM head of normed hidden states, with the family's logits scaling (granite) and final-logit
    soft-capping (gemma2/gemma3), as the CausalLM's forward applies them."""
    lg = model.get_output_embeddings()(h)
    scaling = getattr(model.config, "logits_scaling", None)  # granite
    if scaling is not None:
        lg = lg / scaling
    scale = getattr(model.config, "logit_scale", None)  # cohere2
    if scale is not None:
        lg = lg * scale
    cap = getattr(model.config, "final_logit_softcapping", None)
    if cap is not None:
        lg = torch.tanh(lg / cap) * cap
    return lg.float()


def router_choices(model, ids):
    """The experts each token is routed to, per mixture-of-experts layer, as transformers' routers return them
    (a forward hook on every *TopKRouter: (logits, top-k weights, top-k indices)): [{"layer", "ids": [token][k],
    "probs": [token][k]}] in layer order; [] for a dense model."""
    seen, hooks = {}, []
    for name, module in model.named_modules():
        # mixtral's TopKRouter, deepseek's TopkRouter, hunyuan_v1_moe's HunYuanMoEV1Gate
        if type(module).__name__.lower().endswith("topkrouter") or type(module).__name__ == "HunYuanMoEV1Gate":
            layer = int(name.split("layers.")[1].split(".")[0])

            def hook(_m, _inp, out, layer=layer):
                # (logits, weights, ids); granitemoe's routers return (ids, weights, logits)
                ids = out[0] if not out[0].is_floating_point() else out[2]
                seen[layer] = (ids.tolist(), out[1].float().tolist())
            hooks.append(module.register_forward_hook(hook))
    with torch.no_grad():
        model(torch.tensor([ids]))
    for h in hooks:
        h.remove()
    return [{"layer": l, "ids": seen[l][0], "probs": seen[l][1]} for l in sorted(seen)]


def expert_ablated_ntp(model, ids, experts):
    """method.md 14.1's expert ablation in transformers: NtP with the router's choice of `experts` [(layer, expert)]
    masked, i.e. a forward hook on each *TopKRouter that sets those experts' logits to -inf and redoes the router's
    own softmax, top k and renormalisation (Mixtral always renormalises and keeps float32 weights; Qwen-MoE
    renormalises when norm_topk_prob and casts the weights to the logits' dtype)."""
    hooks = []
    for name, module in model.named_modules():
        if not type(module).__name__.endswith("TopKRouter"):
            continue
        layer = int(name.split("layers.")[1].split(".")[0])
        blocked = [e for l, e in experts if l == layer]
        if not blocked:
            continue

        def hook(m, _inp, out, blocked=blocked):
            if type(m).__name__ == "Lfm2MoeTopKRouter":  # sigmoid scores, the expert bias in the choice
                scores = out[0].sigmoid()
                choice = scores + _inp[1] if m.use_expert_bias else scores.clone()
                choice[:, blocked] = float("-inf")
                idx = torch.topk(choice, m.top_k, -1).indices
                top = scores.gather(1, idx)
                if m.norm_topk_prob:
                    top = top / (top.sum(-1, keepdim=True) + 1e-6)
                return out[0], top * m.routed_scaling_factor, idx
            logits = out[0].clone()
            logits[:, blocked] = float("-inf")
            probs = torch.softmax(logits.float(), -1)
            top, idx = torch.topk(probs, m.top_k, -1)
            if getattr(m, "norm_topk_prob", True):
                top = top / top.sum(-1, keepdim=True)
            if hasattr(m, "norm_topk_prob"):
                top = top.to(logits.dtype)
            return logits, top, idx
        hooks.append(module.register_forward_hook(hook))
    try:
        fresh_rope(model)
        with torch.no_grad():
            probs = torch.softmax(model(torch.tensor([ids])).logits[0].float(), -1)
    finally:
        for h in hooks:
            h.remove()
    return [probs[i, ids[i + 1]].item() for i in range(len(ids) - 1)]


def uncertainty(logits, ids):
    """The per-token uncertainty of docs/method.md §17 recomputed from transformers' logits (float64): the entropy
    -sum p ln p, the top-10 entropy renormalised, p1, the margin p1 - p2 and the rank of the actual token (ties to
    the smaller id), for positions 1.. (the distribution at i - 1 predicting ids[i])."""
    z = logits[:-1].double()
    lp = torch.log_softmax(z, -1)
    p = lp.exp()
    entropy = -(torch.where(p > 0, p * lp, torch.zeros_like(p))).sum(-1)
    top = torch.topk(lp, min(10, lp.shape[-1]), -1).values
    q = torch.log_softmax(top, -1)
    topk_entropy = -(q.exp() * q).sum(-1)
    p1 = top[:, 0].exp()
    margin = p1 - top[:, 1].exp()
    target = torch.tensor(ids[1:]).unsqueeze(1)
    zw = z.gather(1, target)
    before = torch.arange(z.shape[-1]).unsqueeze(0) < target
    rank = 1 + (z > zw).sum(-1) + ((z == zw) & before).sum(-1)
    # The closest other logit to the actual token's: a near-tie that float rounding may flip is not compared.
    gap = (z - zw).abs().scatter(1, target, float("inf")).min(-1).values
    return {"entropy": entropy.tolist(), "topk_entropy": topk_entropy.tolist(), "p1": p1.tolist(),
            "margin": margin.tolist(), "rank": rank.tolist(), "rank_gap": gap.tolist()}


def layer_ntp(model, ids, logits):
    """The layer lens (method.md 13): per predicted position i (1..n-1), NtP of ids[i] from every entry of
    output_hidden_states through the same final norm and head; the last entry is already normed (its logits are
    the model's own), the others are the raw residual stream. Also per position and layer the top-1 id and its
    margin over the second logit (method.md 14.3: the commitment layer; the margin tells near-ties apart)."""
    fresh_rope(model)
    with torch.no_grad():
        hs = model(torch.tensor([ids]), output_hidden_states=True).hidden_states
        norm = final_norm(model)
        per_layer, top1, gap = [], [], []
        for ell, h in enumerate(hs):
            lg = logits if ell == len(hs) - 1 else head_logits(model, norm(h[0]))
            if ell == len(hs) - 1:
                assert torch.allclose(head_logits(model, h[0]), logits, atol=1e-5), "last hidden state is not normed"
            p = torch.softmax(lg, -1)
            per_layer.append([p[i, ids[i + 1]].item() for i in range(len(ids) - 1)])
            two = torch.topk(lg[:-1], 2, -1)
            top1.append(lg[:-1].argmax(-1).tolist())
            gap.append((two.values[:, 0] - two.values[:, 1]).tolist())
    rows = lambda per: [list(col) for col in zip(*per)]
    return rows(per_layer), rows(top1), rows(gap)


OUT_PROJ = re.compile(r"(^|\.)(attn|attention|self_attn)(\.attention)?\.(o_proj|out_proj|c_proj|dense)$")


def out_projections(model):
    """Per decoder layer, its attention's output projection (o_proj, out_proj, c_proj or dense by family); None for
    a layer without attention (a hybrid's gated DeltaNet or short-convolution layers)."""
    base = model.base_model
    layers = next(getattr(base, n) for n in ("h", "layers") if hasattr(base, n))
    found = []
    for layer in layers:
        if (hasattr(layer, "linear_attn") or getattr(layer, "mamba", None) is not None
                or getattr(layer, "is_attention_layer", True) is False):  # gated DeltaNet, Mamba-2, lfm2's conv layers
            found.append(None)
            continue
        if hasattr(layer, "mixer") and hasattr(layer, "block_type"):  # nemotron_h: one mixer per block
            found.append(layer.mixer.o_proj if layer.block_type == "full_attention" else None)
            continue
        hits = [m for n, m in layer.named_modules() if OUT_PROJ.search(n)]
        assert len(hits) == 1, f"{type(layer).__name__}: {len(hits)} attention output projections"
        found.append(hits[0])
    return found


def ablated_ntp(model, ids, heads, mode):
    """method.md 14.1 in transformers: NtP with `heads` [(layer, head)] ablated by a forward pre-hook on the output
    projection that replaces the head's slice of its input by zero, or (mode "mean") by the slice's mean over the
    clean pass's positions 0 .. n-2 (the positions that predict a token)."""
    projections = out_projections(model)
    nh = model.config.num_attention_heads
    x = torch.tensor([ids])
    means = {}
    handles = []
    with torch.no_grad():
        if mode == "mean":
            def keep(layer):
                def hook(_module, args):
                    means[layer] = args[0][0, :-1].double().mean(0)
                return hook
            for layer in sorted({l for l, _ in heads}):
                handles.append(projections[layer].register_forward_pre_hook(keep(layer)))
            fresh_rope(model)
            model(x)
            for h in handles:
                h.remove()
            handles = []

        def ablate(layer):
            def hook(_module, args):
                a = args[0].clone()
                hd = a.shape[-1] // nh
                for l, h in heads:
                    if l == layer:
                        sl = slice(h * hd, (h + 1) * hd)
                        a[..., sl] = 0.0 if mode == "zero" else means[layer][sl].to(a.dtype)
                return (a,) + tuple(args[1:])
            return hook
        for layer in sorted({l for l, _ in heads}):
            handles.append(projections[layer].register_forward_pre_hook(ablate(layer)))
        try:
            fresh_rope(model)
            probs = torch.softmax(model(x).logits[0].float(), -1)
        finally:
            for h in handles:
                h.remove()
    return [probs[i, ids[i + 1]].item() for i in range(len(ids) - 1)]


FP4 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def mxfp4_grid(rows, k, gen):
    """Random MXFP4 weights [*rows, k]: per group of 32 along k an exponent (scale byte 121..124 = 2^-6..2^-3) and
    32 FP4 nibbles. Returns (blocks uint8 [*rows, k/32, 16] with the even element in the low nibble, scales uint8
    [*rows, k/32], the float32 values)."""
    g = k // 32
    nib = torch.randint(0, 16, (*rows, g, 32), generator=gen)
    scales = torch.randint(121, 125, (*rows, g), generator=gen)
    values = torch.tensor(FP4)[nib] * torch.pow(2.0, (scales - 127).float()).unsqueeze(-1)
    blocks = (nib[..., 0::2] | (nib[..., 1::2] << 4)).to(torch.uint8)
    return blocks, scales.to(torch.uint8), values.reshape(*rows, k)


def mxfp4_experts(model):
    """Puts every gpt_oss expert weight on the MXFP4 grid; returns {tensor name: (blocks, scales)} to write in place
    of gate_up_proj ([E, H, 2I], quantised along H per output row) and down_proj ([E, I, H], along I)."""
    gen = torch.Generator().manual_seed(7)
    packed = {}
    for name, module in model.named_modules():
        if type(module).__name__ != "GptOssExperts":
            continue
        e, h, two_i = module.gate_up_proj.shape
        blocks, scales, values = mxfp4_grid((e, two_i), h, gen)
        module.gate_up_proj.data.copy_(values.transpose(1, 2))
        packed[f"{name}.gate_up_proj"] = (blocks, scales)
        blocks, scales, values = mxfp4_grid((e, h), two_i // 2, gen)
        module.down_proj.data.copy_(values.transpose(1, 2))
        packed[f"{name}.down_proj"] = (blocks, scales)
    return packed


def write_mxfp4(d, packed):
    """Rewrites the saved checkpoint with MXFP4 blocks/scales in place of the float expert tensors, as gpt-oss ships."""
    from safetensors.torch import load_file, save_file
    path = os.path.join(d, "model.safetensors")
    tensors = load_file(path)
    for name, (blocks, scales) in packed.items():
        del tensors[name]
        tensors[name + "_blocks"] = blocks.contiguous()
        tensors[name + "_scales"] = scales.contiguous()
    save_file(tensors, path, metadata={"format": "pt"})
    cfg = json.load(open(os.path.join(d, "config.json")))
    cfg["quantization_config"] = {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn",
                                                                                     "model.layers.*.mlp.router",
                                                                                     "model.embed_tokens", "lm_head"]}
    json.dump(cfg, open(os.path.join(d, "config.json"), "w"), indent=1)


def make(out, tokenizer_json, name, model_type, overrides, opts):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(tokenizer_json)
    kw = dict(BASE[model_type])
    kw.update(overrides)
    kw["vocab_size"] = VOCAB
    config = AutoConfig.for_model(model_type, **kw)
    torch.manual_seed(sum(map(ord, name)))
    model = AutoModelForCausalLM.from_config(config, attn_implementation="eager").eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.25)
        for n, b in model.named_buffers():  # deepseek_v3's (lfm2_moe's) router bias takes part in the choice
            if n.endswith("e_score_correction_bias") or (model_type == "lfm2_moe" and n.endswith(".expert_bias")):
                b.normal_(0.0, 0.25)
        for n, p in model.named_parameters():  # larger weights where a test needs them (gpt_oss's clamp)
            for suffix, factor in opts.get("scale", {}).items():
                if n.endswith(suffix):
                    p.mul_(factor)
        packed = mxfp4_experts(model) if opts.get("mxfp4") else None
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    dtype = opts.get("dtype", "float32")
    saved = model.to(getattr(torch, dtype)) if dtype != "float32" else model
    saved.save_pretrained(d)
    if opts.get("format") == "bin":
        for f in os.listdir(d):
            if f.endswith(".safetensors") or f.endswith(".safetensors.index.json"):
                os.remove(os.path.join(d, f))
        torch.save(model.state_dict(), os.path.join(d, "pytorch_model.bin"))
    if opts.get("spelling") == 4:
        to_v4_spelling(os.path.join(d, "config.json"), opts.get("v4_rope_type"))
    if opts.get("drop_factor"):  # a malformed checkpoint transformers itself would refuse to build
        cfg = json.load(open(os.path.join(d, "config.json")))
        cfg["rope_parameters"][opts["drop_factor"]] = cfg["rope_parameters"][opts["drop_factor"]][:1]
        json.dump(cfg, open(os.path.join(d, "config.json"), "w"), indent=1)
    if opts.get("config_json") or opts.get("config_null"):  # keys as a checkpoint may spell them (None: removed)
        cfg = json.load(open(os.path.join(d, "config.json")))
        for k, v in opts.get("config_json", {}).items():
            if v is None:
                cfg.pop(k, None)
            else:
                cfg[k] = v
        for k in opts.get("config_null", []):  # keys written as null
            cfg[k] = None
        json.dump(cfg, open(os.path.join(d, "config.json"), "w"), indent=1)
    shutil.copy(tokenizer_json, os.path.join(d, "tokenizer.json"))

    expect = opts.get("expect", "match")
    entry = {"name": name, "model_type": model_type, "expect": expect, "error": opts.get("error", "")}
    if expect == "refuse":
        return entry
    # The reference: the saved checkpoint as transformers loads it, computed in float32 (eager attention).
    ref_model = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32, attn_implementation="eager").eval()
    cases = []
    types = getattr(ref_model.config, "layer_types", None) or []
    attention_layers = [i for i in range(ref_model.config.num_hidden_layers)
                        if not types or types[i] not in ("linear_attention", "conv", "mlp", "moe")]
    for text in TEXTS + ([LONG_TEXT] if opts.get("long_text") else []):
        ids = tok.encode(text, add_special_tokens=False).ids
        fresh_rope(ref_model)
        with torch.no_grad():
            outputs = ref_model(torch.tensor([ids]), output_attentions=True)
            logits = outputs.logits[0].float()
        probs = torch.softmax(logits, -1)
        ntp = [probs[i, ids[i + 1]].item() for i in range(len(ids) - 1)]
        top = torch.topk(logits, 5, -1)
        prompt = ids[:LONG_PROMPT if text == LONG_TEXT else GREEDY_PROMPT]
        case_layers, case_top1, case_gap = layer_ntp(ref_model, ids, logits)
        heads = [(attention_layers[0], 1), (attention_layers[-1], 0)]  # attention layers only
        ablation = {"heads": heads, "zero": ablated_ntp(ref_model, ids, heads, "zero"),
                    "mean": ablated_ntp(ref_model, ids, heads, "mean")}
        experts = router_choices(ref_model, ids)
        # Expert ablation's reference: the hook below redoes a softmax-first router (mixtral, qwen2_moe, qwen3_moe);
        # the other families' routers (grouped, sigmoid, top-k-then-softmax) are not redone by it.
        if experts and model_type in ("mixtral", "qwen2_moe", "qwen3_moe", "qwen3_next", "qwen3_5_moe_text",
                                      "lfm2_moe", "flex_olmo"):
            # block the first token's first choice in the first and the last sparse layer
            blocked = sorted({(experts[0]["layer"], experts[0]["ids"][0][0]),
                              (experts[-1]["layer"], experts[-1]["ids"][0][0])})
            ablation["experts"] = [list(e) for e in blocked]
            ablation["experts_ntp"] = expert_ablated_ntp(ref_model, ids, blocked)
        # Per layer (a gated DeltaNet layer has none: []), each query's probabilities over keys 0 .. q.
        attentions = iter(outputs.attentions)
        per_layer = [next(attentions) if i in attention_layers else None
                     for i in range(ref_model.config.num_hidden_layers)]
        cases.append({"text": text, "input_ids": ids, "ntp": ntp, "ntp_layers": case_layers,
                      "top1_layers": case_top1, "top1_gaps": case_gap, "ablation": ablation,
                      "top5_ids": top.indices.tolist(),
                      "top5_logits": top.values.tolist(), "greedy_prompt_ids": prompt,
                      "greedy_ids": greedy_ids(ref_model, prompt, opts),
                      "experts": experts, "uncertainty": uncertainty(logits, ids),
                      "attentions": [[[[round(v, 9) for v in layer[0, h, q, :q + 1].tolist()]
                                       for q in range(len(ids))] for h in range(layer.shape[1])]
                                     if layer is not None else [] for layer in per_layer]})
        if opts.get("masked"):
            cases[-1]["masked"] = masked_target(ref_model, ids)
    json.dump({"model_type": model_type, "transformers": transformers.__version__, "torch": torch.__version__,
               "dtype": dtype, "attn": "eager", "cases": cases}, open(os.path.join(d, "reference.json"), "w"))
    if packed:
        write_mxfp4(d, packed)
    return entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--only", help="comma-separated variant names")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    # The cases depend only on this script, the tokenizer, --only and the reference's versions: a folder made by the
    # same is reused (the test command makes them once for both of its LibTorch builds). The stamp is written last,
    # so a run killed half-way is made again.
    digest = hashlib.sha256()
    for path in (__file__, a.tokenizer):
        with open(path, "rb") as f:
            digest.update(f.read())
    digest.update(f"{a.only}|{transformers.__version__}|{torch.__version__}".encode())
    stamp = digest.hexdigest()
    manifest = os.path.join(a.out, "manifest.json")
    try:
        with open(manifest) as f:
            if json.load(f).get("stamp") == stamp:
                print(f"live cases in {a.out} are up to date (stamp {stamp[:12]})")
                return
    except (OSError, ValueError):
        pass
    if os.path.exists(manifest):
        os.remove(manifest)
    torch.set_num_threads(1)
    only = set(a.only.split(",")) if a.only else None
    entries = []
    for name, model_type, overrides, opts in VARIANTS:
        if only and name not in only:
            continue
        entries.append(make(a.out, a.tokenizer, name, model_type, overrides, opts))
        print(f"made {name} ({entries[-1]['expect']})", flush=True)
    json.dump({"transformers": transformers.__version__, "torch": torch.__version__, "variants": entries,
               "stamp": stamp}, open(manifest, "w"), indent=1)
    print(f"{len(entries)} variants written to {a.out}")


if __name__ == "__main__":
    main()
