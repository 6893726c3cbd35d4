// Calibration and discrimination of a confidence over labelled tokens (docs/method.md §17): ECE over bins of equal
// width and of equal mass, MCE, the Brier score, AUROC and AUPRC of a score as a predictor of an error, and the
// percentile interval of bootstrap statistics. Plain functions over plain vectors; no model, no database.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ascviz::calibration {

// One token: its confidence c (a probability of being right for the calibration measures) and whether it is right.
struct Labelled {
    double confidence = 0.0;
    bool correct = false;
};

// A bin of a reliability diagram: its tokens' number, mean confidence and share of right ones (both 0 when empty).
struct ReliabilityBin {
    int64_t n = 0;
    double confidence = 0.0;
    double accuracy = 0.0;
};

// Equal width: token i in bin min(⌊c_i·B⌋, B − 1) (bins [(b−1)/B, b/B), the last one [(B−1)/B, 1]; a confidence
// outside [0, 1] is clamped into the first or last bin). B ≥ 1.
std::vector<ReliabilityBin> equalWidthBins(const std::vector<Labelled>& tokens, int bins);
// Equal mass: the tokens sorted by confidence (stable: ties keep their order), bin b holds sorted indices
// [⌊(b−1)N/B⌋, ⌊bN/B⌋); empty bins (N < B) are returned empty.
std::vector<ReliabilityBin> equalMassBins(const std::vector<Labelled>& tokens, int bins);

// Σ_b (n_b/N)·|acc_b − conf_b| over the bins (null when N = 0).
std::optional<double> expectedCalibrationError(const std::vector<ReliabilityBin>& bins);
// max_b |acc_b − conf_b| over the non-empty bins (null when all are empty).
std::optional<double> maximumCalibrationError(const std::vector<ReliabilityBin>& bins);
// (1/N)·Σ_i (c_i − correct_i)² (null when N = 0).
std::optional<double> brierScore(const std::vector<Labelled>& tokens);

// Discrimination of errors: `score` ranks towards an error (higher = more likely wrong), `error` the positive class.
// AUROC = Mann–Whitney U / (n_pos·n_neg) from average ranks (ties count half); null without a positive or a negative.
std::optional<double> auroc(const std::vector<double>& score, const std::vector<bool>& error);
// scikit-learn's average_precision_score: AP = Σ_n (R_n − R_{n−1})·P_n over the distinct thresholds in decreasing
// order, R_0 = 0 (step-wise, not interpolated); null without a positive.
std::optional<double> averagePrecision(const std::vector<double>& score, const std::vector<bool>& error);

// The 2.5–97.5 % percentiles (linear interpolation, numpy's default) of bootstrap statistics; null when empty.
std::optional<std::pair<double, double>> percentileInterval(std::vector<double> statistics);

} // namespace ascviz::calibration
