"""Live tier (issue 45): a random qwen2 checkpoint saved in bfloat16, scored by ascviz-cli with the weights kept in
bfloat16 (--weights checkpoint, float32 compute) and compared on its first 128 tokens with transformers running the
same checkpoint in bfloat16 and in float32 (weights widened). Fails when the NtP difference exceeds the tolerance that
docs/performance.md ("bf16 weights") states: 1e-5 against transformers float32, 1e-2 against transformers bfloat16
(transformers then rounds every activation to bfloat16). Usage: bf16_weights.py ASCVIZ_CLI TOKENIZER_JSON."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch
import transformers

TOL_FLOAT32 = 1e-5
TOL_BF16 = 1e-2

cli, tokenizer_json = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="ascviz-bf16-live-")
try:
    tok = json.load(open(tokenizer_json))
    vocab = len(tok["model"]["vocab"]) + len(tok.get("added_tokens", []))
    cfg = transformers.Qwen2Config(hidden_size=256, intermediate_size=688, num_hidden_layers=4, num_attention_heads=8,
                                   num_key_value_heads=2, vocab_size=vocab, max_position_embeddings=512,
                                   tie_word_embeddings=False, initializer_range=0.6)
    torch.manual_seed(11)
    model = transformers.Qwen2ForCausalLM(cfg).to(torch.bfloat16).eval()
    folder = os.path.join(work, "model")
    model.save_pretrained(folder, safe_serialization=True)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        src = os.path.join(os.path.dirname(tokenizer_json), f)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(folder, f))
    text_path = os.path.join(work, "text.py")
    text = "".join(f"def f{i}(x, y):\n    return x * {i} + y // {i + 1}\n\n" for i in range(40))
    open(text_path, "w").write(text)
    out = os.path.join(work, "score.json")
    subprocess.run([cli, "score", "--model", folder, "--device", "cpu", "--weights", "checkpoint", "--text-file",
                    text_path, "--out", out], check=True)
    got = json.load(open(out))
    assert got["weights"] == "bfloat16" and got["dtype"] == "float32", (got["weights"], got["dtype"])
    ids = [t["id"] for t in got["tokens"]][:128]
    ntp = [t["ntp"] for t in got["tokens"]][:128]
    assert len(ids) == 128, len(ids)

    # With a BOS the runtime scores after it and the first token has an NtP too.
    bos = [cfg.bos_token_id] if ntp[0] is not None else []
    full = bos + ids

    def hf_ntp(m):
        with torch.no_grad():
            logits = m(torch.tensor([full])).logits[0].float()
        probs = torch.softmax(logits, -1)
        return [probs[i, full[i + 1]].item() for i in range(len(full) - 1)]

    bf16 = hf_ntp(model)
    f32 = hf_ntp(transformers.Qwen2ForCausalLM.from_pretrained(folder, dtype=torch.float32).eval())
    ours = ntp[0 if bos else 1 :]
    d32 = max(abs(a - b) for a, b in zip(ours, f32))
    d16 = max(abs(a - b) for a, b in zip(ours, bf16))
    print(f"NtP range {min(f32):.3g}..{max(f32):.3g}; {len(ours)} NtPs: max |ascviz bf16-kept - transformers float32| = {d32:.3g}, "
          f"max |ascviz bf16-kept - transformers bfloat16| = {d16:.3g}")
    assert d32 <= TOL_FLOAT32, f"{d32} > {TOL_FLOAT32} against transformers float32"
    assert d16 <= TOL_BF16, f"{d16} > {TOL_BF16} against transformers bfloat16"
finally:
    shutil.rmtree(work, ignore_errors=True)
