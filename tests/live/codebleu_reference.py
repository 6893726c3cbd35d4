#!/usr/bin/env python3
"""CodeBLEU by the codebleu package (PyPI 0.7.0) for the live tier (tests/galeras/test_codebleu_live.cpp).

Usage: codebleu_reference.py PAIRS.json OUT.json [SEEDS]
PAIRS.json: [{"language": "python"|"java", "candidate": str, "reference": str}, ...].
OUT.json: {"codebleu_version": ..., "seeds": [...], "results": [[{codebleu, ngram_match_score, ...} per seed]
per pair]}.

calc_codebleu([reference], [candidate], lang) is run once per pair and per PYTHONHASHSEED in SEEDS (default
0,1,2,3,4,5,6,7), each seed in its own process: the package's data-flow match makes lists of Python sets of
variable names, whose order follows string hashing, so a pair's value can depend on the seed. The grammars are
the project's pins (tree-sitter-python 0.23.6, tree-sitter-java 0.23.5, resources/languages/*/language.json);
py-tree-sitter 0.22 (what codebleu 0.7.0 requires) takes a grammar as an integer address, which these
grammars hand out as a capsule, so the address is read from the capsule here.
"""
import ctypes
import json
import os
import subprocess
import sys


def languages():
    import tree_sitter_java
    import tree_sitter_python
    from tree_sitter import Language

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return {
        "python": Language(get(tree_sitter_python.language(), b"tree_sitter.Language")),
        "java": Language(get(tree_sitter_java.language(), b"tree_sitter.Language")),
    }


def one_seed(pairs_path, out_path):
    import codebleu.codebleu as cb

    langs = languages()
    cb.get_tree_sitter_language = lambda lang: langs[lang]
    with open(pairs_path, encoding="utf-8") as f:
        pairs = json.load(f)
    out = []
    for p in pairs:
        r = cb.calc_codebleu([p["reference"]], [p["candidate"]], lang=p["language"])
        out.append({k: float(v) for k, v in r.items()})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--one":
        one_seed(sys.argv[2], sys.argv[3])
        return
    pairs_path, out_path = sys.argv[1], sys.argv[2]
    seeds = [int(s) for s in sys.argv[3].split(",")] if len(sys.argv) > 3 else list(range(8))
    per_seed = []
    for s in seeds:
        tmp = f"{out_path}.seed{s}"
        env = dict(os.environ, PYTHONHASHSEED=str(s))
        subprocess.run([sys.executable, __file__, "--one", pairs_path, tmp], check=True, env=env)
        with open(tmp, encoding="utf-8") as f:
            per_seed.append(json.load(f))
        os.remove(tmp)
    from importlib.metadata import version

    results = [[per_seed[k][i] for k in range(len(seeds))] for i in range(len(per_seed[0]))]
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"codebleu_version": version("codebleu"), "seeds": seeds, "results": results}, f)


if __name__ == "__main__":
    main()
