#!/usr/bin/env python3
"""Reference AsC-Causal numbers for a results database, computed with statsmodels (test-only).

Reads the SQLite file directly (not through AsC-Viz): per status-ok snippet with a cross-entropy, T = its
asc_eval (global) or the mean of its nodes' asc_eval of one node type (concept; snippets without that type
are left out), Y = cross_entropy, Z = tokens, ast_nodes, ast_levels, cyclomatic (a confounder constant over
the rows is left out, as AsC-Viz does). OLS Y ~ const + T + Z; rho by numpy.corrcoef.

usage: causal_reference.py RESULTS.db OUT.json [CONCEPT ...]
"""
import json
import sqlite3
import sys

import numpy as np
import statsmodels
from statsmodels.regression.linear_model import OLS
from statsmodels.tools.tools import add_constant

CONFOUNDERS = ["tokens", "ast_nodes", "ast_levels", "cyclomatic"]


def analyse(t, y, z):
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    z = np.asarray(z, dtype=float).reshape(len(t), len(CONFOUNDERS))
    out = {"n": int(len(t)), "rho": {"treatment": float(np.corrcoef(t, y)[0, 1])}}
    for k, name in enumerate(CONFOUNDERS):
        out["rho"][name] = float(np.corrcoef(t, z[:, k])[0, 1]) if np.ptp(z[:, k]) > 0 else None
    keep = [k for k in range(len(CONFOUNDERS)) if np.ptp(z[:, k]) > 0]
    x = add_constant(np.column_stack([t] + [z[:, k] for k in keep]), has_constant="add")
    fit = OLS(y, x).fit()
    lo, hi = fit.conf_int(alpha=0.05)[1]
    out["ate"] = {"estimate": float(fit.params[1]), "se": float(fit.bse[1]), "ci95": [float(lo), float(hi)]}
    return out


def main():
    db, out_path, concepts = sys.argv[1], sys.argv[2], sys.argv[3:]
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT idx, asc_eval, cross_entropy, tokens, ast_nodes, ast_levels, cyclomatic FROM snippets "
        "WHERE status = 'ok' AND asc_eval IS NOT NULL AND cross_entropy IS NOT NULL ORDER BY idx").fetchall()
    result = {"statsmodels": statsmodels.__version__, "global": analyse([r[1] for r in rows], [r[2] for r in rows], [r[3:] for r in rows]), "by": {}}
    for concept in concepts:
        means = dict(con.execute(
            "SELECT n.snippet, AVG(n.asc_eval) FROM nodes n JOIN snippets s ON s.idx = n.snippet "
            "WHERE s.status = 'ok' AND n.asc_eval IS NOT NULL AND n.type = ? GROUP BY n.snippet", (concept,)).fetchall())
        sel = [r for r in rows if r[0] in means]
        result["by"][concept] = analyse([means[r[0]] for r in sel], [r[2] for r in sel], [r[3:] for r in sel])
    with open(out_path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
