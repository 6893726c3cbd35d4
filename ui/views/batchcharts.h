// Charts of the Batch tab (QtCharts): per-category AsC-Eval bars with 95% CI error bars (paper Fig. 3) and
// the per-model distribution of snippet AsC-Eval values as box plots (paper Fig. 6); SVG export.
#pragma once
#include "common/batchresults.h"
#include "common/figureoptions.h"

#include "ascviz/figure/charts.h"

#include <QString>

#include <vector>

class QChart;
class QChartView;

namespace ascviz::ui {

// Object names of the series the builders create (for tests and exports).
inline constexpr const char* kBarSeriesName = "categoryBars";
inline constexpr const char* kErrorBarName = "errorBar";
inline constexpr const char* kThresholdName = "threshold";
inline constexpr const char* kBoxSeriesName = "distribution";

// Clears `chart` and draws one bar set per result set over the union of their categories (sorted), with an
// I-beam QLineSeries per bar from the CI's low to high end, and dashed lines at 0.5 and 0.6. A category
// flagged "too few" in some set (fewer values than its stats.minN) has " *" on the axis, explained in the title.
// Category names stand vertical under the bars, in full (not truncated); the legend is on the right.
void buildCategoryChart(QChart* chart, const std::vector<BatchResultPtr>& sets);
// Clears `chart` and draws one box (quartiles, Tukey whiskers) per result set over its snippets' AsC-Eval.
void buildDistributionChart(QChart* chart, const std::vector<BatchResultPtr>& sets);

// The paper figure of a Batch chart (the figure room, as `ascviz-cli figure categories|distribution` draws
// it: vector SVG with text as text, or PDF when `file` ends in ".pdf"), not a grab of the widget, in the
// options' style (width, font, title, legend; default 85 mm, 8 pt).
// Categories: bars with CIs per result set; Distribution: as the screen shows it, one box per result set of
// its snippets' AsC-Eval (titled so, outliers not drawn, as the on-screen chart).
// `warning` (the settings that differ between the sets) becomes the caption's last line when options.warning.
enum class BatchChart { Categories, Distribution };
bool exportBatchFigure(BatchChart chart, const std::vector<BatchResultPtr>& sets, const QString& file,
                       const QString& warning, QString* error = nullptr,
                       const FigureExportOptions& options = FigureExportOptions{});
// The distribution figure's data as the screen draws it (one row, a box per set).
DistributionData batchDistributionData(const std::vector<BatchResultPtr>& sets, const QString& warning);

} // namespace ascviz::ui
