#!/usr/bin/env python3
"""AsC-Viz at the shapes of real code models beside every CPU peer, in one command, into docs/performance.md.

  ~/.cache/ascviz/venv-bench/bin/python app/bench/real_shapes.py \\
      --build "system=build/app/bench/ascviz-bench-model" \\
      --build "pytorch=build-pytorch/app/bench/ascviz-bench-model" \\
      --shapes 0.5B,1.5B --out docs/performance.md [--threads 2] [--texts 8] [--tokens 256] [--data DIR]

For each shape, app/bench/make_shapes.py writes a random-weight checkpoint (float32, and bfloat16 for the rows
that keep bf16 weights; the 7B shape in bfloat16 only) under --data, then every engine runs the same token ids
(random ids of the byte tokens 33..126: the dense work is the same for any ids) in its own process:
  AsC-Viz      each --build's ascviz-bench-model --work ...; float32, and bf16 weights (--weights checkpoint on
               the bf16 checkpoint) when the binary knows --weights; timed as a whole process
  HF           transformers, float32 and bfloat16 (eager attention); timed from from_pretrained to the last result
  CT2          CTranslate2, float32, bfloat16 and int8 (ct2-transformers-converter, not timed); timed from the
               Generator's load
  llama.cpp    llama-cpp-python (built from source), GGUF F32 and BF16 from the convert_hf_to_gguf.py of its
               source distribution (--llama-src, not timed); per-token log-probs from logits_all=True; timed
               from Llama(...) to the last result. Skipped with the reason printed when llama_cpp is not importable.
Works: score-loop (one text per call), score-all (all texts in one call: AsC-Viz packs them, HF and CT2 take
batches of 8, llama.cpp one sequence per eval), generate (--gen prompts of --prompt ids, --new-tokens greedy ids,
EOS not stopping). Each cell is tokens/s; the peak RSS is the largest of the engine's processes (wait4's
ru_maxrss), load the median of its load times. NtP: max |NtP - NtP of HF float32| over the score-loop ids.
At 7B (bfloat16 only) HF on a CPU is the NtP reference rather than a speed peer: --hf-tokens 128 --hf-works score-loop
scores the first 128 ids of each text. Runs of one shape at a time are joined with --save / --reuse (one JSON of
shapes), and --table-only writes the tables of a --reuse file without making or running anything.
The section between <!-- real-shapes:begin --> and <!-- real-shapes:end --> of --out is replaced (appended when
absent) with the tables, the date, the CPU, the builds, the peers' versions and ascviz-cli's start time
(--cli). The venv is a test-only reference; the product never runs Python.
"""
import argparse
import datetime
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BEGIN, END = "<!-- real-shapes:begin -->", "<!-- real-shapes:end -->"
WORKS = ("score-loop", "score-all", "generate")
RUN_KEYS = ("texts", "tokens", "gen", "new_tokens", "prompt", "threads", "hf_tokens")  # a shape's workload
DEFAULT_LLAMA_SRC = "/work/benchdata/src/llama_cpp_python-0.3.36/vendor/llama.cpp"


# ---------------------------------------------------------------------------------------------------------------
# Workers: one engine, one work, in a process of its own (python real_shapes.py --worker ...).

def ntp_from_logprobs(rows_lp, rows):
    out = []
    for lp, ids in zip(rows_lp, rows, strict=True):
        out.append([None] + [math.exp(x) for x in lp][: len(ids) - 1])
    return out


def worker_hf(a, work, rows, prompts):
    import torch
    import transformers
    transformers.logging.set_verbosity_error()
    torch.set_num_threads(a.threads)
    dtype = getattr(torch, a.dtype)
    t0 = time.perf_counter()
    model = transformers.AutoModelForCausalLM.from_pretrained(a.model, dtype=dtype,
                                                              attn_implementation="eager").eval()
    load = time.perf_counter() - t0
    result = []

    def ntp(logits, batch):
        lp = torch.log_softmax(logits.float(), -1)
        out = []
        for b, ids in enumerate(batch):
            tgt = torch.tensor(ids[1:]).view(-1, 1)
            out.append([None] + lp[b, : len(ids) - 1].gather(1, tgt).exp().view(-1).tolist())
        return out

    with torch.inference_mode():
        if work == "generate":
            for p in prompts:
                x = torch.tensor([p])
                g = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=a.new_tokens,
                                   do_sample=False, eos_token_id=None, pad_token_id=0)
                result.append(g[0, len(p):].tolist())
        elif work == "score-loop":
            for s in rows:
                result += ntp(model(torch.tensor([s])).logits, [s])
        else:
            for g in range(0, len(rows), 8):
                batch = rows[g: g + 8]
                width = max(len(r) for r in batch)
                x = torch.zeros((len(batch), width), dtype=torch.long)
                mask = torch.zeros((len(batch), width), dtype=torch.long)
                for i, r in enumerate(batch):
                    x[i, : len(r)] = torch.tensor(r)
                    mask[i, : len(r)] = 1
                result += ntp(model(input_ids=x, attention_mask=mask).logits, batch)
    return load, result


