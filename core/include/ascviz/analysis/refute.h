// Refutations of a back-door OLS effect as DoWhy runs them (method.md §7, §12): each refuter is simulated N
// times (seeded), the mean new effect is reported with a p-value of the original estimate against the
// distribution of the simulated effects.
//   placebo              T replaced by a permutation of T (its link to Y broken): the new effect should be ~0
//   random_common_cause  an added N(0,1) confounder column: the new effect should equal the original
//   data_subset          a random subset (subsetFraction of the rows): the new effect should stay close
// The p-value (DoWhy's CausalRefuter.test_significance, test "auto"): with N >= 100 simulations the empirical
// test — the simulated effects sorted, k = the number below the original estimate (numpy.searchsorted, left),
// k := N − k when k >= N/2, p = k / N; with fewer, the normal test — z = (estimate − mean) / sd (sample sd,
// ddof 0 as numpy), p = the one-sided normal tail beyond |z|. A placebo p-value near 0 says the estimate is not
// what a random treatment gives; a random-common-cause or data-subset p-value near 0 says the estimate moved.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct RefuteOptions {
    int simulations = 100; // per refuter
    uint64_t seed = 20230807;
    double subsetFraction = 0.8;
};

struct Refutation {
    std::string name;        // placebo | random_common_cause | data_subset
    int simulations = 0;     // simulations whose fit succeeded
    double newEffect = 0;    // their mean effect
    std::optional<double> p; // nullopt when fewer than 2 simulations succeeded
};

// The design y ~ 1 + t + z: `original` is t's coefficient in it. Throws std::invalid_argument for sizes
// that differ.
std::vector<Refutation> refuteEffect(const std::vector<double>& t, const std::vector<double>& y,
                                     const std::vector<std::vector<double>>& z, double original,
                                     const RefuteOptions& opts = {});

// DoWhy's significance test of `estimate` against simulated effects (above).
double refutationPValue(std::vector<double> simulated, double estimate);

// One line for text tables: "placebo 0.012 (p 0.430), random_common_cause 1.990 (p 0.500), ..." — each
// refuter's mean new effect and p-value ("n/a" where missing), "%.3f".
std::string refutationsText(const std::vector<Refutation>& r);

// {"placebo": {"estimate": mean new effect, "p_value": p, "simulations": N}, ...}
nlohmann::json refutationsToJson(const std::vector<Refutation>& r);

} // namespace ascviz
