"""The analyses added with the attention heads, the layer lens and Galeras (method.md §11–§12): analyze heads
--from, analyze layers and analyze treatments, through core's functions and JSON writers, which the CLI's commands
call too (their JSON is the CLI's), as DataFrames with the whole JSON in df.attrs["json"]."""
from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd

from . import _ascviz
from . import _check as check

PathLike = Union[str, os.PathLike]


def _counts(values: Sequence[int], name: str) -> List[int]:
    if isinstance(values, int):
        values = [values]
    if not values:
        raise ValueError(f"{name} needs at least one value")
    return [check.integer(v, name, 1) for v in values]


def heads(partials: Sequence[PathLike], *, top_k: Sequence[int] = (1, 3, 10, 20), min_count: int = 20) -> pd.DataFrame:
    """Attention heads vs syntax relations (method.md §11) from the run databases of earlier runs, as
    `ascviz-cli analyze heads --from P1,P2 --json`: one row per relation type: relation, count,
    outside_window, mean_offset, layer and head (the best head), and per k of top_k: head_top<k> (the best
    head's score), offset_top<k>, keyword_top<k>, combined_top<k> (the baselines) and diff_top<k>."""
    if isinstance(partials, (str, os.PathLike)):
        partials = [partials]
    files = [check.path(p, "partials") for p in partials]
    if not files:
        raise ValueError("partials needs at least one partial file")
    check.integer(min_count, "min_count", 1, check.INT32_MAX)
    j = json.loads(_ascviz.analyze_heads(files, _counts(top_k, "top_k"), min_count))
    ks = j["top_k"]
    rows = []
    for name, r in j["relations"].items():
        row = {"relation": name, "count": r["count"], "outside_window": r.get("outside_window"),
               "mean_offset": r.get("mean_offset"), "layer": r["best_head"]["layer"], "head": r["best_head"]["head"]}
        for i, k in enumerate(ks):
            row[f"head_top{k}"] = r["best_head"]["scores"][i]
            row[f"offset_top{k}"] = r["offset_baseline"]["scores"][i]
            row[f"keyword_top{k}"] = r["keyword_baseline"]["scores"][i]
            row[f"combined_top{k}"] = r["combined_baseline"]["scores"][i]
            row[f"diff_top{k}"] = r["diff"][i]
        rows.append(row)
    columns = ["relation", "count", "outside_window", "mean_offset", "layer", "head"] + [
        f"{c}_top{k}" for k in ks for c in ("head", "offset", "keyword", "combined", "diff")]
    df = pd.DataFrame(rows, columns=columns)
    df.attrs["json"] = j
    # A shard missing, a file cut short by a killed run: the report covers part of the corpus (issue 39).
    for w in j.get("warnings", []):
        warnings.warn(f"analyze heads: {w}", stacklevel=2)
    return df


def layers(db: PathLike, *, model: Optional[PathLike] = None, limit: int = 0, fraction: float = 0.9,
           resamples: Optional[int] = None, seed: Optional[int] = None,
           aggregation: Optional[str] = None) -> pd.DataFrame:
    """The layer lens (method.md §6 rules per layer) over a results database's status-ok snippets, as
    `ascviz-cli analyze layers --db DB --json` (the database's model and θ unless given): one row per group and
    layer: kind (global | category | concept), name, layer, median, se, n, reaches (the first layer whose median
    is >= fraction x the final layer's), category (of a concept)."""
    j = json.loads(_ascviz.analyze_layers(
        check.path(db, "db"), None if model is None else check.path(model, "model"),
        check.integer(limit, "limit", 0, check.INT32_MAX), check.number(fraction, "fraction"),
        None if resamples is None else check.integer(resamples, "resamples", 1, check.MAX_RESAMPLES),
        None if seed is None else check.integer(seed, "seed", 0, check.UINT64_MAX),
        None if aggregation is None else check.choice(aggregation, "aggregation", check.AGGREGATIONS)))
    rows: List[Dict[str, Any]] = [{"kind": "global", "name": "global", "layer": i, "median": v}
                                  for i, v in enumerate(j["global"])]
    for kind, key in (("category", "categories"), ("concept", "concepts")):
        for name, g in j[key].items():
            for i, v in enumerate(g["median"]):
                rows.append({"kind": kind, "name": name, "layer": i, "median": v, "se": g["se"][i], "n": g["n"][i],
                             "reaches": g.get("reaches"), "category": g.get("category")})
    df = pd.DataFrame(rows, columns=["kind", "name", "layer", "median", "se", "n", "reaches", "category"])
    df.attrs["json"] = j
    return df


