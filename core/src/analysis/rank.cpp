// Rank statistics (rank.h).
#include "ascviz/analysis/rank.h"

#include "ascviz/analysis/regression.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace ascviz {

std::vector<double> averageRanks(const std::vector<double>& x)
{
    std::vector<std::size_t> order(x.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    std::vector<double> ranks(x.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]])
            ++j;
        const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
        for (std::size_t k = i; k <= j; ++k)
            ranks[order[k]] = rank;
        i = j + 1;
    }
    return ranks;
}

std::optional<double> spearman(const std::vector<double>& x, const std::vector<double>& y)
{
    if (x.size() != y.size())
        throw std::invalid_argument("spearman: sizes differ");
    return pearson(averageRanks(x), averageRanks(y));
}

} // namespace ascviz
