// The paper figures of `ascviz-cli figure KIND` (docs/figures.md), drawn as Figures from plain data: category
// bars with bootstrap CIs (runs side by side), per-category distributions by run (box plots, ASTxplainer
// Fig. 6), the concept treemap (Fig. 3, squarified), the heat map and the study's Likert answers. Every
// builder lays out to style.widthPt, never draws text below kMinFigureFontPt and never cuts a label (long
// labels wrap; a treemap cell too small for its label is listed in the caption instead).
#pragma once
#include "ascviz/figure/figure.h"
#include "ascviz/render/heatmap.h"

#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct StudyReport;

// One bar: a bootstrapped median with its 95 % interval over n pooled values.
struct BarValue {
    std::optional<double> median; // nullopt: the run has no value for this row
    double lo = 0, hi = 0;
    long long n = 0;
    bool tooFew = false; // n below the minimum count: drawn hollow and labelled "too few"
};
struct CategoryBarsData {
    std::vector<std::string> runs;             // unique labels (compareRuns), legend order
    std::vector<std::string> rows;             // categories, display order
    std::vector<std::vector<BarValue>> values; // [row][run]
    long long minN = 0;                        // shown in the legend
    std::string warning;                       // settings that differ (compareRuns), as a caption line
};
Figure categoryBarsFigure(const CategoryBarsData& d, const FigureStyle& style);

// Box plot statistics, the one definition for every box plot (the distribution figure, the Batch tab's chart):
// Tukey — quartiles by linear interpolation, whiskers at the furthest values within 1.5 IQR of the box but never
// inside it (a whisker whose nearest inlier lies inside the box stops at q1 / q3), the values beyond as outliers.
// No values: throws InputError — a caller whose data may be empty checks first (the figure writes "n/a", the
// GUI an empty box labelled n=0).
struct BoxStats {
    double q1 = 0, median = 0, q3 = 0, whiskerLo = 0, whiskerHi = 0;
    std::size_t n = 0;
    std::vector<double> outliers;
};
BoxStats boxStats(std::vector<double> values);
struct DistributionData {
    std::vector<std::string> runs;
    std::vector<std::string> rows;                        // categories
    std::vector<std::vector<std::vector<double>>> values; // [row][run] -> snippet-level values
    std::string warning;
    std::string title;     // "" = "Snippet-level AsC-Eval by category"
    std::string axisLabel; // "" = "snippet AsC-Eval of the category"; the axis is [0, 1] either way
    bool guides = true;    // the dashed 0.5 / 0.6 guides (AsC-Eval thresholds; off for other outcomes)
    bool outliers = true;  // dots for the values beyond the whiskers (false: not drawn, the legend says so)
};
Figure distributionFigure(const DistributionData& d, const FigureStyle& style);

// Squarified treemap (Bruls, Huizing & van Wijk 2000): rectangles for `sizes` (sorted descending, > 0)
// tiling the rectangle (x, y, w, h), each with an area proportional to its size, in the order given.
struct TreemapRect {
    double x = 0, y = 0, w = 0, h = 0;
};
std::vector<TreemapRect> squarify(const std::vector<double>& sizes, double x, double y, double w, double h);
struct TreemapItem {
    std::string name;            // concept
    std::string group;           // its category ("" when none)
    double count = 0;            // pooled node values
    std::optional<double> value; // AsC-Eval median
};
struct TreemapData {
    std::string run;
    std::vector<TreemapItem> items;
};
Figure treemapFigure(const TreemapData& d, const FigureStyle& style);

// A matrix of values in [0, 1] (rows x columns) fitted to the width: cell values printed while they fit (else
// the colour scale alone tells them), column headers horizontal, turned, or every k-th, row and column names
// that do not fit abbreviated with a key, the legend moved below when it would squeeze the grid. n/a cells are
// grey and hatched; a cell whose count (HeatmapColumn::counts) is below minN carries a dark corner mark.
struct HeatmapFigureOptions {
    std::string title = "AsC-Eval by category";
    std::string scaleCaption = "AsC-Eval";
    bool blues = false;              // white → blue scores printed in percent, no n/a (the heads' scores)
    long long minN = 10;             // counts below it are marked
    std::string pickRow, pickColumn; // a cell outlined in red ("" = none)
    std::string note;                // a caption line (settings, what the values are)
    bool captions = true;            // false: no caption lines at all (a small multiple whose last panel has them)
};
Figure heatmapFigure(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                     const FigureStyle& style, const HeatmapFigureOptions& options);
Figure heatmapFigure(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                     const FigureStyle& style, const std::string& title = "AsC-Eval by category");
// The same matrix at screen size (CSS pixels): cells 26 px high, as wide as their header, each a group with
// data-row, data-column (0-based) and data-value ("0.63" or "n/a"), the value printed in the cell, a 40-step
// colour scale below. `rows` in display order (e.g. "Global", then the categories). `analyze heatmap --svg`,
// the Analysis page and the Layers tab. Throws InputError when there is no column.
Figure heatmapViewFigure(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                         const std::string& title = "AsC-Eval by category");
std::string renderHeatmapSvg(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                             const std::string& title = "AsC-Eval by category"); // figureToSvg of the above

// Diverging stacked bars per question and condition: disagreement left of 0, agreement right, the midpoint
// of an odd scale split across 0 (the report's answers per scale point).
Figure likertFigure(const StudyReport& r, const FigureStyle& style);

// A scatter plot (the Analysis page's T vs cross-entropy): one dot per point on value axes padded by 5 % of
// each range (±0.5 when a range is empty), "nice" ticks (1, 2 or 5 x 10^k), axis captions, and an optional
// fit line y = intercept + slope * x drawn over the range of x. Throws InputError when x and y differ in size
// or hold no point, or a value is not finite.
struct ScatterFit {
    double intercept = 0, slope = 0;
    std::string label; // legend text ("adjusted effect 0.42")
};
struct ScatterData {
    std::string title; // "" = no title line
    std::string xLabel, yLabel;
    std::vector<double> x, y;
    std::optional<ScatterFit> fit;
};
Figure scatterFigure(const ScatterData& d, const FigureStyle& style);
// The tick values of a value axis over [lo, hi]: multiples of the largest step 1, 2 or 5 x 10^k that gives
// at least `minTicks` ticks inside the range.
std::vector<double> niceTicks(double lo, double hi, int minTicks = 4);

// The colour-blind-safe palette of the runs (Okabe & Ito): colour k, cycling after 8.
Rgb runColour(std::size_t k);

} // namespace ascviz
