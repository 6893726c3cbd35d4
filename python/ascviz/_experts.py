"""Experts by syntax (issue 42, method.md §15): which experts a mixture-of-experts model routes the tokens of each
syntax category to, over a corpus or a results database, as a DataFrame. Core's analyzeExperts computes it, so the
numbers and the JSON (df.attrs["json"]) are `ascviz-cli analyze experts --json`'s."""
from __future__ import annotations

import json
import os
from typing import Optional, Union

import pandas as pd

from . import _ascviz
from . import _check as check
from ._model import MAX_AST_DEPTH, MAX_AST_NODES, MAX_TEXT_BYTES, Model

PathLike = Union[str, os.PathLike]

EXPERT_COLUMNS = ("category", "layer", "expert", "share", "n", "kl_bits")


def experts(model: Model, *, corpus: Optional[PathLike] = None, db: Optional[PathLike] = None, limit: int = 0,
            language: Optional[str] = None, max_text_bytes: int = MAX_TEXT_BYTES, max_ast_depth: int = MAX_AST_DEPTH,
            max_ast_nodes: int = MAX_AST_NODES) -> pd.DataFrame:
    """`ascviz-cli analyze experts (--corpus C | --db R) --model M --json` as a DataFrame, one row per category,
    sparse layer and expert: category, layer, expert, share (the fraction of the category's n tokens whose top-k
    experts at the layer include the expert; a category's shares at a layer sum to k), n, and kl_bits (the
    category's specialisation at the layer: the KL divergence in bits of its expert distribution from the
    corpus-wide one, the same on every expert's row). Give exactly one of corpus (a JSONL file, a folder or
    "default") and db (a results database: its status-ok snippets, scored here with `model`); limit keeps the first
    N texts (0 = all). The whole JSON is in df.attrs["json"]. A dense model raises ascviz.ModelError."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be an ascviz.Model (load_model()), not {type(model).__name__}")
    if (corpus is None) == (db is None):
        raise ValueError("experts needs exactly one of corpus and db")
    j = json.loads(_ascviz.analyze_experts(
        model._native, "" if db is None else check.path(db, "db"), "" if corpus is None else check.path(corpus, "corpus"),
        "" if language is None else check.string(language, "language"), check.integer(limit, "limit", 0, check.INT32_MAX),
        check.integer(max_text_bytes, "max_text_bytes", 0), check.integer(max_ast_depth, "max_ast_depth", 0, check.INT32_MAX),
        check.integer(max_ast_nodes, "max_ast_nodes", 0)))
    kl = {(s["category"], s["layer"]): s["kl_bits"] for s in j["specialisation"]}
    rows = [dict(r, kl_bits=kl[(r["category"], r["layer"])]) for r in j["rows"]]
    df = pd.DataFrame(rows, columns=list(EXPERT_COLUMNS)).astype(
        {"category": "object", "layer": "int64", "expert": "int64", "share": "float64", "n": "int64",
         "kl_bits": "float64"})
    df.attrs["json"] = j
    return df