def worker_ct2(a, work, rows, prompts):
    import ctranslate2
    with open(os.path.join(a.model, "vocabulary.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    t0 = time.perf_counter()
    gen = ctranslate2.Generator(a.model, device="cpu", compute_type=a.dtype, intra_threads=a.threads)
    load = time.perf_counter() - t0
    result = []
    if work == "generate":
        for p in prompts:
            r = gen.generate_batch([[vocab[i] for i in p]], max_length=a.new_tokens, sampling_topk=1, beam_size=1,
                                   include_prompt_in_result=False, end_token=[])
            result.append(list(r[0].sequences_ids[0]))
    else:
        size = 1 if work == "score-loop" else 8
        seqs = [[vocab[i] for i in s] for s in rows]
        for g in range(0, len(seqs), size):
            chunk = seqs[g: g + size]
            for s, r in zip(chunk, gen.score_batch(chunk, max_batch_size=size), strict=True):
                result.append([None] + [math.exp(x) for x in r.log_probs][: len(s) - 1])
    return load, result


def worker_llama(a, work, rows, prompts):
    import numpy as np
    import llama_cpp
    longest = max([len(r) for r in rows] + [len(p) + a.new_tokens for p in prompts])
    t0 = time.perf_counter()
    llm = llama_cpp.Llama(model_path=a.model, n_ctx=longest + 16, n_batch=512, n_ubatch=512, n_threads=a.threads,
                          n_threads_batch=a.threads, logits_all=(work != "generate"), verbose=False)
    load = time.perf_counter() - t0
    result = []
    if work == "generate":
        for p in prompts:
            llm.reset()
            llm.eval(p)
            out = []
            for _ in range(a.new_tokens):
                # Without logits_all llama-cpp-python no longer copies the logits into llm.scores: the last
                # token's row is read from the context.
                last = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),))
                tok = int(np.argmax(last))
                out.append(tok)
                llm.eval([tok])
            result.append(out)
    else:  # llama.cpp scores one sequence per eval: score-loop and score-all are the same calls
        for s in rows:
            llm.reset()
            llm.eval(s)
            logits = np.asarray(llm.scores[: len(s) - 1], dtype=np.float64)
            m = logits.max(axis=1, keepdims=True)
            lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
            picked = logits[np.arange(len(s) - 1), np.asarray(s[1:])] - lse
            result.append([None] + np.exp(picked).tolist())
    return load, result


def run_worker(a):
    with open(a.ids, encoding="utf-8") as f:
        job = json.load(f)
    fn = {"hf": worker_hf, "ct2": worker_ct2, "llama": worker_llama}[a.worker]
    t0 = time.perf_counter()
    try:
        load, result = fn(a, a.work, job["rows"], job["prompts"])
    except ValueError as err:  # e.g. CTranslate2 refusing bfloat16 on a CPU without it: the reason goes in the table
        with open(a.result, "w", encoding="utf-8") as f:
            json.dump({"refused": str(err).splitlines()[0]}, f)
        return 3
    total = time.perf_counter() - t0
    with open(a.result, "w", encoding="utf-8") as f:
        json.dump({"load_s": load, "seconds": total, "result": result}, f)
    return 0


# ---------------------------------------------------------------------------------------------------------------
# The driver.

