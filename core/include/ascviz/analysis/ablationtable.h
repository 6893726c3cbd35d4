// The ΔAsC-Eval table of head ablation (method.md §14.1), torch-free: per category the mean of the snippets'
// deltas (ablated − clean) with a bootstrap interval over snippets, and the control over random draws.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ascviz {

// One snippet: per category, the mean of its node values (method.md §7's treatment) clean and under the ablation.
struct AblationSnippet {
    std::map<std::string, double> clean, ablated;
};

struct AblationRow {
    std::string category;
    double delta = 0, ciLow = 0, ciHigh = 0;
    int n = 0; // snippets with the category on both sides
};

// Per category (in `order`, then any other by name): Δ_c(s) = ablated − clean over the snippets that have c on
// both sides; delta = their mean; [ciLow, ciHigh] = the 2.5–97.5 % percentiles of the mean over `resamples`
// resamples of those snippets drawn with replacement by mt19937_64(groupSeed(seed, c)). Categories no snippet has
// are left out.
std::vector<AblationRow> ablationDeltaRows(const std::vector<AblationSnippet>& snippets,
                                           const std::vector<std::string>& order, int resamples, uint64_t seed);

// The control of K draws (each draw: every snippet under another random head set): per category, each draw's delta
// (the mean over its snippets), then delta = the mean over the draws and [ciLow, ciHigh] = the 2.5–97.5 %
// percentiles of the draws' deltas; n = the snippets of the first draw that have it.
std::vector<AblationRow> controlDeltaRows(const std::vector<std::vector<AblationSnippet>>& draws,
                                          const std::vector<std::string>& order);

// [{"category", "delta", "ci_low", "ci_high", "n"}]
nlohmann::json ablationRowsJson(const std::vector<AblationRow>& rows);

} // namespace ascviz
