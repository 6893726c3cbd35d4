// Refutations of a back-door OLS effect as DoWhy 0.14 runs them (dowhy/causal_refuter.py, causal_refuters/;
// method.md §7, §12): each refuter is simulated N times (seeded) and the mean new effect is reported with the
// p-value of DoWhy's test_significance (test "auto") of a reference value against the simulated effects.
//   placebo              T replaced by a permutation of T (DoWhy's placebo_type "permute"): the new effect
//                        should be ~0. The reference value is ZERO (DoWhy hard-codes the estimate to 0 for this
//                        test): a p-value near 0 says 0 is not in the placebo distribution — the refuter FAILS.
//   random_common_cause  an added N(0,1) confounder column (DoWhy's w_random): the reference is the estimate
//   data_subset          round(subsetFraction · n) rows drawn without replacement (pandas' sample(frac=…),
//                        Python's round: half to even), default 0.8 as DoWhy: the reference is the estimate
// The p-value: with N >= 100 simulations DoWhy's two-sided percentile test (perform_bootstrap_test since DoWhy
// 0.9): q = mean over simulations of [x > v] + ½·[x == v], p = 2·min(q, 1 − q); with fewer, the normal test
// (perform_normal_distribution_test) — z = (v − mean) / sd (ddof 0, numpy's std), p = the one-sided normal
// tail beyond |z| (DoWhy's own rule, not doubled). For the random common cause and the data subset a p-value
// near 0 says the estimate moved (the refuter fails); near 1, it stands.
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct RefuteOptions {
    int simulations = 100; // per refuter
    uint64_t seed = 20230807;
    double subsetFraction = 0.8; // in (0, 1]; DoWhy's DataSubsetRefuter.DEFAULT_SUBSET_FRACTION
};

struct Refutation {
    std::string name;          // placebo | random_common_cause | data_subset
    int simulations = 0;       // simulations whose fit succeeded
    double newEffect = 0;      // their mean effect
    std::optional<double> p;   // nullopt when fewer than 2 simulations succeeded
    double reference = 0;      // the value tested against the simulations: 0 for placebo, else the estimate
    double subsetFraction = 0; // data_subset only: the share of rows each simulation keeps
};

// The design y ~ 1 + t + z: `original` is t's coefficient in it. Throws std::invalid_argument for sizes
// that differ.
std::vector<Refutation> refuteEffect(const std::vector<double>& t, const std::vector<double>& y,
                                     const std::vector<std::vector<double>>& z, double original,
                                     const RefuteOptions& opts = {});

// DoWhy's significance test of `value` against simulated effects (above); needs >= 2 simulations.
double refutationPValue(const std::vector<double>& simulated, double value);

// The rows a data subset keeps: round(fraction · n), half to even as Python's round (pandas' sample(frac=)).
// Throws std::invalid_argument for a fraction outside (0, 1].
std::size_t subsetSize(std::size_t n, double fraction);

// One line for text tables: "placebo 0.012 (p 0.430), random_common_cause 1.990 (p 0.500), ..." — each
// refuter's mean new effect and p-value ("n/a" where missing), "%.3f".
std::string refutationsText(const std::vector<Refutation>& r);

// {"placebo": {"estimate": mean new effect, "p_value": p, "simulations": N, "tested_against": 0}, ...,
//  "data_subset": {..., "subset_fraction": f}}
nlohmann::json refutationsToJson(const std::vector<Refutation>& r);

} // namespace ascviz
