// Per-category distributions of snippet-level values by run, as box plots (charts.h; ASTxplainer Fig. 6).
#include "ascviz/base/error.h"
#include "ascviz/results/stats.h"
#include "parts.h"

#include <algorithm>

namespace ascviz {
namespace {

double quantile(const std::vector<double>& sorted, double p)
{
    return percentileSorted(sorted, p * 100); // results/stats.h: numpy's linear interpolation
}

} // namespace

BoxStats boxStats(std::vector<double> values)
{
    if (values.empty())
        throw InputError("a box plot needs at least one value");
    std::sort(values.begin(), values.end());
    BoxStats b;
    b.n = values.size();
    b.q1 = quantile(values, 0.25);
    b.median = quantile(values, 0.5);
    b.q3 = quantile(values, 0.75);
    const double iqr = b.q3 - b.q1, lo = b.q1 - 1.5 * iqr, hi = b.q3 + 1.5 * iqr;
    b.whiskerLo = b.q1;
    b.whiskerHi = b.q3;
    for (double v : values) {
        if (v < lo || v > hi)
            b.outliers.push_back(v);
        else {
            b.whiskerLo = std::min(b.whiskerLo, v);
            b.whiskerHi = std::max(b.whiskerHi, v);
        }
    }
    return b;
}

Figure distributionFigure(const DistributionData& d, const FigureStyle& style)
{
    using namespace figparts;
    style.validate();
    if (d.runs.empty() || d.rows.empty())
        throw InputError("a distribution chart needs at least one run with categorized values");
    Figure f;
    f.widthPt = style.widthPt;
    f.title = d.title.empty() ? std::string("Snippet-level AsC-Eval by category") : d.title;
    const double top = drawTitle(f, style, f.title);
    const std::string boxNote = d.outliers ? "box: quartiles, whiskers: 1.5 IQR, dots: outliers"
                                           : "box: quartiles, whiskers: 1.5 IQR (outliers not drawn)";
    auto legend = [&](Figure* target, double x, double y, double w, bool column) {
        return runLegend(target, x, y, w, d.runs, style, column, {boxNote});
    };
    const double tf = tickFont(style);
    const std::string axisCaption = d.axisLabel.empty() ? std::string("snippet AsC-Eval of the category") : d.axisLabel;
    const RowFrame fr = layoutRows(
        f, style, top, d.rows, d.runs.size(), [&](double w, bool column) { return legend(nullptr, 0, 0, w, column); },
        axisCaption);
    const double span = fr.plotX1 - fr.plotX0;
    auto px = [&](double v) { return fr.plotX0 + span * std::clamp(v, 0.0, 1.0); };
    for (std::size_t r = 0; r < d.rows.size(); ++r) {
        const double cy = fr.rowTop[r] + fr.rowH[r] / 2;
        drawLabel(f, fr.labels[r], fr.labelX, cy, style.fontPt, TextAnchor::End);
        double y = cy - fr.slotH * static_cast<double>(d.runs.size()) / 2;
        for (std::size_t k = 0; k < d.runs.size(); ++k, y += fr.slotH) {
            const auto& vals = d.values[r][k];
            if (vals.empty()) {
                f.text(fr.plotX0 + 2, y + fr.slotH * 0.8, "n/a", tf, TextAnchor::Start, false, Rgb{110, 110, 110});
                continue;
            }
            const BoxStats b = boxStats(vals);
            const Rgb c = runColour(k);
            const double my = y + fr.slotH / 2, bh = fr.slotH * 0.7;
            f.line(px(b.whiskerLo), my, px(b.q1), my, c, 0.6);
            f.line(px(b.q3), my, px(b.whiskerHi), my, c, 0.6);
            FigRect box;
            box.x = px(b.q1);
            box.y = my - bh / 2;
            box.w = std::max(px(b.q3) - px(b.q1), 0.6);
            box.h = bh;
            box.fill = Rgb{static_cast<unsigned char>(255 - (255 - c.r) / 3),
                           static_cast<unsigned char>(255 - (255 - c.g) / 3),
                           static_cast<unsigned char>(255 - (255 - c.b) / 3)};
            box.stroke = c;
            box.strokeWidth = 0.6;
            box.tooltip = d.runs[k] + ": median " + value2(b.median) + ", IQR [" + value2(b.q1) + ", " + value2(b.q3) +
                          "], n=" + std::to_string(b.n);
            f.items.emplace_back(box);
            f.line(px(b.median), my - bh / 2, px(b.median), my + bh / 2, Rgb{17, 17, 17}, 1.0);
            for (double o : d.outliers ? b.outliers : std::vector<double>{}) {
                FigRect dot;
                dot.x = px(o) - 0.7;
                dot.y = my - 0.7;
                dot.w = dot.h = 1.4;
                dot.radius = 0.7;
                dot.fill = c;
                f.items.emplace_back(dot);
            }
        }
    }
    axis01(f, fr.plotX0, fr.plotX1, fr.plotTop, fr.plotBottom, style, axisCaption, d.guides);
    if (fr.legend != LegendPlacement::None)
        legend(&f, fr.legendX, fr.legendY, fr.legendW, fr.legend == LegendPlacement::Right);
    f.heightPt += drawNote(f, keyNote(fr.key), kPad, f.heightPt - kPad, f.widthPt - 2 * kPad, style);
    f.heightPt += drawNote(f, d.warning, kPad, f.heightPt - kPad, f.widthPt - 2 * kPad, style);
    return f;
}

} // namespace ascviz
