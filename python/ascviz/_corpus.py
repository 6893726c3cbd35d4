"""batch over a corpus, results databases as DataFrames, and the corpus analyses (AsC-Causal, PERPLEXED)."""
from __future__ import annotations

import json
import os
import sqlite3
import sys
from typing import Any, Callable, Dict, List, Optional, Union

import pandas as pd

from . import _ascviz
from . import _check as check
from ._model import Model

PathLike = Union[str, os.PathLike]


class _Progress:
    """tqdm when installed (and progress=True), else a line on stderr at every tenth of the run."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.bar = None
        self.last_decile = -1
        self.last: Dict[str, Any] = {}

    def __call__(self, p: Dict[str, Any]) -> None:
        self.last = p
        if not self.enabled:
            return
        if self.bar is None:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=p["total"], initial=p["done"], unit="snippet", desc="batch")
            else:
                self.bar = False
        if self.bar:
            self.bar.n = p["done"]
            self.bar.set_postfix(tokens_per_s=f"{p['tokens_per_second']:.0f}", errors=p["errors"], refresh=False)
            self.bar.refresh()
        else:
            decile = int(10 * p["done"] / p["total"]) if p["total"] else 10
            if decile != self.last_decile:
                self.last_decile = decile
                print(f"batch: {p['done']}/{p['total']}, {p['snippets_per_second']:.1f} snippets/s, "
                      f"{p['tokens_per_second']:.0f} tokens/s", file=sys.stderr)

    def close(self) -> None:
        if self.bar:
            self.bar.close()


def batch(model: Model, corpus: PathLike, db: PathLike, resume: bool = True, *, limit: int = 0,
          batch_size: int = 1, aggregation: str = "median", language: Optional[str] = None,
          extensions: Optional[str] = None, progress: bool = True,
          on_progress: Optional[Callable[[Dict[str, Any]], None]] = None) -> Dict[str, Any]:
    """Evaluates a corpus into a results database, as `ascviz-cli batch` does (same runner, same database).

    corpus: a JSON Lines or CSV file, a folder of source files, or "default" (the bundled sample corpus).
    resume: continue `db` when it exists (refused, naming the difference, when its model, corpus or aggregation
    differ); False refuses an existing `db`. Ctrl-C (KeyboardInterrupt) stops after the current snippet and
    leaves `db` consistent and resumable; the KeyboardInterrupt is then raised again. Returns the summary: total,
    stored, resumed, errors, windowed, tokens, seconds, cancelled, complete."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be an ascviz.Model (from load_model), not {type(model).__name__}")
    corpus = check.path(corpus, "corpus")
    db = check.path(db, "db")
    check.flag(resume, "resume")
    check.integer(limit, "limit", 0, check.INT32_MAX)
    check.integer(batch_size, "batch_size", 1, check.INT32_MAX)
    aggregation = check.choice(aggregation, "aggregation", check.AGGREGATIONS)
    language = "" if language is None else _ascviz.language_id(check.string(language, "language"))
    extensions = "" if extensions is None else check.string(extensions, "extensions")
    check.flag(progress, "progress")
    if on_progress is not None and not callable(on_progress):
        raise TypeError("on_progress must be callable")
    shown = _Progress(progress)

    def report(raw: str) -> None:
        p = json.loads(raw)
        shown(p)
        if on_progress is not None:
            on_progress(p)

    try:
        summary = _ascviz.batch(model._native, corpus, db, resume, limit, batch_size, aggregation, language,
                                extensions, report)
    except KeyboardInterrupt:
        shown.close()
        p = shown.last
        # The snippet in progress is stored after the interrupt, with no progress report of its own: the count
        # is the database's, not the last report's.
        stored = _stored_snippets(db)
        if stored is None:
            stored = p["done"] if p else 0
        done = f"{stored} of {p['total']} snippets" if p else f"{stored} snippets"
        raise KeyboardInterrupt(f"batch interrupted after {done}; {db} is consistent: continue it with "
                                f"ascviz.batch(model, corpus, db, resume=True)") from None
    shown.close()
    return json.loads(summary)