def timed_child(cmd, env=None, log=None):
    """Runs cmd; returns (wall seconds, peak RSS in MB, return code)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=log or subprocess.DEVNULL, stderr=log or subprocess.STDOUT)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss / 1024.0, p.returncode


def accepts_weights(binary):
    """Whether this ascviz-bench-model knows --weights (the bf16-weights mode): its usage text names it."""
    r = subprocess.run([binary, "--real-shapes-probe"], capture_output=True, text=True)
    return "--weights" in (r.stdout + r.stderr)


def lib_version(dist, mod):
    """The installed version, without importing the module here: the driver stays small, so that the children's
    peak RSS (inherited from the forked driver until exec) is theirs."""
    import importlib.metadata
    import importlib.util
    if importlib.util.find_spec(mod) is None:
        return None
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def cpu_line():
    model, flags = platform.processor() or "?", ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
            if line.startswith("Flags:"):
                flags = line
    except OSError:
        pass
    isa = "AVX-512" if "avx512f" in flags else ("AVX2" if "avx2" in flags else "no AVX2")
    extra = [f for f in ("avx512_bf16", "avx512_vnni", "avx_vnni", "amx_bf16") if f in flags.split()]
    return f"{model}, {isa}" + (f" ({', '.join(extra)})" if extra else "")


def make_rows(n, length, gen, prompt, seed):
    rng = random.Random(seed)
    rows = [[rng.randint(33, 126) for _ in range(length)] for _ in range(n)]
    prompts = [r[:prompt] for r in rows[:gen]]
    return rows, prompts


def write_inputs(tmp, rows, prompts):
    files = {}
    for name, rs in (("texts", rows), ("gen", prompts)):
        path = os.path.join(tmp, name + ".jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for r in rs:
                f.write(json.dumps({"ids": r, "code": "".join(chr(i) for i in r)}) + "\n")
        files[name] = path
    path = os.path.join(tmp, "job.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"rows": rows, "prompts": prompts}, f)
    files["job"] = path
    return files


def write_hf_job(tmp, rows, prompts, tokens):
    """The job of HF's worker when --hf-tokens cuts its texts to their first `tokens` ids (a 7B model in bfloat16 on a
    CPU: the reference NtP of the first tokens, not a speed run over the whole text)."""
    path = os.path.join(tmp, "job-hf.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"rows": [r[:tokens] for r in rows], "prompts": prompts}, f)
    return path


def max_diff(a, b, cut=False):
    """max |p - q| over the NtPs of two engines' rows; rows of unequal length are a mismatch (inf), unless `cut`: one
    engine scored only the first ids of each text (--hf-tokens), and the rows are compared over those."""
    worst = 0.0
    for x, y in zip(a, b, strict=True):
        if len(x) != len(y) and not cut:
            return float("inf")
        n = min(len(x), len(y))
        if n < 2:
            return float("inf")
        for p, q in zip(x[:n], y[:n]):
            if (p is None) != (q is None):
                return float("inf")
            if p is not None:
                worst = max(worst, abs(p - q))
    return worst


class Engine:
    def __init__(self, label, kind, model_dir, dtype, extra=None, binary=None, ref_label=None):
        self.label, self.kind, self.model, self.dtype = label, kind, model_dir, dtype
        self.extra, self.binary, self.ref_label = extra or [], binary, ref_label
        self.cells, self.rss, self.loads, self.results, self.error = {}, [], [], {}, None
        self.scored = None  # tokens this engine scored when not all (HF with --hf-tokens)


def run_engine(e, args, files, tmp, log):
    works = args.works
    if e.kind == "hf" and args.hf_works:
        works = [w for w in works if w in args.hf_works]
    for work in works:
        out = os.path.join(tmp, "result.json")
        if os.path.exists(out):
            os.remove(out)
        if e.kind == "ascviz":
            src = files["gen"] if work == "generate" else files["texts"]
            cmd = [e.binary, "--work", work, "--model", e.model, "--texts", src, "--out", out, "--threads",
                   str(args.threads), "--device", "cpu", "--dtype", "float32", "--new-tokens", str(args.new_tokens),
                   "--prompt", str(args.prompt)] + e.extra
        else:
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", e.kind, "--model", e.model, "--dtype",
                   e.dtype, "--work", work, "--ids", files["job-hf" if e.kind == "hf" and "job-hf" in files else "job"],
                   "--result", out, "--threads", str(args.threads),
                   "--new-tokens", str(args.new_tokens)]
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), TRANSFORMERS_VERBOSITY="error",
                   HF_HUB_OFFLINE="1")
        log.write(f"$ {' '.join(cmd)}\n")
        log.flush()
        wall, rss, rc = timed_child(cmd, env=env, log=log)
        refused = None
        if rc == 3 and os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                refused = json.load(f).get("refused")
        if rc != 0 or not os.path.exists(out):
            e.error = f"refused: {refused}" if refused else f"{work} failed (exit {rc}; see the log)"
            print(f"real_shapes:   {e.label}: {e.error}", flush=True)
            return
        with open(out, encoding="utf-8") as f:
            r = json.load(f)
        if e.kind == "ascviz":
            seconds, load = wall, r.get("load_s")
            res = r["generated"] if work == "generate" else r["ntp"]
        else:
            seconds, load, res = r["seconds"], r["load_s"], r["result"]
        e.cells[work] = seconds
        if work != "generate" and e.kind == "hf" and "job-hf" in files:
            e.scored = sum(len(x) for x in res)
        e.rss.append(rss)
        if load is not None:
            e.loads.append(load)
        e.results[work] = res
        print(f"real_shapes:   {e.label:28s} {work:10s} {seconds:8.2f} s  rss {rss:7.0f} MB"
              + (f"  load {load:.2f} s" if load is not None else ""), flush=True)


def convert_ct2(src, dst, quant, log):
    cmd = [os.path.join(os.path.dirname(sys.executable), "ct2-transformers-converter"), "--model", src,
           "--output_dir", dst, "--quantization", quant, "--force"]
    if not os.path.exists(cmd[0]):
        cmd = [sys.executable, "-c", "import sys; from ctranslate2.converters.transformers import main; "
                                     "sys.argv = ['ct2-transformers-converter'] + sys.argv[1:]; main()"] + cmd[1:]
    subprocess.run(cmd, check=True, stdout=log, stderr=log)
    vocab = os.path.join(dst, "vocabulary.json")
    if not os.path.exists(vocab):  # older converters write vocabulary.txt
        with open(os.path.join(dst, "vocabulary.txt"), encoding="utf-8") as f:
            json.dump([line.rstrip("\n") for line in f], open(vocab, "w", encoding="utf-8"))


GGUF_WRAPPER = """
import sys
sys.path.insert(0, sys.argv[1] + "/gguf-py")
sys.path.insert(0, sys.argv[1])
sys.argv = ["convert_hf_to_gguf.py"] + sys.argv[2:]
import convert_hf_to_gguf as c
# The random checkpoints' byte tokenizer is not a known pre-tokenizer; the bench gives llama.cpp ids, not text.
# TextModel moved from convert_hf_to_gguf.py into conversion/base.py in newer sources.
TextModel = getattr(c, "TextModel", None)
if TextModel is None:
    from conversion.base import TextModel
