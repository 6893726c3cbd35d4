// Figure data from results databases (data.h).
#include "ascviz/figure/data.h"

#include "ascviz/base/error.h"
#include "ascviz/results/resultsdb.h"

#include <map>
#include <set>

namespace ascviz {
namespace {

std::vector<std::string> categoryRows(const std::vector<FigureRun>& runs)
{
    std::set<std::string> names;
    for (const auto& r : runs) {
        if (!r.stats)
            throw InputError("figure: a run without statistics (" + r.label + ")");
        for (const auto& [c, v] : r.stats->categories)
            names.insert(c);
    }
    if (names.empty())
        throw InputError("figure: no run has categorized values (no concept of the category tables occurs)");
    return {names.begin(), names.end()};
}

// The concept key of a node value as the statistics name it ("<language>:<type>" in mixed-language runs).
std::string conceptKey(const CorpusStats& s, const NodeValueRow& row)
{
    return s.mixedLanguages ? row.language + ":" + row.type : row.type;
}

} // namespace

CategoryBarsData categoryBarsData(const std::vector<FigureRun>& runs, const std::string& warning)
{
    CategoryBarsData d;
    d.rows = categoryRows(runs);
    d.warning = warning;
    for (const auto& r : runs) {
        d.runs.push_back(r.label);
        d.minN = std::max<long long>(d.minN, r.stats->minN);
    }
    for (const auto& row : d.rows) {
        std::vector<BarValue> vals;
        for (const auto& r : runs) {
            BarValue v;
            const auto it = r.stats->categories.find(row);
            if (it != r.stats->categories.end()) {
                v.median = it->second.median;
                v.lo = it->second.lo;
                v.hi = it->second.hi;
                v.n = it->second.n;
                v.tooFew = thresholdFlag(it->second, r.stats->minN) == ThresholdFlag::TooFew;
            }
            vals.push_back(v);
        }
        d.values.push_back(std::move(vals));
    }
    return d;
}

DistributionData distributionData(const std::vector<FigureRun>& runs, const std::string& warning)
{
    DistributionData d;
    d.rows = categoryRows(runs);
    d.warning = warning;
    std::map<std::string, std::size_t> rowIndex;
    for (std::size_t i = 0; i < d.rows.size(); ++i)
        rowIndex[d.rows[i]] = i;
    d.values.assign(d.rows.size(), std::vector<std::vector<double>>(runs.size()));
    for (std::size_t k = 0; k < runs.size(); ++k) {
        const FigureRun& r = runs[k];
        d.runs.push_back(r.label);
        if (!r.db)
            throw InputError("figure distribution: the run " + r.label + " has no results database");
        // (snippet, category) -> the snippet's node values in the category, in node order.
        std::map<std::pair<int64_t, std::size_t>, std::vector<double>> perSnippet;
        r.db->forEachNodeValue([&](const NodeValueRow& row) {
            const auto cat = r.stats->categoryOf.find(conceptKey(*r.stats, row));
            if (cat == r.stats->categoryOf.end())
                return;
            const auto ri = rowIndex.find(cat->second);
            if (ri != rowIndex.end())
                perSnippet[{row.snippet, ri->second}].push_back(row.ascEval);
        });
        for (auto& [key, values] : perSnippet)
            d.values[key.second][k].push_back(median(std::move(values)));
    }
    return d;
}

TreemapData treemapData(const FigureRun& run)
{
    if (!run.stats)
        throw InputError("figure treemap: a run without statistics");
    TreemapData d;
    d.run = run.label;
    for (const auto& [name, b] : run.stats->concepts) {
        TreemapItem it;
        it.name = name;
        it.count = static_cast<double>(b.n);
        it.value = b.median;
        const auto c = run.stats->categoryOf.find(name);
        it.group = c == run.stats->categoryOf.end() ? std::string() : c->second;
        d.items.push_back(std::move(it));
    }
    if (d.items.empty())
        throw InputError("figure treemap: the run " + run.label + " has no node values");
    return d;
}

} // namespace ascviz
