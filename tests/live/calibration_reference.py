"""Reference values for the calibration room (docs/method.md §17) from scikit-learn and numpy.

Usage: calibration_reference.py IN.json OUT.json
IN: {"bins": B, "cases": [{"confidence": [...], "correct": [...]}]}; OUT: per case brier (brier_score_loss),
auroc and auprc of s = -confidence as a predictor of an error (roc_auc_score, average_precision_score), and the
equal-width ECE and MCE computed here with numpy from §17's definition (scikit-learn has none).
"""
import json
import sys

import numpy as np
from sklearn.metrics import average_precision_score, brier_score_loss, roc_auc_score


def ece_mce(conf, correct, bins):
    idx = np.minimum(np.floor(conf * bins), bins - 1).astype(int)
    ece, mce = 0.0, 0.0
    for b in range(bins):
        m = idx == b
        if not m.any():
            continue
        gap = abs(correct[m].mean() - conf[m].mean())
        ece += m.sum() / len(conf) * gap
        mce = max(mce, gap)
    return ece, mce


def main():
    data = json.load(open(sys.argv[1]))
    bins = data["bins"]
    out = []
    for case in data["cases"]:
        conf = np.array(case["confidence"], dtype=np.float64)
        correct = np.array(case["correct"], dtype=np.float64)
        error = 1 - correct
        ece, mce = ece_mce(conf, correct, bins)
        out.append({
            "brier": float(brier_score_loss(correct, conf)),
            "auroc": float(roc_auc_score(error, -conf)),
            "auprc": float(average_precision_score(error, -conf)),
            "ece": float(ece),
            "mce": float(mce),
        })
    json.dump({"cases": out}, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
