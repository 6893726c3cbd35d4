"""JSON records (the CLI's) as pandas DataFrames with stable dtypes: nullable integers stay integers."""
from __future__ import annotations

from typing import Dict, List, Sequence

import pandas as pd

# The uncertainty of the same forward pass (issue 59, method.md §17) after the NtP.
UNCERTAINTY_COLUMNS = ("entropy", "topk_entropy", "p1", "margin", "rank")
TOKEN_COLUMNS = ("id", "start", "end", "ntp", "generated") + UNCERTAINTY_COLUMNS + ("straddles",)
NODE_COLUMNS = ("id", "type", "named", "start", "end", "parent", "depth", "error", "missing", "category",
                "asc_eval", "tokens")
SCORE_TOKEN_COLUMNS = ("id", "start", "end", "ntp") + UNCERTAINTY_COLUMNS

_DTYPES: Dict[str, str] = {
    "id": "int64", "start": "int64", "end": "int64", "ntp": "float64", "generated": "bool", "straddles": "bool",
    "type": "object", "named": "bool", "parent": "Int64", "depth": "int64", "error": "bool",
    "missing": "bool", "category": "object", "asc_eval": "float64", "tokens": "object",
    "entropy": "float64", "topk_entropy": "float64", "p1": "float64", "margin": "float64", "rank": "Int64",
}


def frame(records: List[dict], columns: Sequence[str]) -> pd.DataFrame:
    """One row per record, the columns in the CLI's order; null numbers are NaN (floats) or <NA> (integers)."""
    data = {}
    for c in columns:
        values = [r.get(c) for r in records]
        dtype = _DTYPES.get(c, "object")
        if dtype == "float64":
            values = [float("nan") if v is None else v for v in values]
        data[c] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(data, columns=list(columns))


def records(df: pd.DataFrame) -> List[dict]:
    """The inverse of frame(): NaN and <NA> back to None, numpy scalars to Python ones."""
    out = []
    for row in df.to_dict("records"):
        clean = {}
        for k, v in row.items():
            if v is pd.NA or (isinstance(v, float) and v != v):
                v = None
            elif hasattr(v, "item") and not isinstance(v, (list, tuple)):
                v = v.item()
            clean[k] = v
        out.append(clean)
    return out
