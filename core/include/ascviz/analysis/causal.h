// AsC-Causal (method.md §7) over a results database: Pearson ρ of the treatment T (a snippet's AsC-Eval,
// globally or restricted to one category / concept) with the outcome Y (the snippet's cross-entropy) and
// with each confounder Z (tokens, AST nodes, AST levels, cyclomatic complexity); the average treatment
// effect by linear back-door adjustment (OLS Y ~ 1 + T + Z: T's coefficient, its standard error and
// t-based 95 % interval, as statsmodels reports them); and three refutations (placebo treatment, an added
// random common cause, a random data subset).
#pragma once
#include "ascviz/analysis/refute.h"
#include "ascviz/results/resultsdb.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct CausalOptions {
    uint64_t seed = 20230807;    // refutation draws (mixed with the group's name)
    double subsetFraction = 0.8; // the data-subset refutation keeps this share of the rows
    int minSnippets = 10;        // a group with fewer usable snippets gets ρ only (no effect)
    // The confounders adjusted for (names of causalConfounders()); empty = all. ρ is reported for all.
    std::vector<std::string> confounders;
    int simulations = 100; // refute.h: N simulations per refuter with p-values (0 = only the single draws)
};

// The rows of one analysis: T, Y and the confounders' columns, one entry per snippet.
struct CausalRows {
    std::vector<double> t, y;
    std::vector<std::vector<double>> z; // z[k][i]: confounder k of snippet i
};

struct CausalEstimate {
    int n = 0;
    std::optional<double> rhoOutcome;                                          // ρ(T, Y)
    std::vector<std::pair<std::string, std::optional<double>>> rhoConfounders; // ρ(T, Z_k), in confounder order
    bool hasEffect = false;
    double effect = 0, se = 0, lo = 0, hi = 0;                    // T's OLS coefficient, its se and 95 % interval
    std::optional<double> placebo, randomCommonCause, dataSubset; // refuted effects (one seeded draw each)
    std::vector<Refutation> refutations;                          // N simulations each, with p-values (refute.h)
    std::vector<std::string> adjusted;                            // the confounders in the regression
    std::string note; // why there is no effect (too few snippets, a singular design)
};

// The names of the confounders, in column order. checkCausalConfounders throws InputError for a name that is
// not one of them (naming the known ones).
void checkCausalConfounders(const std::vector<std::string>& names);
const std::vector<std::string>& causalConfounders();

// One analysis on given rows; `key` seeds the refutations (so a group's result does not depend on others).
CausalEstimate estimateCausal(const CausalRows& rows, const CausalOptions& opts = {},
                              const std::string& key = "global");

enum class CausalBy { Global, Category, Concept };
CausalBy parseCausalBy(const std::string& s); // "global" | "category" | "concept"; InputError otherwise

struct CausalReport {
    CausalBy by = CausalBy::Global;
    CausalEstimate global;
    std::map<std::string, CausalEstimate> groups; // category or concept -> estimate (empty for Global)
    bool mixedLanguages = false;                  // concepts are "<language>:<type>"
};

// Status-ok snippets with a cross-entropy. Per category / concept, T is the mean of the snippet's node
// values in it; snippets without such a node are excluded (not counted as 0). Categories come from each
// snippet language's bundled table, as in the report.
// `rows`, when given, receives each analysis' rows ("" = global; then the group keys) for plots.
CausalReport analyzeCausal(const ResultsDb& db, CausalBy by, const CausalOptions& opts = {},
                           std::map<std::string, CausalRows>* rows = nullptr);
// The rows analyzeCausal uses for one group ("" = global), for tests and external checks.
CausalRows causalRows(const ResultsDb& db, CausalBy by, const std::string& group);

// docs/cli.md `analyze causal`: {"n", "treatment", "outcome", "confounders", "rho", "ate", "refutations",
// "by": {key: {same fields}}}.
nlohmann::json causalToJson(const CausalReport& r);

} // namespace ascviz
