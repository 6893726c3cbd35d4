// Paper-ready tables (LaTeX, booktabs) of the corpus analyses: the model comparison in Table I's layout and
// AsC-Causal in Table II's. Also the heat map's data from result sets.
#pragma once
#include "ascviz/analysis/causal.h"
#include "ascviz/render/heatmap.h"
#include "ascviz/results/stats.h"

#include <string>
#include <utility>
#include <vector>

namespace ascviz {

// Rows: Global AsC-Eval, then every category (union over the sets); a column per set with "median ± se";
// the best median of a row in bold. Needs \usepackage{booktabs}. A `warning` (compareRuns: the settings
// that differ between the sets) is written as a comment line above the table.
std::string comparisonLatex(const std::vector<std::pair<std::string, const CorpusStats*>>& sets,
                            const std::string& warning = {});

// Rows: global, then each group; columns n, ρ(T,Y), ρ(T,Z_k), the effect (se) and its 95 % interval.
// Followed by refutationLatex(r) when the report has simulated refutations.
std::string causalLatex(const CausalReport& r);

// A second, compact table: rows as causalLatex; per refuter (placebo, random common cause, data subset) the
// mean new effect and the p-value, "%.2f"; "--" where a refuter has no successful simulation (or no p-value).
// Empty when no estimate has simulated refutations (--simulations 0).
std::string refutationLatex(const CausalReport& r);

// The heat map's rows ("Global", then the categories, union in name order) and one column per set.
std::pair<std::vector<std::string>, std::vector<HeatmapColumn>>
heatmapData(const std::vector<std::pair<std::string, const CorpusStats*>>& sets);

} // namespace ascviz
