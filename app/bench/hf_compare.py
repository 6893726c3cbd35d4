#!/usr/bin/env python3
"""AsC-Viz beside Hugging Face transformers on the same work, in one run on one machine.

For each piece of work the script runs `ascviz-bench-model --work ...` as a process (timed whole: start,
model load, tokenization, the work, writing the result) and then gives transformers the same token ids
(timed from `from_pretrained` to the last result; Python's start and imports are not counted), compares
the results (NtP within --tolerance, generated ids equal) and prints the ratio HF time / AsC-Viz time.

  python3 app/bench/hf_compare.py --bench BUILD/app/bench/ascviz-bench-model --model resources/models/ascviz-tiny-code \
      --corpus corpus.jsonl [--limit 100] [--threads 2] [--work score-loop,score-batch8,score-all,generate]

Pieces of work (the texts are the first --limit entries' "code"):
  score-loop    one text per call (a user's loop); HF: model(ids) per text
  score-batch8  eight texts per call in corpus order; HF: a right-padded batch of eight with an attention mask
  score-all     every text in one call (AsC-Viz packs them by length); HF: its padded batches of eight
  generate      greedy continuation of the first --prompt ids of the first --gen-limit texts for --new-tokens
                tokens, EOS not stopping it; HF: model.generate(do_sample=False)
With --peers hf,ct2 (the default when the ctranslate2 package is installed) CTranslate2, the fastest CPU
engine for these models, runs the same ids too: the checkpoint is converted once to a float32 CTranslate2
model (not timed), then Generator load + work is timed; score-loop: score_batch per text, score-batch8 and
score-all: score_batch with max_batch_size 8, generate: generate_batch greedy (sampling_topk 1). Rounds
(--rounds N) repeat every timing and report the median.
The venv with torch, transformers and ctranslate2 is a test-only reference; the product never runs Python.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import statistics
import time


def run_ours(args, work, texts_file, out_file):
    cmd = [args.bench, "--work", work, "--model", args.model, "--texts", texts_file, "--out", out_file,
           "--threads", str(args.threads), "--device", "cpu", "--dtype", "float32",
           "--new-tokens", str(args.new_tokens), "--prompt", str(args.prompt)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    seconds = time.perf_counter() - t0
    with open(out_file, encoding="utf-8") as f:
        return seconds, json.load(f)


def hf_ntp_rows(torch, logits, rows):
    """NtP of every id of each row (None first) from logits [B, T, V]."""
    out = []
    lp = torch.log_softmax(logits.float(), -1)
    for b, ids in enumerate(rows):
        if len(ids) < 2:
            out.append([None] * len(ids))
            continue
        tgt = torch.tensor(ids[1:]).view(-1, 1)
        picked = lp[b, : len(ids) - 1].gather(1, tgt).exp().view(-1).tolist()
        out.append([None] + picked)
    return out


def run_hf(args, work, ids, prompts, torch, AutoModelForCausalLM):
    t0 = time.perf_counter()
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32).eval()
    result = []
    with torch.inference_mode():
        if work == "generate":
            for p in prompts:
                x = torch.tensor([p])
                g = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=args.new_tokens,
                                   min_new_tokens=None, do_sample=False, eos_token_id=None, pad_token_id=0)
                result.append(g[0, len(p):].tolist())
        elif work == "score-loop":
            for s in ids:
                if len(s) < 2:
                    result.append([None] * len(s))
                    continue
                result += hf_ntp_rows(torch, model(torch.tensor([s])).logits, [s])
        else:  # score-batch8 and score-all: HF's padded batches of eight
            for g in range(0, len(ids), 8):
                rows = ids[g: g + 8]
                width = max(1, max(len(r) for r in rows))
                x = torch.zeros((len(rows), width), dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.long)
                for i, r in enumerate(rows):
                    x[i, : len(r)] = torch.tensor(r, dtype=torch.long)
                    mask[i, : len(r)] = 1
                result += hf_ntp_rows(torch, model(input_ids=x, attention_mask=mask).logits, rows)
    return time.perf_counter() - t0, result


def ct2_convert(model_dir, out_dir):
    import ctranslate2
    ctranslate2.converters.TransformersConverter(model_dir).convert(out_dir, quantization="float32", force=True)


def run_ct2(args, work, ids, prompts, ct2_dir, id_to_token):
    """CTranslate2 on the same ids: NtP rows (None first) or generated ids; timed from the Generator's load."""
    import ctranslate2
    t0 = time.perf_counter()
    gen = ctranslate2.Generator(ct2_dir, device="cpu", compute_type="float32", intra_threads=args.threads)
    result = []
    if work == "generate":
        for p in prompts:
            r = gen.generate_batch([[id_to_token(i) for i in p]], max_length=args.new_tokens, sampling_topk=1,
                                   beam_size=1, include_prompt_in_result=False, end_token=[])
            result.append(list(r[0].sequences_ids[0]))
    else:
        size = 1 if work == "score-loop" else 8
        seqs = [[id_to_token(i) for i in s] for s in ids]
        for g in range(0, len(seqs), size if work != "score-all" else len(seqs)):
            chunk = seqs[g: g + (size if work != "score-all" else len(seqs))]
            scored = gen.score_batch(chunk, max_batch_size=size)
            for s, r in zip(chunk, scored, strict=True):
                if len(s) < 2:
                    result.append([None] * len(s))
                else:
                    result.append([None] + [math.exp(x) for x in r.log_probs])
    return time.perf_counter() - t0, result


