// Rank statistics: average ranks (ties share the mean of their positions) and Spearman's ρ, Pearson's r
// of the average ranks (scipy.stats.spearmanr's definition).
#pragma once
#include <optional>
#include <vector>

namespace ascviz {

// 1-based ranks; tied values get the mean of the ranks they span.
std::vector<double> averageRanks(const std::vector<double>& x);

// nullopt when fewer than 2 pairs or either variable is constant. Throws std::invalid_argument when the
// sizes differ.
std::optional<double> spearman(const std::vector<double>& x, const std::vector<double>& y);

} // namespace ascviz