def treatments(db: PathLike, outcome: str = "levenshtein", *, confounders: Optional[Sequence[str]] = None,
               simulations: Optional[int] = None, seed: Optional[int] = None) -> pd.DataFrame:
    """Galeras (method.md §12) over a `galeras run` database, as `ascviz-cli analyze treatments --json`: one
    row per treatment against the control: treatment, n, n_treated, ate, se, ci_low, ci_high, placebo,
    random_common_cause, data_subset (the refutations' mean new effects), note."""
    names = None
    if confounders is not None:
        names = [check.string(c, "confounders") for c in confounders]
        if not names or any("," in c or not c for c in names):
            raise ValueError("confounders needs one or more names without commas")
    j = json.loads(_ascviz.analyze_treatments(
        check.path(db, "db"), check.string(outcome, "outcome"), names,
        None if simulations is None else check.integer(simulations, "simulations", 0, check.MAX_RESAMPLES),
        None if seed is None else check.integer(seed, "seed", 0, check.UINT64_MAX)))
    rows = []
    for t in j["treatments"]:
        ci = t.get("ci95") or [None, None]
        row = {"treatment": t["name"], "n": t["n"], "n_treated": t["n_treated"], "ate": t.get("ate"),
               "se": t.get("se"), "ci_low": ci[0], "ci_high": ci[1]}
        for k in ("placebo", "random_common_cause", "data_subset"):
            row[k] = (t.get("refutations") or {}).get(k, {}).get("estimate")
        row["note"] = t.get("note")
        rows.append(row)
    df = pd.DataFrame(rows, columns=["treatment", "n", "n_treated", "ate", "se", "ci_low", "ci_high", "placebo",
                                     "random_common_cause", "data_subset", "note"])
    df.attrs["json"] = j
    return df


def calibration(db: PathLike, *, confidence: str = "p1", by: str = "global", bins: int = 15,
                resamples: Optional[int] = None, seed: Optional[int] = None,
                resample: str = "snippets") -> pd.DataFrame:
    """Calibration by syntax category (method.md §17) over a results database, as `ascviz-cli analyze calibration
    --json`: one row per group ("global", then the categories with by="category", the concepts with by="concept"):
    group, n, errors, ece, ece_low, ece_high, ece_mass, mce, brier, auroc, auroc_low, auroc_high, auprc. confidence:
    p1 (default), ntp, entropy, topk_entropy, margin, asc_eval (ECE, MCE and Brier only for p1). The whole JSON is in
    df.attrs["json"]."""
    conf = check.choice(confidence, "confidence",
                        ("p1", "ntp", "entropy", "topk_entropy", "topk-entropy", "margin", "asc_eval", "asc-eval"))
    by = check.choice(by, "by", ("global", "category", "concept"))
    resample = check.choice(resample, "resample", ("snippets", "tokens"))
    j = json.loads(_ascviz.analyze_calibration(
        check.path(db, "db"), conf, by, check.integer(bins, "bins", 1, 1000),
        None if resamples is None else check.integer(resamples, "resamples", 1, check.MAX_RESAMPLES),
        None if seed is None else check.integer(seed, "seed", 0, check.UINT64_MAX), resample == "tokens"))
    rows = []
    for g in j["groups"]:
        ece_ci = g.get("ece_ci") or [None, None]
        auroc_ci = g.get("auroc_ci") or [None, None]
        rows.append({"group": g["group"], "n": g["n"], "errors": g["errors"], "ece": g.get("ece"),
                     "ece_low": ece_ci[0], "ece_high": ece_ci[1], "ece_mass": g.get("ece_mass"), "mce": g.get("mce"),
                     "brier": g.get("brier"), "auroc": g.get("auroc"), "auroc_low": auroc_ci[0],
                     "auroc_high": auroc_ci[1], "auprc": g.get("auprc")})
    df = pd.DataFrame(rows, columns=["group", "n", "errors", "ece", "ece_low", "ece_high", "ece_mass", "mce", "brier",
                                     "auroc", "auroc_low", "auroc_high", "auprc"])
    df.attrs["json"] = j
    return df
