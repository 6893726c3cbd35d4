#!/usr/bin/env python3
"""The table of docs/performance.md in one command: hf_compare.py on each AsC-Viz build, printed side by side.

  ~/.cache/ascviz/venv-torch-2.11.0/bin/python app/bench/builds_table.py \\
      --build "system build (LibTorch 1.13 + OpenBLAS)=build/app/bench/ascviz-bench-model" \\
      --build "PyTorch build (LibTorch 2.11 + MKL)=build-pytorch/app/bench/ascviz-bench-model" \\
      [--limit 100] [--threads 2] [--rounds 3]

Each build runs `hf_compare.py --peers hf,ct2 --rounds N --json ...` (every side timed as a whole process or from
its model load, medians of N rounds; NtP checked against HF at --tolerance and CTranslate2 at --ct2-tolerance).
The printed Markdown table has, per build, AsC-Viz's seconds and then each peer's seconds with its time divided
by AsC-Viz's in brackets (> 1: AsC-Viz is faster), then the NtP checks. Exits non-zero when a check fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LABELS = {"score-loop": "score-loop (one text per call)",
          "score-batch8": "score-batch8 (HF padded, CT2 batches of 8)",
          "score-all": "score-all (AsC-Viz packs; HF, CT2 batches of 8)",
          "generate": "generate (10 × 32 greedy tokens)"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", action="append", required=True, help="NAME=PATH of an ascviz-bench-model")
    ap.add_argument("--model", default=os.path.join(ROOT, "resources/models/ascviz-tiny-code"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "resources/corpus/stdlib-functions.jsonl"))
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--peers", default="hf,ct2")
    ap.add_argument("--work", default="score-loop,score-batch8,score-all,generate")
    ap.add_argument("--tolerance", type=float, default=1e-5)
    ap.add_argument("--ct2-tolerance", type=float, default=5e-5)
    args = ap.parse_args()
    builds = []
    for b in args.build:
        name, sep, path = b.partition("=")
        if not sep or not os.path.exists(path):
            sys.exit(f"builds_table: --build {b!r}: expected NAME=PATH of an existing ascviz-bench-model")
        builds.append((name, path))
    peers = [p for p in args.peers.split(",") if p]
    results, failed = [], False
    with tempfile.TemporaryDirectory(prefix="ascviz-builds-table-") as tmp:
        for i, (name, path) in enumerate(builds):
            out = os.path.join(tmp, f"{i}.json")
            cmd = [sys.executable, os.path.join(HERE, "hf_compare.py"), "--bench", path, "--model", args.model,
                   "--corpus", args.corpus, "--limit", str(args.limit), "--threads", str(args.threads),
                   "--rounds", str(args.rounds), "--peers", args.peers, "--work", args.work,
                   "--tolerance", str(args.tolerance), "--ct2-tolerance", str(args.ct2_tolerance), "--json", out]
            print(f"builds_table: {name}: {' '.join(cmd)}", file=sys.stderr, flush=True)
            failed |= subprocess.run(cmd).returncode != 0
            with open(out, encoding="utf-8") as f:
                results.append({r["work"]: r for r in json.load(f)["rows"]})
    head = ["work"]
    for name, _ in builds:
        head += [name] + [("HF" if p == "hf" else "CT2") for p in peers]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---" for _ in head) + " |")
    for work in [w for w in args.work.split(",") if w]:
        cells = [LABELS.get(work, work)]
        for rows in results:
            r = rows[work]
            cells.append(f"{r['ascviz_s']:.2f}")
            cells += [f"{r[p + '_s']:.2f} ({r[p + '_ratio']:.2f})" for p in peers]
        print("| " + " | ".join(cells) + " |")
    print()
    for (name, _), rows in zip(builds, results):
        checks = "; ".join(f"{w}: " + ", ".join(f"{'HF' if p == 'hf' else 'CT2'} {r[p + '_check']}" for p in peers)
                           for w, r in rows.items())
        print(f"- {name}: {checks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