TextModel.get_vocab_base_pre = lambda self, tokenizer: "default"
# Its BPE has no merges, which llama.cpp refuses to load ("cannot find tokenizer merges"): one merge of two byte
# tokens is written (the bench gives ids, so the merge is never used).
_set_vocab_gpt2 = TextModel._set_vocab_gpt2
def _with_a_merge(self):
    _set_vocab_gpt2(self)
    if "tokenizer.ggml.merges" not in self.gguf_writer.kv_data[0]:
        self.gguf_writer.add_token_merges(["a b"])
TextModel._set_vocab_gpt2 = _with_a_merge
c.main()
"""


def convert_gguf(src, dst, outtype, llama_src, log):
    cmd = [sys.executable, "-c", GGUF_WRAPPER, llama_src, src, "--outfile", dst, "--outtype", outtype]
    subprocess.run(cmd, check=True, stdout=log, stderr=log)


def last_error_line(log_path, start=0):
    """The converter's own reason: the last "...Error..." line the engines' log got after byte `start`, cut to 200
    characters."""
    try:
        with open(log_path, encoding="utf-8", errors="replace") as f:
            f.seek(start)
            lines = [ln.strip() for ln in f if re.match(r"^\w*(Error|Exception)\b", ln.strip())]
    except OSError:
        return "see the log"
    return lines[-1][:200] if lines else "see the log"


def make_checkpoint(shape, dtype, path, log):
    if os.path.exists(os.path.join(path, "config.json")):
        return
    cmd = [sys.executable, os.path.join(HERE, "make_shapes.py"), "--shape", shape, "--dtype", dtype, "--out", path]
    subprocess.run(cmd, check=True, stdout=log, stderr=log)


def cli_start(cli):
    """ascviz-cli --version wall time (median of 5), shared libraries mapped, LD_DEBUG=statistics' relocation."""
    if not cli or not os.path.exists(cli):
        return None
    walls = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([cli, "--version"], capture_output=True)
        walls.append(time.perf_counter() - t0)
    libs = subprocess.run(["ldd", cli], capture_output=True, text=True).stdout
    nlibs = sum(1 for line in libs.splitlines() if "=>" in line or line.strip().startswith("/"))
    names = [line.split()[0] for line in libs.splitlines() if line.strip()]  # not the addresses: "0x...c10..."
    torch_libs = sum(1 for n in names if os.path.basename(n).startswith(("libtorch", "libc10")))
    stats = subprocess.run([cli, "--version"], capture_output=True, text=True,
                           env=dict(os.environ, LD_DEBUG="statistics")).stderr
    reloc = re.search(r"total startup time in dynamic loader:\s*([\d,]+) cycles", stats)
    nrel = re.search(r"number of relocations:\s*(\d+)", stats)
    return {"wall_s": statistics.median(walls), "min_s": min(walls), "libs": nlibs, "torch_libs": torch_libs,
            "loader_cycles": reloc.group(1) if reloc else "?", "relocations": nrel.group(1) if nrel else "?"}


