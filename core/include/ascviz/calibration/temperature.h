// Temperature scaling (Guo et al. 2017; docs/method.md §17): p(T) = softmax(z/T), T fitted by the mean NLL of the
// actual token on a seeded half of the snippets, reported (ECE before, T = 1, and after, T = t) on the other half.
// The ranks, hence teacher-forced labels, do not change with T.
//
// The data it needs, per token, from the forward pass: the largest logit z_max, the actual token's logit z_w and
// lse(z/T) = ln Σ_v exp(z_v/T) over the whole vocabulary for every T of the grid (temperatureGrid()). Then
// NLL(T) = lse(z/T) − z_w/T and p1(T) = exp(z_max/T − lse(z/T)) are exact without the full softmax. Today's head
// does not compute or store the grid, so a results database holds none of it: a run reports the temperature null.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace ascviz::calibration {

struct TemperatureToken {
    int64_t snippet = 0;     // the unit of the split
    double zMax = 0.0;       // the largest logit
    double zTarget = 0.0;    // the actual token's logit
    std::vector<double> lse; // lse(z/T) for each T of temperatureGrid(), in order
    bool correct = false;    // rank 1 (teacher-forced)
};

struct TemperatureFit {
    double t = 1.0;
    double eceBefore = 0.0; // equal-width ECE of p1 at T = 1 on the evaluation half
    double eceAfter = 0.0;  // ... at T = t
    int64_t fitTokens = 0, evalTokens = 0;
};

// T ∈ {0.05, 0.10, …, 5.00} (100 values; T = 1 is the 20th).
std::vector<double> temperatureGrid();

// The snippets are split by a permutation seeded with `seed` (callers mix in "temperature"): the first ⌈S/2⌉ fit,
// the rest evaluate. T minimises the fit half's mean NLL over the grid (ties: the smaller T). Null when either half
// has no token or a token's lse does not hold one value per grid T.
std::optional<TemperatureFit> fitTemperature(const std::vector<TemperatureToken>& tokens, int bins, uint64_t seed);

} // namespace ascviz::calibration
