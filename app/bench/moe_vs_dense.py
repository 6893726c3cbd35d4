#!/usr/bin/env python3
"""Runs ascviz-bench-moe on an MoE checkpoint and its dense twin (moe_dense_twin.py), alternating the two for
--repeat processes each (so that both see the same load on a shared machine), and prints the medians as a table:
scoring and generation tokens/s, the MoE's slowdown against the twin (issue 42's target: within 1.5x), and the peak
resident memory against the weights (target: <= 1.2x; also without the runtime's own resident set before loading,
and the resident set once loaded).

    moe_vs_dense.py --bench build/app/bench/ascviz-bench-moe --dir /tmp/moe-bench --texts corpus.jsonl
                    [--repeat 3] [--limit 20] [--runs 5] [--new-tokens 32] [--threads 0]"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--dir", required=True, help="the folder with moe/ and dense/")
    ap.add_argument("--texts", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--json", help="write every process's result here")
    a = ap.parse_args()
    results = {"moe": [], "dense": []}
    for _ in range(a.repeat):
        for name in ("moe", "dense"):
            p = subprocess.run([a.bench, "--model", os.path.join(a.dir, name), "--texts", a.texts, "--limit",
                                str(a.limit), "--runs", str(a.runs), "--new-tokens", str(a.new_tokens), "--threads",
                                str(a.threads)], capture_output=True, text=True, check=True)
            results[name].append(json.loads(p.stdout.strip().splitlines()[-1]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    row = {}
    for name, rs in results.items():
        r0 = rs[0]
        row[name] = {
            "arch": r0["architecture"], "params": r0["parameters"], "weights": r0["weights_mb"],
            "score": statistics.median(r["score_tok_s_median"] for r in rs),
            "gen": statistics.median(r["generate_tok_s_median"] for r in rs),
            "peak": statistics.median(r["peak_rss_mb"] for r in rs),
            "runtime": statistics.median(r["runtime_rss_mb"] for r in rs),
            "loaded": statistics.median(r["loaded_rss_mb"] for r in rs),
            "load_peak": statistics.median(r["load_peak_rss_mb"] for r in rs),
        }
    print(f"{'model':<8} {'arch':<10} {'params':>10} {'weights MB':>10} {'score tok/s':>11} {'gen tok/s':>9} "
          f"{'peak RSS MB':>11} {'peak/weights':>12} {'(peak-runtime)/weights':>22} {'(loaded-runtime)/weights':>24}")
    for name, r in row.items():
        print(f"{name:<8} {r['arch']:<10} {r['params']:>10,} {r['weights']:>10.1f} {r['score']:>11.0f} "
              f"{r['gen']:>9.1f} {r['peak']:>11.1f} {r['peak'] / r['weights']:>12.2f} "
              f"{(r['peak'] - r['runtime']) / r['weights']:>22.2f} {(r['loaded'] - r['runtime']) / r['weights']:>24.2f}")
    m, d = row["moe"], row["dense"]
    print(f"MoE slowdown vs dense twin (dense tok/s / MoE tok/s; target <= 1.5): scoring {d['score'] / m['score']:.2f}x, "
          f"generation {d['gen'] / m['gen']:.2f}x; medians of {a.repeat} processes x {a.runs} runs each")


if __name__ == "__main__":
    main()
