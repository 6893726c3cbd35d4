// The data of the paper figures, read from results databases through results/ (statistics with the minimum
// count) and analysis/ (the heat map's rows): what `ascviz-cli figure` and the GUI's chart exports draw.
#pragma once
#include "ascviz/figure/charts.h"
#include "ascviz/results/stats.h"

#include <string>
#include <utility>
#include <vector>

namespace ascviz {

class ResultsDb;

// A run to draw: its unique label (compareRuns), its statistics and (for distributions) its database.
struct FigureRun {
    std::string label;
    const CorpusStats* stats = nullptr;
    const ResultsDb* db = nullptr;
};

// Rows: the categories (union over the runs, by name); a bar per run with its Table I value and CI; a value
// over fewer than stats.minN pooled node values is flagged too few.
CategoryBarsData categoryBarsData(const std::vector<FigureRun>& runs, const std::string& warning = {});
// Rows: the categories; per run, one value per snippet: the median of the snippet's node values in the
// category (categories by the run's statistics, as categoryBarsData). Needs FigureRun::db.
DistributionData distributionData(const std::vector<FigureRun>& runs, const std::string& warning = {});
// One run's concepts: count = pooled node values, value = bootstrapped median, group = category.
TreemapData treemapData(const FigureRun& run);

} // namespace ascviz
