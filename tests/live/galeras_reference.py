#!/usr/bin/env python3
"""Reference Galeras treatment effects for a runs database, computed with statsmodels (test-only).

Reads the SQLite file directly (not through AsC-Viz): the rows of galeras_runs without an error and with
the outcome and every confounder; per treatment, the control's and its rows, D = 1 for the treatment's;
OLS Y ~ const + D + Z (a confounder constant over those rows is left out, as AsC-Viz does).

usage: galeras_reference.py RUNS.db OUT.json OUTCOME CONFOUNDER[,CONFOUNDER...]
"""
import json
import sqlite3
import sys

import numpy as np
import statsmodels
from statsmodels.regression.linear_model import OLS
from statsmodels.tools.tools import add_constant


def main():
    db, out_path, outcome, confounders = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
    con = sqlite3.connect(db)
    cols = ", ".join([outcome] + confounders)
    rows = con.execute(
        f"SELECT treatment, is_control, {cols} FROM galeras_runs WHERE error = '' ORDER BY rowid").fetchall()
    rows = [r for r in rows if all(v is not None for v in r[2:])]
    control = next(r[0] for r in rows if r[1])
    names = []
    for r in rows:
        if r[0] != control and r[0] not in names:
            names.append(r[0])
    result = {"statsmodels": statsmodels.__version__, "control": control, "treatments": []}
    for name in names:
        sel = [r for r in rows if r[0] in (control, name)]
        d = np.array([0.0 if r[0] == control else 1.0 for r in sel])
        y = np.array([float(r[2]) for r in sel])
        z = np.array([[float(v) for v in r[3:]] for r in sel]).reshape(len(sel), len(confounders))
        keep = [k for k in range(len(confounders)) if np.ptp(z[:, k]) > 0]
        x = add_constant(np.column_stack([d] + [z[:, k] for k in keep]), has_constant="add")
        fit = OLS(y, x).fit()
        lo, hi = fit.conf_int(alpha=0.05)[1]
        result["treatments"].append({"name": name, "n": len(sel), "ate": float(fit.params[1]),
                                     "se": float(fit.bse[1]), "ci95": [float(lo), float(hi)]})
    with open(out_path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
