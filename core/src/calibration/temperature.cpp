#include "ascviz/calibration/temperature.h"

#include "ascviz/calibration/metrics.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace ascviz::calibration {

std::vector<double> temperatureGrid()
{
    std::vector<double> g;
    for (int i = 1; i <= 100; ++i)
        g.push_back(static_cast<double>(i) * 0.05);
    return g;
}

std::optional<TemperatureFit> fitTemperature(const std::vector<TemperatureToken>& tokens, int bins, uint64_t seed)
{
    const std::vector<double> grid = temperatureGrid();
    std::set<int64_t> snippetSet;
    for (const TemperatureToken& t : tokens) {
        if (t.lse.size() != grid.size())
            return std::nullopt;
        snippetSet.insert(t.snippet);
    }
    std::vector<int64_t> snippets(snippetSet.begin(), snippetSet.end());
    std::shuffle(snippets.begin(), snippets.end(), std::mt19937_64(seed));
    const std::size_t half = (snippets.size() + 1) / 2;
    const std::set<int64_t> fit(snippets.begin(), snippets.begin() + static_cast<std::ptrdiff_t>(half));
    TemperatureFit out;
    std::vector<double> nll(grid.size(), 0.0);
    for (const TemperatureToken& t : tokens) {
        if (!fit.count(t.snippet))
            continue;
        ++out.fitTokens;
        for (std::size_t g = 0; g < grid.size(); ++g)
            nll[g] += t.lse[g] - t.zTarget / grid[g];
    }
    out.evalTokens = static_cast<int64_t>(tokens.size()) - out.fitTokens;
    if (out.fitTokens == 0 || out.evalTokens == 0)
        return std::nullopt;
    const std::size_t best = static_cast<std::size_t>(std::min_element(nll.begin(), nll.end()) - nll.begin());
    out.t = grid[best];
    const std::size_t one = 19; // T = 1.00
    std::vector<Labelled> before, after;
    for (const TemperatureToken& t : tokens) {
        if (fit.count(t.snippet))
            continue;
        before.push_back({std::exp(t.zMax / grid[one] - t.lse[one]), t.correct});
        after.push_back({std::exp(t.zMax / grid[best] - t.lse[best]), t.correct});
    }
    out.eceBefore = *expectedCalibrationError(equalWidthBins(before, bins));
    out.eceAfter = *expectedCalibrationError(equalWidthBins(after, bins));
    return out;
}

} // namespace ascviz::calibration