def _stored_snippets(db: str) -> Optional[int]:
    """The snippets a results database holds (None when it cannot be read)."""
    uri = "file:" + os.path.abspath(db).replace("?", "%3f").replace("#", "%23") + "?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True)
        try:
            return int(con.execute("SELECT COUNT(*) FROM snippets").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return None


def report(db: PathLike, *, resamples: int = 500, seed: Optional[int] = None, min_n: int = 10) -> Dict[str, Any]:
    """The statistics of a results database: the JSON of `ascviz-cli report --json` as a dict."""
    db = check.path(db, "db")
    check.integer(resamples, "resamples", 1, check.MAX_RESAMPLES)
    seed = _ascviz.default_report_seed() if seed is None else check.integer(seed, "seed", 0, check.UINT64_MAX)
    check.integer(min_n, "min_n", 1, check.INT32_MAX)
    return json.loads(_ascviz.report_json(db, resamples, seed, min_n))


def _stat_rows(kind: str, table: Dict[str, Dict[str, Any]]) -> List[Dict[str, Any]]:
    rows = []
    for name, v in table.items():
        lo, hi = (v.get("ci95") or [None, None])[:2]
        rows.append({"kind": kind, "name": name, "median": v.get("median"), "se": v.get("se"), "ci_low": lo,
                     "ci_high": hi, "n": v.get("n"), "flag": v.get("flag"), "category": v.get("category")})
    return rows


def report_frame(rep: Dict[str, Any]) -> pd.DataFrame:
    """The report's categories (Table I) and concepts as one DataFrame: kind, name, median, se, ci_low,
    ci_high, n, flag, category."""
    rows = _stat_rows("category", rep.get("categories", {})) + _stat_rows("concept", rep.get("concepts", {}))
    return pd.DataFrame(rows, columns=["kind", "name", "median", "se", "ci_low", "ci_high", "n", "flag", "category"])


class Results:
    """A results database (schema 3) as DataFrames: snippets, tokens, nodes (its tables), run (dict), and the
    report (report_json: `report --json`; report: its categories and concepts as a DataFrame)."""

    def __init__(self, db: str):
        self.db = db
        _ascviz.check_results(db)  # core's check: a results database of a schema this build reads
        uri = "file:" + os.path.abspath(db).replace("?", "%3f").replace("#", "%23") + "?mode=ro"
        with sqlite3.connect(uri, uri=True) as con:
            self.snippets = pd.read_sql_query("SELECT * FROM snippets ORDER BY idx", con)
            self.tokens = pd.read_sql_query("SELECT * FROM tokens ORDER BY snippet, idx", con)
            self.nodes = pd.read_sql_query("SELECT * FROM nodes ORDER BY snippet, node", con)
            run = pd.read_sql_query("SELECT * FROM run", con)
        con.close()
        self.run: Dict[str, Any] = run.iloc[0].to_dict() if len(run) else {}
        self._report: Optional[Dict[str, Any]] = None

    @property
    def report_json(self) -> Dict[str, Any]:
        if self._report is None:
            self._report = report(self.db)
        return self._report

    @property
    def report(self) -> pd.DataFrame:
        return report_frame(self.report_json)

    def __repr__(self) -> str:
        return f"<ascviz.Results {self.db}: {len(self.snippets)} snippets, {len(self.tokens)} tokens>"


def open_results(db: PathLike) -> Results:
    """Opens a results database (from batch or `ascviz-cli batch`) read-only."""
    db = check.path(db, "db")
    if not os.path.isfile(db):
        raise FileNotFoundError(f"results database {db} does not exist")
    return Results(db)


def causal(db: PathLike, by: str = "global", *, seed: Optional[int] = None, min_snippets: int = 10) -> pd.DataFrame:
    """AsC-Causal (method.md §7) as `ascviz-cli analyze causal --json`: one row per group (the first is
    "global"): n, rho (AsC-Eval vs cross-entropy), rho_<confounder>, effect, se, ci_low, ci_high, placebo,
    random_common_cause, data_subset, note. The whole JSON is in df.attrs["json"]."""
    db = check.path(db, "db")
    by = check.choice(by, "by", ("global", "category", "concept"))
    seed = _ascviz.default_causal_seed() if seed is None else check.integer(seed, "seed", 0, check.UINT64_MAX)
    check.integer(min_snippets, "min_snippets", 7, check.INT32_MAX)
    j = json.loads(_ascviz.causal_json(db, by, seed, min_snippets))

    def row(group: str, e: Dict[str, Any]) -> Dict[str, Any]:
        ate = e.get("ate") or {}
        ci = ate.get("ci95") or [None, None]
        r = {"group": group, "n": e["n"], "rho": e["rho"].get("treatment")}
        for c in e.get("confounders", []):
            r["rho_" + c] = e["rho"].get(c)
        r.update({"effect": ate.get("estimate"), "se": ate.get("se"), "ci_low": ci[0], "ci_high": ci[1]})
        for k in ("placebo", "random_common_cause", "data_subset"):
            r[k] = e["refutations"][k]["estimate"]
        r["note"] = e.get("note")
        return r

    df = pd.DataFrame([row("global", j)] + [row(k, e) for k, e in j.get("by", {}).items()])
    df.attrs["json"] = j
    return df


def perplexed(db: PathLike, *, min_count: int = 5, top: int = 20, corpus: Optional[PathLike] = None,
              call_table: bool = True) -> pd.DataFrame:
    """PERPLEXED (method.md §10) as `ascviz-cli analyze perplexed --json` (core's analyzePerplexed, as the CLI's):
    the worst and best tokens and AST labels by mean cross-entropy, one row each: kind (token | label), rank
    (worst | best), position, text, mean_ce, std_ce, count. The whole JSON (calls, the call table from the
    run's corpus or `corpus`, ERROR-parented tokens) is in df.attrs["json"]; call_table=False leaves it out."""
    j = json.loads(_ascviz.analyze_perplexed(
        check.path(db, "db"), check.integer(min_count, "min_count", 1, check.INT32_MAX),
        check.integer(top, "top", 1, check.INT32_MAX), None if corpus is None else check.path(corpus, "corpus"),
        check.flag(call_table, "call_table")))
    rows = []
    for kind, key, field in (("token", "tokens", "text"), ("label", "labels", "label")):
        for rank in ("worst", "best"):
            for i, e in enumerate(j[key][rank]):
                rows.append({"kind": kind, "rank": rank, "position": i, "text": e[field], "mean_ce": e["mean_ce"],
                             "std_ce": e["std_ce"], "count": e["count"]})
    df = pd.DataFrame(rows, columns=["kind", "rank", "position", "text", "mean_ce", "std_ce", "count"])
    df.attrs["json"] = j
    return df
