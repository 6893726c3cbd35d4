#include "ascviz/analysis/ablationtable.h"

#include "ascviz/results/stats.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

namespace ascviz {

namespace {

// The categories in `order` first, then the others seen in `snippets` by name.
std::vector<std::string> categoriesOf(const std::vector<const std::vector<AblationSnippet>*>& sets,
                                      const std::vector<std::string>& order)
{
    std::set<std::string> seen;
    for (const auto* set : sets)
        for (const auto& s : *set)
            for (const auto& [c, v] : s.clean)
                if (s.ablated.count(c))
                    seen.insert(c);
    std::vector<std::string> out;
    for (const auto& c : order)
        if (seen.erase(c))
            out.push_back(c);
    out.insert(out.end(), seen.begin(), seen.end());
    return out;
}

std::vector<double> deltasOf(const std::vector<AblationSnippet>& snippets, const std::string& c)
{
    std::vector<double> d;
    for (const auto& s : snippets) {
        const auto a = s.ablated.find(c), b = s.clean.find(c);
        if (a != s.ablated.end() && b != s.clean.end())
            d.push_back(a->second - b->second);
    }
    return d;
}

double mean(const std::vector<double>& v)
{
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

} // namespace

std::vector<AblationRow> ablationDeltaRows(const std::vector<AblationSnippet>& snippets,
                                           const std::vector<std::string>& order, int resamples, uint64_t seed)
{
    std::vector<AblationRow> rows;
    for (const auto& c : categoriesOf({&snippets}, order)) {
        const std::vector<double> d = deltasOf(snippets, c);
        AblationRow row;
        row.category = c;
        row.n = static_cast<int>(d.size());
        row.delta = mean(d);
        std::mt19937_64 rng(groupSeed(seed, c));
        std::uniform_int_distribution<std::size_t> pick(0, d.size() - 1);
        std::vector<double> means;
        means.reserve(static_cast<std::size_t>(std::max(1, resamples)));
        for (int r = 0; r < std::max(1, resamples); ++r) {
            double sum = 0;
            for (std::size_t k = 0; k < d.size(); ++k)
                sum += d[pick(rng)];
            means.push_back(sum / static_cast<double>(d.size()));
        }
        std::sort(means.begin(), means.end());
        row.ciLow = percentileSorted(means, 2.5);
        row.ciHigh = percentileSorted(means, 97.5);
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<AblationRow> controlDeltaRows(const std::vector<std::vector<AblationSnippet>>& draws,
                                          const std::vector<std::string>& order)
{
    std::vector<const std::vector<AblationSnippet>*> sets;
    for (const auto& d : draws)
        sets.push_back(&d);
    std::vector<AblationRow> rows;
    for (const auto& c : categoriesOf(sets, order)) {
        std::vector<double> perDraw;
        AblationRow row;
        row.category = c;
        for (const auto& draw : draws) {
            const std::vector<double> d = deltasOf(draw, c);
            if (d.empty())
                continue;
            if (perDraw.empty())
                row.n = static_cast<int>(d.size());
            perDraw.push_back(mean(d));
        }
        row.delta = mean(perDraw);
        std::sort(perDraw.begin(), perDraw.end());
        row.ciLow = percentileSorted(perDraw, 2.5);
        row.ciHigh = percentileSorted(perDraw, 97.5);
        rows.push_back(std::move(row));
    }
    return rows;
}

nlohmann::json ablationRowsJson(const std::vector<AblationRow>& rows)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows)
        out.push_back(
            {{"category", r.category}, {"delta", r.delta}, {"ci_low", r.ciLow}, {"ci_high", r.ciHigh}, {"n", r.n}});
    return out;
}

} // namespace ascviz
