// Pieces shared by the chart builders (not part of the public contract): the title, the legends, the
// 0..1 value axis, label wrapping into a column.
#pragma once
#include "ascviz/figure/charts.h"

#include <functional>
#include <string>
#include <vector>

namespace ascviz::figparts {

constexpr double kPad = 4.0; // points around the page and between blocks

double tickFont(const FigureStyle& s); // 0.85 x the label font, at least kMinFigureFontPt
double lineHeight(double fontPt);      // 1.25 x

// Draws the title (when style.title) at the top; returns the y where the content starts.
double drawTitle(Figure& f, const FigureStyle& s, const std::string& title);
// Lines of a wrapped label, drawn right-aligned at x (anchor End) or left (Start), vertically centred on cy.
void drawLabel(Figure& f, const std::vector<std::string>& lines, double x, double cy, double fontPt, TextAnchor a);
double labelWidth(const std::vector<std::string>& lines, double fontPt);

struct Size {
    double w = 0, h = 0;
};
// A value colour scale: the AsC-Eval scale (RdBu through white, an n/a swatch) or the heads' white → blue scores
// (ticks in percent, no n/a).
struct ScaleSpec {
    bool blues = false;
    bool na = true;
};
Rgb scaleColour(const ScaleSpec& spec, std::optional<double> v);
// The colour scale (0 → 1 with ticks) plus the n/a swatch, laid out into maxWidth; f == nullptr measures.
Size scaleLegend(Figure* f, double x, double y, double maxWidth, const FigureStyle& s, const std::string& caption,
                 const ScaleSpec& spec = {});
// n/a hatching: diagonal lines across the rectangle (spacing ~3 pt), clipped to it.
void hatch(Figure& f, double x, double y, double w, double h);

// Labels fitted to a width: each wrapped at spaces into lines no wider than maxWidth; a label that still does
// not fit (a word wider than the column) becomes a short key (prefix + number) and the key lists it in full.
struct FittedLabels {
    std::vector<std::vector<std::string>> lines;
    std::vector<std::string> key; // "C1 = Functional_Programming", in order
};
FittedLabels fitLabels(const std::vector<std::string>& names, double fontPt, double maxWidth, const std::string& prefix,
                       bool bold = false, std::size_t maxLines = 3);
// "Key: C1 = a; C2 = b." ("" when empty).
std::string keyNote(const std::vector<std::string>& key);
// Text that must not break at its spaces (e.g. "n < 10"): spaces become no-break spaces.
std::string noBreak(const std::string& s);
// One swatch per run (runColour), entries flowing into rows of maxWidth (bottom) or one per row (right).
Size runLegend(Figure* f, double x, double y, double maxWidth, const std::vector<std::string>& runs,
               const FigureStyle& s, bool column, const std::vector<std::string>& extra = {},
               const std::vector<Rgb>& colours = {});
// A horizontal 0..1 axis under a plot: ticks at 0, .25, .5, .75, 1 and dashed guides at 0.5 and 0.6 from top.
// The caption wraps to the plot's width; axisHeight is the height axis01 uses. guides = false leaves the
// 0.5 / 0.6 guides out (figures whose values are not AsC-Eval thresholds).
double axis01(Figure& f, double x0, double x1, double top, double bottom, const FigureStyle& s,
              const std::string& caption, bool guides = true);
double axisHeight(double plotWidth, const FigureStyle& s, const std::string& caption);
// Caption lines (warnings, notes) wrapped to the width, at y; returns the height used.
double drawNote(Figure& f, const std::string& text, double x, double y, double width, const FigureStyle& s);

std::string value2(double v); // "0.63"

} // namespace ascviz::figparts

namespace ascviz::figparts {

// The frame of a row chart (categories, distribution, likert): wrapped row labels on the left, a plot area,
// the legend right or below. Rows are stacked downwards; each row holds `slots` bars.
struct RowFrame {
    double plotX0 = 0, plotX1 = 0, plotTop = 0, plotBottom = 0;
    double slotH = 0;                                // one bar's height
    std::vector<double> rowTop, rowH;                // per row
    std::vector<std::vector<std::string>> labels;    // wrapped row labels
    double labelX = 0;                               // right edge of the labels
    double legendX = 0, legendY = 0, legendW = 0;    // where the caller draws its legend
    LegendPlacement legend = LegendPlacement::Right; // where it goes (Right may have moved to Bottom)
    std::vector<std::string> key;                    // abbreviated row labels
};
// legendSize(maxWidth, column) measures the legend at a width. Returns the frame; f.heightPt is set to fit. The
// layout fits the width: row labels wrap (or become keyed abbreviations, listed in `key`), a right legend that
// would leave the plot narrower than kMinPlotShare of the page moves below it, the axis caption wraps.
constexpr double kMinPlotShare = 0.4;
RowFrame layoutRows(Figure& f, const FigureStyle& s, double contentTop, const std::vector<std::string>& rows,
                    std::size_t slots, const std::function<Size(double, bool)>& legendSize,
                    const std::string& axisCaption, double extraRight = 0);

} // namespace ascviz::figparts