def shape_table(shape, engines, args, tokens):
    refs = {k: next((e for e in engines if e.label == f"HF {k}" and not e.error and e.results), None)
            for k in ("float32", "bfloat16")}
    hf_cut = next((e.scored for e in engines if e.kind == "hf" and e.scored), None)
    lines = [f"**{shape}** ({tokens['score']} tokens scored: {args.texts} × {args.tokens}; "
             f"{tokens['gen']} generated: {args.gen} × {args.new_tokens} after {args.prompt}; {args.threads} threads"
             + (f"; HF scored the first {args.hf_tokens} tokens of each text ({hf_cut} in all), its ΔNtP over those"
                if hf_cut else "") + ")",
             "",
             "| engine | score-loop tok/s | score-all tok/s | generate tok/s | peak RSS MB | load s "
             "| max \\|ΔNtP\\| vs HF f32 | vs HF bf16 | greedy ids = HF f32 / bf16 |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for e in engines:
        if e.error and not e.cells:
            lines.append(f"| {e.label} | {e.error} | | | | | | | |")
            continue
        cells = [e.label]
        for w in WORKS:
            n = tokens["gen"] if w == "generate" else (e.scored or tokens["score"])
            cells.append(f"{n / e.cells[w]:.1f}" if w in e.cells else "—")
        cells.append(f"{max(e.rss):.0f}" if e.rss else "—")
        cells.append(f"{statistics.median(e.loads):.2f}" if e.loads else "—")
        same = []
        for k in ("float32", "bfloat16"):
            ref = refs[k]
            if ref is e:
                cells.append("(reference)")
            elif ref is not None and "score-loop" in e.results and "score-loop" in ref.results:
                cut = bool(e.scored or ref.scored)
                cells.append(f"{max_diff(e.results['score-loop'], ref.results['score-loop'], cut):.1e}")
            else:
                cells.append("—")
            if ref is not None and ref is not e and "generate" in e.results and "generate" in ref.results:
                same.append(f"{sum(x == y for x, y in zip(e.results['generate'], ref.results['generate']))}/"
                            f"{len(ref.results['generate'])}")
            else:
                same.append("—")
        cells.append(" / ".join(same))
        lines.append("| " + " | ".join(cells) + " |")
    # Time ratios, each format against the peers in the same format (f32 rows vs f32 peers, bf16 weights vs bf16).
    for fmt, peer_labels in (("float32", ("CT2 float32", "llama.cpp F32", "HF float32")),
                             ("bfloat16", ("CT2 bfloat16", "llama.cpp BF16", "HF bfloat16"))):
        peers = [p for p in peer_labels if any(e.label == p and e.cells for e in engines)]
        ours = [e for e in engines if e.kind == "ascviz" and e.dtype == fmt and e.cells]
        if not peers or not ours:
            continue
        lines += ["", f"Time ratios, {'float32' if fmt == 'float32' else 'bf16 weights'} (peer's seconds / "
                  "AsC-Viz's; > 1: AsC-Viz is faster), score-loop / score-all / generate:", "",
                  "| AsC-Viz | " + " | ".join(f"vs {p}" for p in peers) + " |",
                  "| --- | " + " | ".join("---" for _ in peers) + " |"]
        for e in ours:
            cells = [e.label]
            for p in peers:
                pe = next(x for x in engines if x.label == p)
                if pe.scored:  # HF cut to the first tokens: its seconds are not the same work
                    cells.append("— (HF scored fewer tokens)")
                    continue
                cells.append(" / ".join(f"{pe.cells[w] / e.cells[w]:.2f}" if w in pe.cells and w in e.cells else "—"
                                        for w in WORKS))
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def write_section(path, body):
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    section = BEGIN + "\n" + body.rstrip("\n") + "\n" + END
    if BEGIN in text and END in text:
        a, b = text.index(BEGIN), text.index(END) + len(END)
        text = text[:a] + section + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test(a):
    """The ctest: the tiny shape with every peer that imports, float32; the section must be written (appended to a
    file without one, the file's text kept) with a row per engine, and the float32 NtPs must agree."""
    with tempfile.TemporaryDirectory(prefix="ascviz-real-shapes-test-") as t:
        out = os.path.join(t, "performance.md")
        with open(out, "w", encoding="utf-8") as f:
            f.write("# Performance\n\nText that must stay.\n")
        cmd = [sys.executable, os.path.abspath(__file__), "--shapes", "tiny", "--data", os.path.join(t, "data"),
               "--out", out, "--texts", "3", "--tokens", "48", "--gen", "2", "--new-tokens", "8", "--threads",
               str(a.threads), "--variants", "float32", "--works", "score-loop,generate", "--peers", a.peers,
               "--check", "--save",
               os.path.join(t, "saved.json")]
        for b in a.build:
            cmd += ["--build", b]
        rc = subprocess.run(cmd).returncode
        text = open(out, encoding="utf-8").read()
        saved = json.load(open(os.path.join(t, "saved.json"), encoding="utf-8"))["tiny"]
        problems = []
        if rc != 0:
            problems.append(f"real_shapes.py exited {rc}")
        if not text.startswith("# Performance\n\nText that must stay.\n"):
            problems.append("the file's own text was not kept")
        if text.count(BEGIN) != 1 or text.count(END) != 1:
            problems.append("the section markers are not there once each")
        for label, e in saved.items():
            if f"| {label} |" not in text:
                problems.append(f"no row for {label}")
            if e["error"]:
                problems.append(f"{label}: {e['error']}")
        for need in ("HF float32", "AsC-Viz"):
            if not any(label.startswith(need) for label in saved):
                problems.append(f"no {need} row")
        ref = saved.get("HF float32")
        for label, e in saved.items():
            if ref and e is not ref and e["variant"] == "float32" and "score-loop" in e["results"]:
                err = max_diff(e["results"]["score-loop"], ref["results"]["score-loop"])
                tol = a.tolerance if e["kind"] == "ascviz" else a.peer_tolerance
                print(f"real_shapes self-test: {label}: max |ΔNtP| vs HF float32 {err:.2e} (tolerance {tol:g})")
                if err > tol:
                    problems.append(f"{label}: max |ΔNtP| {err:.2e} > {tol:g}")
        for p in problems:
            print(f"real_shapes self-test: FAILED: {p}")
        print(text[text.index(BEGIN):] if BEGIN in text else text)
        print(f"real_shapes self-test: {len(saved)} engines, " + ("passed" if not problems else "failed"))
        return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", choices=("hf", "ct2", "llama"), help=argparse.SUPPRESS)
    ap.add_argument("--ids", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--dtype", help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    ap.add_argument("--build", action="append", default=[], help="NAME=PATH of an ascviz-bench-model (repeatable)")
    ap.add_argument("--shapes", default="0.5B", help="comma-separated: tiny, 0.5B, 1.5B, 3B, 7B (make_shapes.py)")
    ap.add_argument("--out", help="the Markdown file whose real-shapes section is written (docs/performance.md)")
    ap.add_argument("--data", default="/work/benchdata", help="where the checkpoints are written")
    ap.add_argument("--keep", action="store_true", help="keep each shape's checkpoints (default: deleted after it)")
    ap.add_argument("--peers", default="hf,ct2,llama", help="hf, ct2, llama (comma-separated)")
    ap.add_argument("--works", default=",".join(WORKS))
    ap.add_argument("--variants", default="float32,bfloat16,int8",
                    help="which number formats run (float32, bfloat16 (bf16 weights, HF bf16, CT2 bf16, GGUF BF16), int8)")
    ap.add_argument("--reuse", help="a --save file of an earlier run: its engines are not run again, only added")
    ap.add_argument("--table-only", action="store_true",
                    help="write the tables of --reuse's engines only: no checkpoint is made, no engine run")
    ap.add_argument("--save", help="write every engine's measurements and results here (JSON)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hf-tokens", type=int, default=0,
                    help="HF scores only the first N ids of each text (its NtP reference at 7B; 0 = all)")
    ap.add_argument("--hf-works", default="", help="the works HF runs (default: all of --works)")
    ap.add_argument("--texts", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--gen", type=int, default=5)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--llama-src", default=DEFAULT_LLAMA_SRC,
                    help="llama.cpp's source (with convert_hf_to_gguf.py and gguf-py), from the llama-cpp-python sdist")
    ap.add_argument("--cli", default=None, help="an ascviz-cli whose start time is measured (default: beside --build)")
    ap.add_argument("--note", default="", help="a line printed under the table (e.g. the machine's load)")
    ap.add_argument("--tolerance", type=float, default=1e-5, help="AsC-Viz float32 vs HF float32 NtP, for --check")
    ap.add_argument("--peer-tolerance", type=float, default=1e-4,
                    help="a peer's float32 NtP vs HF float32, for --self-test (CT2 sums in other orders: ~2e-5 seen)")
    ap.add_argument("--self-test", action="store_true",
                    help="the ctest: the tiny shape in a temp folder with --build and --peers, float32; checks the "
                         "written section and the NtPs")
    ap.add_argument("--check", action="store_true", help="exit 1 when an AsC-Viz float32 NtP is off by > tolerance")
    ap.add_argument("--log", default=None, help="the engines' output (default: a file in the temp folder, printed "
                                                "on failure)")
    a = ap.parse_args()
    if a.worker:
        return run_worker(a)
    if a.self_test:
        return self_test(a)
    a.works = [w for w in a.works.split(",") if w]
    a.hf_works = [w for w in a.hf_works.split(",") if w]
    a.variants = [v for v in a.variants.split(",") if v]
    if not a.build or not a.out:
        ap.error("--build and --out are needed")
    builds = []
    for b in a.build:
        name, sep, path = b.partition("=")
        if not sep or not os.path.exists(path):
            sys.exit(f"real_shapes: --build {b!r}: expected NAME=PATH of an existing ascviz-bench-model")
        builds.append((name, os.path.abspath(path), accepts_weights(path)))
    peers = [p for p in a.peers.split(",") if p]
    versions = {"transformers": lib_version("transformers", "transformers"), "torch": lib_version("torch", "torch"),
                "CTranslate2": lib_version("ctranslate2", "ctranslate2"),
                "llama-cpp-python": lib_version("llama_cpp_python", "llama_cpp")}
    skipped = []
    if "ct2" in peers and not versions["CTranslate2"]:
        skipped.append("CTranslate2: ctranslate2 is not importable")
        peers.remove("ct2")
    if "llama" in peers and not versions["llama-cpp-python"]:
        skipped.append("llama.cpp: llama_cpp is not importable (pip install llama-cpp-python)")
        peers.remove("llama")
    if "llama" in peers and not os.path.exists(os.path.join(a.llama_src, "convert_hf_to_gguf.py")):
        skipped.append(f"llama.cpp: no convert_hf_to_gguf.py under --llama-src {a.llama_src}")
        peers.remove("llama")
    for s in skipped:
        print(f"real_shapes: skipped {s}", flush=True)
    ct2_types = set()
    if "ct2" in peers:
        r = subprocess.run([sys.executable, "-c", "import ctranslate2; print(*ctranslate2.get_supported_compute_types('cpu'))"],
                           capture_output=True, text=True)
        ct2_types = set(r.stdout.split())
    cli = a.cli or os.path.join(os.path.dirname(os.path.dirname(builds[0][1])), "ascviz-cli")  # BUILD/app/
    start = cli_start(cli)
    os.makedirs(a.data, exist_ok=True)
    body = [f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on {cpu_line()}, "
            f"{a.threads} threads, by `app/bench/real_shapes.py --shapes {','.join(s for s in a.shapes.split(','))}`.",
            "Builds: " + "; ".join(f"{n} (`{p}`{', bf16 weights' if w else ''})" for n, p, w in builds) + ".",
            "Peers: " + ", ".join(f"{k} {v}" for k, v in versions.items() if v) + "."
            + (" Skipped: " + "; ".join(skipped) + "." if skipped else "")]
    if a.note:
        body.append(a.note)
    failed = False
    reused, saving = {}, {}
    if a.reuse:
        with open(a.reuse, encoding="utf-8") as f:
            reused = json.load(f)
    with tempfile.TemporaryDirectory(prefix="ascviz-real-shapes-") as tmp:
        log_path = a.log or os.path.join(tmp, "engines.log")
        log = open(log_path, "a", encoding="utf-8")
        runs = reused.get("_runs", {})  # each shape's workload, as the run that measured it had it
        for shape in [s for s in a.shapes.split(",") if s]:
            if a.table_only and shape in runs:
                for k, v in runs[shape].items():
                    setattr(a, k, v)
            rows, prompts = make_rows(a.texts, a.tokens, a.gen, a.prompt, seed=1)
            files = write_inputs(tmp, rows, prompts)
            if a.hf_tokens:
                files["job-hf"] = write_hf_job(tmp, rows, prompts, a.hf_tokens)
            tokens = {"score": sum(len(r) for r in rows), "gen": a.gen * a.new_tokens}
            f32 = os.path.join(a.data, f"{shape}-float32")
            bf16 = os.path.join(a.data, f"{shape}-bfloat16")
            made = []
            need_bf16 = "bfloat16" in a.variants and (any(w for _, _, w in builds) or "hf" in peers)
            print(f"real_shapes: {shape}: checkpoints under {a.data}", flush=True)
            if shape != "7B" and not a.table_only:
                make_checkpoint(shape, "float32", f32, log)
                made.append(f32)
            if (need_bf16 or shape == "7B") and not a.table_only:
                make_checkpoint(shape, "bfloat16", bf16, log)
                made.append(bf16)
            specs = []  # (label, kind, variant, model path, extra args, binary, conversion or None)
            for name, path, weights in builds:
                if shape != "7B":
                    specs.append((f"AsC-Viz {name} float32", "ascviz", "float32", f32, [], path, None))
                if weights:
                    specs.append((f"AsC-Viz {name} bf16 weights", "ascviz", "bfloat16", bf16,
                                  ["--weights", "checkpoint"], path, None))
            src = bf16 if shape == "7B" else f32
            if "hf" in peers:
                if shape != "7B":
                    specs.append(("HF float32", "hf", "float32", f32, [], None, None))
                specs.append(("HF bfloat16", "hf", "bfloat16", bf16, [], None, None))
            if "ct2" in peers:
                for q in ("float32", "bfloat16", "int8"):
                    d = os.path.join(a.data, f"{shape}-ct2-{q}")
                    specs.append((f"CT2 {q}", "ct2", q, d, [], None,
                                  lambda d=d, q=q: convert_ct2(src, d, q, log)))
            if "llama" in peers:
                for q, v in (("f32", "float32"), ("bf16", "bfloat16")):
                    if shape != "7B" or q == "bf16":
                        d = os.path.join(a.data, f"{shape}-{q}.gguf")
                        specs.append((f"llama.cpp {q.upper()}", "llama", v, d, [], None,
                                      lambda d=d, q=q: convert_gguf(src, d, q, a.llama_src, log)))
            saved = reused.get(shape, {})
            engines = []
            for label, kind, variant, model, extra, binary, convert in specs:
                if variant not in a.variants and label not in saved:
                    continue
                e = Engine(label, kind, model, variant, extra=extra, binary=binary)
                engines.append(e)
                if label in saved:
                    e.cells, e.rss, e.loads, e.results, e.error = (saved[label][k] for k in
                                                                   ("cells", "rss", "loads", "results", "error"))
                    e.scored = saved[label].get("scored")
                    print(f"real_shapes:   {label}: reused from {a.reuse}", flush=True)
                    continue
                if a.table_only:
                    engines.pop()
                    continue
                if kind == "ct2" and variant not in ct2_types:
                    # Refused before converting (a 7B conversion is minutes and gigabytes for nothing).
                    e.error = (f"refused: CTranslate2 {versions['CTranslate2']} does not support {variant} on this CPU "
                               f"(get_supported_compute_types: {', '.join(sorted(ct2_types))})")
                    print(f"real_shapes:   {label}: {e.error}", flush=True)
                    continue
                if convert is not None:
                    log.flush()
                    log_start = os.path.getsize(log_path)
                    try:
                        convert()
                        made.append(model)
                    except subprocess.CalledProcessError as err:
                        e.error = f"conversion failed (exit {err.returncode}): {last_error_line(log_path, log_start)}"
                        print(f"real_shapes:   {label}: {e.error}", flush=True)
                        continue
                run_engine(e, a, files, tmp, log)
                if convert is not None and not a.keep:  # one converted model on disk at a time
                    shutil.rmtree(model, ignore_errors=True) if os.path.isdir(model) else os.remove(model)
                    made.remove(model)
            for label, v in saved.items():  # engines of the earlier run that this one does not name
                if not any(e.label == label for e in engines):
                    e = Engine(label, v["kind"], "", v["variant"])
                    e.cells, e.rss, e.loads, e.results, e.error = (v[k] for k in
                                                                   ("cells", "rss", "loads", "results", "error"))
                    e.scored = v.get("scored")
                    engines.append(e)
            order = [sp[0] for sp in specs]
            engines.sort(key=lambda e: order.index(e.label) if e.label in order else len(order))
            saving[shape] = {e.label: {"kind": e.kind, "variant": e.dtype, "cells": e.cells, "rss": e.rss,
                                       "loads": e.loads, "results": e.results, "error": e.error, "scored": e.scored}
                             for e in engines}
            saving.setdefault("_runs", {})[shape] = {k: getattr(a, k) for k in RUN_KEYS}
            table = shape_table(shape, engines, a, tokens)
            print("\n".join(table), flush=True)
            body += [""] + table
            ref = next((e for e in engines if e.label == "HF float32"), None)
            for e in engines:
                if e.kind == "ascviz" and e.dtype == "float32":
                    if e.error or ref is None or ref.error or "score-loop" not in e.results:
                        failed |= bool(e.error)
                        continue
                    err = max_diff(e.results["score-loop"], ref.results["score-loop"])
                    if err > a.tolerance:
                        print(f"real_shapes: {e.label}: max |ΔNtP| {err:.2e} > {a.tolerance:g}", flush=True)
                        failed = True
            if not a.keep:
                for d in made:
                    shutil.rmtree(d, ignore_errors=True) if os.path.isdir(d) else os.remove(d)
        log.close()
        if a.save:
            with open(a.save, "w", encoding="utf-8") as f:
                json.dump(saving, f)
        if failed and not a.log:
            sys.stdout.write(open(log_path, encoding="utf-8").read()[-6000:])
    if start:
        body += ["", f"Process start before loading: `ascviz-cli --version` takes {start['wall_s']:.3f} s (median of "
                 f"5; fastest {start['min_s']:.3f} s); the binary maps {start['libs']} shared libraries "
                 f"({start['torch_libs']} of them LibTorch's), the dynamic loader reports {start['relocations']} "
                 f"relocations and {start['loader_cycles']} cycles (LD_DEBUG=statistics)."]
    write_section(a.out, "\n".join(body) + "\n")
    print(f"real_shapes: wrote the real-shapes section of {a.out}", flush=True)
    return 1 if (failed and a.check) else 0


if __name__ == "__main__":
    sys.exit(main())
