#!/usr/bin/env python3
"""AsC-Viz on a GPU at real shapes in bfloat16, beside transformers (sdpa) and vLLM, with the share of the card's
bf16 dense FLOP ceiling reached (issue 45).

  python app/bench/gpu_real_shapes.py --build "PyTorch=build-pytorch/app/bench/ascviz-bench-model" \\
      --shapes 0.5B,1.5B,3B,7B [--texts 32] [--tokens 512] [--gen 8] [--new-tokens 64] [--out docs/performance.md]
  python app/bench/gpu_real_shapes.py --build ... --device cpu --dry-run     # every code path, tiny shape, on CPU

Each engine runs in its own process on the same ids (real_shapes.py's byte-token ids), bfloat16 weights and
activations on CUDA (float32 on the CPU dry run, where bf16 matmuls are emulated):
  AsC-Viz    ascviz-bench-model --device cuda --dtype bfloat16 --work score-all | generate; timed as a whole process
             and, from its load_s, without the load
  HF         transformers, attn_implementation="sdpa", padded batches of --hf-batch; timed from from_pretrained
  vLLM       LLM(...).generate with SamplingParams(max_tokens=1, prompt_logprobs=0) for scoring, greedy for
             generation; only where `import vllm` works (else the reason is printed)
FLOPs of a scoring pass: 2 · (matmul parameters: every weight but the input embedding, the head counted once) ·
tokens + the causal attention's 2 · layers · heads · head_dim · T² per text (QK^T and AV over the lower triangle).
The ceiling is looked up by the GPU's name (CEILINGS below; dense bf16 with float32 accumulation, no sparsity);
unknown cards print the fraction as "—". The section between <!-- gpu-real-shapes:begin/end --> of --out is
replaced. The venv is a test-only reference; the product never runs Python.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import real_shapes as rs  # noqa: E402  (same folder: the shapes, the ids, the child timing)

BEGIN, END = "<!-- gpu-real-shapes:begin -->", "<!-- gpu-real-shapes:end -->"
# Dense bf16 tensor-core TFLOP/s (float32 accumulation, no 2:4 sparsity), from the vendors' data sheets.
CEILINGS = [("H200", 989e12), ("H100 SXM", 989e12), ("H100 80GB HBM3", 989e12), ("H100 NVL", 835e12),
            ("H100 PCIe", 756e12), ("H100", 756e12), ("A100", 312e12), ("L40S", 362e12), ("L4", 121e12),
            ("A10G", 70e12), ("A10", 125e12), ("RTX 4090", 165e12), ("RTX 3090", 71e12), ("V100", 125e12)]


def ceiling(name):
    for key, value in CEILINGS:
        if key.lower() in (name or "").lower():
            return value
    return None


def flops(cfg, matmul_params, rows):
    """2 · matmul parameters · tokens + causal attention (QK^T and AV over the lower triangle) per text."""
    layers = cfg["num_hidden_layers"]
    heads = cfg["num_attention_heads"]
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // heads
    dense = 2.0 * matmul_params * sum(len(r) for r in rows)
    attention = sum(2.0 * layers * heads * head_dim * len(r) * len(r) for r in rows)
    return dense + attention


def matmul_parameters(model_dir, cfg):
    """Every weight but the input embedding (the tied head counted once as the head), from the safetensors headers."""
    import struct
    total, embed = 0, 0
    for f in sorted(os.listdir(model_dir)):
        if not f.endswith(".safetensors"):
            continue
        with open(os.path.join(model_dir, f), "rb") as fh:
            n = struct.unpack("<Q", fh.read(8))[0]
            header = json.loads(fh.read(n))
        for name, meta in header.items():
            if name == "__metadata__":
                continue
            count = 1
            for d in meta["shape"]:
                count *= d
            total += count
            if "embed_tokens" in name or name.endswith("wte.weight"):
                embed = count
    return total if cfg.get("tie_word_embeddings") else total - embed


def worker_hf(a, work, rows, prompts):
    import torch
    import transformers
    transformers.logging.set_verbosity_error()
    dev = torch.device(a.device)
    dtype = getattr(torch, a.dtype)
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    t0 = time.perf_counter()
    model = transformers.AutoModelForCausalLM.from_pretrained(a.model, dtype=dtype, attn_implementation="sdpa")
    model = model.to(dev).eval()
    sync()
    load = time.perf_counter() - t0
    result = []
    with torch.inference_mode():
        if work == "generate":
            for p in prompts:
                x = torch.tensor([p], device=dev)
                g = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=a.new_tokens,
                                   do_sample=False, eos_token_id=None, pad_token_id=0)
                result.append(g[0, len(p):].tolist())
        else:
            for g in range(0, len(rows), a.hf_batch):
                batch = rows[g: g + a.hf_batch]
                width = max(len(r) for r in batch)
                x = torch.zeros((len(batch), width), dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for i, r in enumerate(batch):
                    x[i, : len(r)] = torch.tensor(r)
                    mask[i, : len(r)] = 1
                logits = model(input_ids=x.to(dev), attention_mask=mask.to(dev)).logits
                lp = torch.log_softmax(logits.float(), -1)
                for b, ids in enumerate(batch):
                    tgt = torch.tensor(ids[1:], device=dev).view(-1, 1)
                    result.append([None] + lp[b, : len(ids) - 1].gather(1, tgt).exp().view(-1).tolist())
    sync()
    return load, result


def worker_vllm(a, work, rows, prompts):
    import math
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt
    t0 = time.perf_counter()
    llm = LLM(model=a.model, dtype=a.dtype, skip_tokenizer_init=True, enforce_eager=False,
              max_model_len=max(len(r) for r in rows + prompts) + a.new_tokens + 8)
    load = time.perf_counter() - t0
    result = []
    if work == "generate":
        sp = SamplingParams(max_tokens=a.new_tokens, temperature=0.0, ignore_eos=True, detokenize=False)
        for o in llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts], sp):
            result.append(list(o.outputs[0].token_ids))
    else:
        sp = SamplingParams(max_tokens=1, prompt_logprobs=0, detokenize=False)
        for o, ids in zip(llm.generate([TokensPrompt(prompt_token_ids=r) for r in rows], sp), rows, strict=True):
            row = [None]
            for tok, lps in zip(ids[1:], o.prompt_logprobs[1:], strict=True):
                row.append(math.exp(lps[tok].logprob))
            result.append(row)
    return load, result


def run_worker(a):
    with open(a.ids, encoding="utf-8") as f:
        job = json.load(f)
    fn = {"hf": worker_hf, "vllm": worker_vllm}[a.worker]
    t0 = time.perf_counter()
    load, result = fn(a, a.work, job["rows"], job["prompts"])
    with open(a.result, "w", encoding="utf-8") as f:
        json.dump({"load_s": load, "seconds": time.perf_counter() - t0, "result": result}, f)
    return 0


def gpu_name(device):
    if device != "cuda":
        return "CPU (dry run)"
    r = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True)
    return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else "CUDA device"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", choices=("hf", "vllm"), help=argparse.SUPPRESS)
    ap.add_argument("--ids", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    ap.add_argument("--build", action="append", default=[], help="NAME=PATH of a CUDA ascviz-bench-model")
    ap.add_argument("--shapes", default="0.5B,1.5B,3B,7B")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--dtype", default=None, help="bfloat16 on CUDA (default), float32 on the CPU dry run")
    ap.add_argument("--dry-run", action="store_true", help="the tiny shape, a few ids: every code path, any device")
    ap.add_argument("--peers", default="hf,vllm")
    ap.add_argument("--texts", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=512)
    ap.add_argument("--gen", type=int, default=8)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--hf-batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--data", default=None, help="where the checkpoints go (default: a temp folder)")
    ap.add_argument("--out", default=None, help="a Markdown file whose gpu-real-shapes section is written")
    a = ap.parse_args()
    a.dtype = a.dtype or ("bfloat16" if a.device == "cuda" else "float32")
    if a.worker:
        return run_worker(a)
    if not a.build:
        ap.error("--build is needed")
    if a.dry_run:
        a.shapes, a.texts, a.tokens, a.gen, a.new_tokens = "tiny", 2, 40, 1, 4
    peers = [p for p in a.peers.split(",") if p]
    skipped = []
    if "vllm" in peers and rs.lib_version("vllm", "vllm") is None:
        skipped.append("vLLM: `import vllm` is not available in this Python")
        peers.remove("vllm")
    if "vllm" in peers and a.device != "cuda":
        skipped.append("vLLM: CUDA only")
        peers.remove("vllm")
    for s in skipped:
        print(f"gpu_real_shapes: skipped {s}", flush=True)
    card = gpu_name(a.device)
    peak = ceiling(card) if a.device == "cuda" else None
    lines = [f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {card}, {a.dtype}"
             + (" (dry run: the tiny shape on the CPU; no GPU numbers)" if a.dry_run else "") + ".",
             "Skipped: " + "; ".join(skipped) + "." if skipped else ""]
    failed = False
    with tempfile.TemporaryDirectory(prefix="ascviz-gpu-shapes-") as tmp:
        data = a.data or os.path.join(tmp, "data")
        log = open(os.path.join(tmp, "engines.log"), "a", encoding="utf-8")
        for shape in [s for s in a.shapes.split(",") if s]:
            ckpt = os.path.join(data, f"{shape}-bfloat16")
            rs.make_checkpoint(shape, "bfloat16", ckpt, log)
            with open(os.path.join(ckpt, "config.json"), encoding="utf-8") as f:
                cfg = json.load(f)
            rows, prompts = rs.make_rows(a.texts, a.tokens, a.gen, a.prompt, seed=1)
            files = rs.write_inputs(tmp, rows, prompts)
            work_flops = flops(cfg, matmul_parameters(ckpt, cfg), rows)
            gen_tokens = a.gen * a.new_tokens
            lines += ["", f"**{shape}** ({len(rows)} × {a.tokens} tokens scored, {work_flops / 1e12:.2f} TFLOP; "
                      f"{a.gen} × {a.new_tokens} generated)", "",
                      "| engine | score tok/s (process) | score tok/s (after load) | share of bf16 ceiling "
                      "| generate tok/s | load s | max \\|ΔNtP\\| vs HF |",
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
            results, measured = {}, []
            engines = [(f"AsC-Viz {n}", "ascviz", p) for n, p in (b.split("=", 1) for b in a.build)]
            engines += [({"hf": "HF sdpa", "vllm": "vLLM"}[p], p, None) for p in peers]
            for label, kind, binary in engines:
                cells, load = {}, None
                for work in ("score-all", "generate"):
                    out = os.path.join(tmp, "result.json")
                    if os.path.exists(out):
                        os.remove(out)
                    if kind == "ascviz":
                        cmd = [binary, "--work", work, "--model", ckpt, "--out", out, "--threads", str(a.threads),
                               "--texts", files["gen" if work == "generate" else "texts"], "--device", a.device,
                               "--dtype", a.dtype, "--new-tokens", str(a.new_tokens), "--prompt", str(a.prompt)]
                    else:
                        cmd = [sys.executable, os.path.abspath(__file__), "--worker", kind, "--model", ckpt,
                               "--work", work, "--ids", files["job"], "--result", out, "--device", a.device,
                               "--dtype", a.dtype, "--new-tokens", str(a.new_tokens), "--hf-batch", str(a.hf_batch)]
                    wall, _, rc = rs.timed_child(cmd, env=dict(os.environ, OMP_NUM_THREADS=str(a.threads)), log=log)
                    if rc != 0 or not os.path.exists(out):
                        print(f"gpu_real_shapes: {label} {work} failed (exit {rc})", flush=True)
                        failed = True
                        break
                    r = json.load(open(out, encoding="utf-8"))
                    seconds = wall if kind == "ascviz" else r["seconds"]
                    load = r.get("load_s", load)
                    cells[work] = (seconds, seconds - (load or 0.0))
                    results[(label, work)] = r.get("ntp", r.get("generated", r.get("result")))
                    print(f"gpu_real_shapes:   {label:24s} {work:10s} {seconds:8.2f} s", flush=True)
                measured.append((label, cells, load))
            ntok = sum(len(r) for r in rows)
            ref = results.get(("HF sdpa", "score-all"))
            for label, cells, load in measured:  # after every engine, so that HF's NtPs are there to compare
                sc, gen = cells.get("score-all"), cells.get("generate")
                if not (sc and gen):
                    lines.append(f"| {label} | failed | | | | | |")
                    continue
                share = f"{work_flops / sc[1] / peak:.1%}" if peak and sc[1] > 0 else "—"
                mine = results.get((label, "score-all"))
                if label == "HF sdpa":
                    check = "(reference)"
                else:
                    check = f"{rs.max_diff(mine, ref):.1e}" if ref and mine else "—"
                lines.append(f"| {label} | {ntok / sc[0]:.0f} | {ntok / max(sc[1], 1e-9):.0f} | {share} | "
                             f"{gen_tokens / gen[0]:.1f} | {load if load is not None else float('nan'):.2f} | {check} |")
        log.close()
    text = "\n".join(line for line in lines if line is not None)
    print(text)
    if a.out:
        rs.BEGIN, rs.END = BEGIN, END
        rs.write_section(a.out, text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
