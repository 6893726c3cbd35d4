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
// The AsC-Eval colour scale (0 → 1 with ticks) plus the n/a swatch, laid out into maxWidth; draw=false measures.
Size scaleLegend(Figure* f, double x, double y, double maxWidth, const FigureStyle& s, const std::string& caption);
// One swatch per run (runColour), entries flowing into rows of maxWidth (bottom) or one per row (right).
Size runLegend(Figure* f, double x, double y, double maxWidth, const std::vector<std::string>& runs,
               const FigureStyle& s, bool column, const std::vector<std::string>& extra = {},
               const std::vector<Rgb>& colours = {});
// A horizontal 0..1 axis under a plot: ticks at 0, .25, .5, .75, 1 and dashed guides at 0.5 and 0.6 from top.
double axis01(Figure& f, double x0, double x1, double top, double bottom, const FigureStyle& s,
              const std::string& caption);
// Caption lines (warnings, notes) wrapped to the width, at y; returns the height used.
double drawNote(Figure& f, const std::string& text, double x, double y, double width, const FigureStyle& s);

std::string value2(double v); // "0.63"

} // namespace ascviz::figparts

namespace ascviz::figparts {

// The frame of a row chart (categories, distribution, likert): wrapped row labels on the left, a plot area,
// the legend right or below. Rows are stacked downwards; each row holds `slots` bars.
struct RowFrame {
    double plotX0 = 0, plotX1 = 0, plotTop = 0, plotBottom = 0;
    double slotH = 0;                             // one bar's height
    std::vector<double> rowTop, rowH;             // per row
    std::vector<std::vector<std::string>> labels; // wrapped row labels
    double labelX = 0;                            // right edge of the labels
    double legendX = 0, legendY = 0, legendW = 0; // where the caller draws its legend
};
// legendSize(maxWidth) measures the legend at a width. Returns the frame; f.heightPt is set to fit.
RowFrame layoutRows(Figure& f, const FigureStyle& s, double contentTop, const std::vector<std::string>& rows,
                    std::size_t slots, const std::function<Size(double)>& legendSize, double axisH);

} // namespace ascviz::figparts