def compare_ntp(ours, hf):
    worst = 0.0
    for a, b in zip(ours, hf, strict=True):
        for x, y in zip(a, b, strict=True):
            if (x is None) != (y is None):
                return float("inf")
            if x is not None:
                worst = max(worst, abs(x - y))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True, help="the ascviz-bench-model executable")
    ap.add_argument("--model", required=True, help="a Hugging Face checkpoint folder both sides load")
    ap.add_argument("--corpus", required=True, help="JSONL with a \"code\" field per line")
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--work", default="score-loop,score-batch8,score-all,generate")
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("--gen-limit", type=int, default=10)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--json", help="also write the table here")
    ap.add_argument("--ct2-tolerance", type=float, default=1e-4,
                    help="NtP tolerance against CTranslate2 (its own kernels sum in other orders: ~2e-5 seen)")
    ap.add_argument("--peers", default=None, help="hf, ct2 or hf,ct2 (default: hf, and ct2 when installed)")
    ap.add_argument("--rounds", type=int, default=1, help="time every side this many times; report medians")
    args = ap.parse_args()
    if args.peers is None:
        try:
            import ctranslate2  # noqa: F401
            args.peers = "hf,ct2"
        except ImportError:
            args.peers = "hf"
    peers = [p for p in args.peers.split(",") if p]

    if any(p not in ("hf", "ct2") for p in peers):
        sys.exit(f"hf_compare: unknown peer in --peers {args.peers} (hf, ct2)")
    import torch  # imports are not timed (the method)
    import transformers
    from transformers import AutoModelForCausalLM
    transformers.logging.set_verbosity_error()
    torch.set_num_threads(args.threads)

    texts = []
    with open(args.corpus, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                texts.append(json.loads(line)["code"])
            if len(texts) >= args.limit:
                break
    if not texts:
        sys.exit("hf_compare: the corpus has no texts")
    print(f"hf_compare: {len(texts)} texts, {args.threads} threads, torch {torch.__version__}, "
          f"transformers {transformers.__version__}, model {args.model}", flush=True)
    rows, failed = [], False
    with tempfile.TemporaryDirectory(prefix="ascviz-hf-compare-") as tmp:
        texts_file = os.path.join(tmp, "texts.jsonl")
        with open(texts_file, "w", encoding="utf-8") as f:
            for t in texts:
                f.write(json.dumps({"code": t}) + "\n")
        gen_file = os.path.join(tmp, "gen.jsonl")
        with open(gen_file, "w", encoding="utf-8") as f:
            for t in texts[: args.gen_limit]:
                f.write(json.dumps({"code": t}) + "\n")
        ct2_dir, id_to_token = None, None
        if "ct2" in peers:
            import tokenizers
            ct2_dir = os.path.join(tmp, "ct2")
            ct2_convert(args.model, ct2_dir)
            tok = tokenizers.Tokenizer.from_file(os.path.join(args.model, "tokenizer.json"))
            id_to_token = tok.id_to_token
        for work in [w for w in args.work.split(",") if w]:
            src = gen_file if work == "generate" else texts_file
            times = {"ascviz": [], "hf": [], "ct2": []}
            results = {}
            for _ in range(max(1, args.rounds)):
                s_, ours = run_ours(args, work, src, os.path.join(tmp, work + ".json"))
                times["ascviz"].append(s_)
                ids, prompts = (None, ours["prompt"]) if work == "generate" else (ours["ids"], None)
                if "hf" in peers:
                    s_, results["hf"] = run_hf(args, work, ids, prompts, torch, AutoModelForCausalLM)
                    times["hf"].append(s_)
                if "ct2" in peers:
                    s_, results["ct2"] = run_ct2(args, work, ids, prompts, ct2_dir, id_to_token)
                    times["ct2"].append(s_)
            med = {k: statistics.median(v) for k, v in times.items() if v}
            if work == "generate":
                tokens = sum(len(g) for g in ours["generated"])
            else:
                tokens = sum(len(s) for s in ours["ids"])
            row = {"work": work, "tokens": tokens, "ascviz_s": med["ascviz"], "rounds": max(1, args.rounds)}
            line = f"{work:13s} {tokens:7d} {'tokens generated' if work == 'generate' else 'tokens scored':16s} " \
                   f"AsC-Viz {med['ascviz']:7.2f} s ({tokens / med['ascviz']:7.0f} tok/s)"
            for peer in peers:
                name = "HF" if peer == "hf" else "CT2"
                if work == "generate":
                    same = ours["generated"] == results[peer]
                    ok, check = same, "generated ids equal" if same else "GENERATED IDS DIFFER"
                else:
                    err = compare_ntp(ours["ntp"], results[peer])
                    tol = args.tolerance if peer == "hf" else args.ct2_tolerance
                    ok = err <= tol
                    check = f"max |NtP diff| {err:.2e}" + ("" if ok else f" > {tol:g}")
                failed |= not ok
                row[f"{peer}_s"] = med[peer]
                row[f"{peer}_ratio"] = med[peer] / med["ascviz"]
                row[f"{peer}_check"] = check
                line += f"  {name} {med[peer]:7.2f} s ({tokens / med[peer]:7.0f} tok/s) x{med[peer] / med['ascviz']:5.2f} {check}"
            if "hf" in peers:  # the earlier field names, kept for scripts
                row["ratio"], row["check"] = row["hf_ratio"], row["hf_check"]
            rows.append(row)
            print(line, flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"threads": args.threads, "texts": len(texts), "peers": peers, "rows": rows}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
