#!/usr/bin/env python3
"""DoWhy's own refuters on the data frame of `analyze causal` (global), for the live tier (test-only).

Reads the results database as causal_reference.py does (T = asc_eval, Y = cross_entropy, Z = the confounders
not constant over the rows), builds DoWhy's CausalModel (common causes Z), estimates backdoor.linear_regression
and runs DoWhy's refuters with SIMULATIONS simulations each: placebo_treatment_refuter (placebo_type
"permute"), random_common_cause, data_subset_refuter (subset_fraction 0.8). DoWhy has a bootstrap refuter too;
AsC-Viz has none, so it is not run.

usage: dowhy_reference.py RESULTS.db OUT.json SIMULATIONS SEED
OUT.json: {"dowhy": version, "n", "estimate", "refutations": {name: {"new_effect", "p_value"}}}
"""
import json
import logging
import os
import sqlite3
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from causal_reference import CONFOUNDERS  # noqa: E402


def main():
    db, out_path, sims, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    logging.disable(logging.WARNING)
    import dowhy
    from dowhy import CausalModel

    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT asc_eval, cross_entropy, " + ", ".join(CONFOUNDERS) + " FROM snippets "
        "WHERE status = 'ok' AND asc_eval IS NOT NULL AND cross_entropy IS NOT NULL ORDER BY idx").fetchall()
    df = pd.DataFrame(rows, columns=["t", "y"] + CONFOUNDERS).astype(float)
    common = [c for c in CONFOUNDERS if np.ptp(df[c].to_numpy()) > 0]
    model = CausalModel(data=df, treatment="t", outcome="y", common_causes=common)
    ident = model.identify_effect(proceed_when_unidentifiable=True)
    est = model.estimate_effect(ident, method_name="backdoor.linear_regression", test_significance=False)
    out = {"dowhy": dowhy.__version__, "n": int(len(df)), "estimate": float(est.value), "refutations": {}}
    runs = [("placebo", "placebo_treatment_refuter", {"placebo_type": "permute"}),
            ("random_common_cause", "random_common_cause", {}),
            ("data_subset", "data_subset_refuter", {"subset_fraction": 0.8})]
    for name, method, kw in runs:
        r = model.refute_estimate(ident, est, method_name=method, num_simulations=sims, random_seed=seed, **kw)
        out["refutations"][name] = {"new_effect": float(r.new_effect),
                                    "p_value": float(r.refutation_result["p_value"])}
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
