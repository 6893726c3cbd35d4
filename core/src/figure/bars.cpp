// Category bars with bootstrap CIs, runs side by side (charts.h).
#include "ascviz/base/error.h"
#include "parts.h"

#include <algorithm>

namespace ascviz {

Rgb runColour(std::size_t k)
{
    static const Rgb okabeIto[8] = {{0, 114, 178},  {230, 159, 0}, {0, 158, 115},  {204, 121, 167},
                                    {86, 180, 233}, {213, 94, 0},  {240, 228, 66}, {0, 0, 0}};
    return okabeIto[k % 8];
}

Figure categoryBarsFigure(const CategoryBarsData& d, const FigureStyle& style)
{
    using namespace figparts;
    style.validate();
    if (d.runs.empty() || d.rows.empty())
        throw InputError("a category chart needs at least one run with categorized values");
    Figure f;
    f.widthPt = style.widthPt;
    f.title = "AsC-Eval by category";
    const double top = drawTitle(f, style, "AsC-Eval by category (bootstrapped median, 95% CI)");
    const std::string tooFew = "hollow: too few " + noBreak("(n < " + std::to_string(d.minN) + ")");
    auto legend = [&](Figure* target, double x, double y, double w, bool column) {
        return runLegend(target, x, y, w, d.runs, style, column, {tooFew});
    };
    const double tf = tickFont(style);
    const RowFrame fr = layoutRows(
        f, style, top, d.rows, d.runs.size(), [&](double w, bool column) { return legend(nullptr, 0, 0, w, column); },
        "AsC-Eval (guides at 0.5 and 0.6)");
    for (std::size_t r = 0; r < d.rows.size(); ++r) {
        const double cy = fr.rowTop[r] + fr.rowH[r] / 2;
        drawLabel(f, fr.labels[r], fr.labelX, cy, style.fontPt, TextAnchor::End);
        const double groupH = fr.slotH * static_cast<double>(d.runs.size());
        double y = cy - groupH / 2;
        for (std::size_t k = 0; k < d.runs.size(); ++k, y += fr.slotH) {
            const BarValue& v = d.values[r][k];
            const double span = fr.plotX1 - fr.plotX0;
            if (!v.median) {
                f.text(fr.plotX0 + 2, y + fr.slotH * 0.8, "n/a", tf, TextAnchor::Start, false, Rgb{110, 110, 110});
                continue;
            }
            const double m = std::clamp(*v.median, 0.0, 1.0);
            FigRect bar;
            bar.x = fr.plotX0;
            bar.y = y + fr.slotH * 0.1;
            bar.w = span * m;
            bar.h = fr.slotH * 0.8;
            bar.stroke = runColour(k);
            bar.strokeWidth = 0.6;
            if (!v.tooFew)
                bar.fill = runColour(k);
            bar.tooltip = d.runs[k] + ": " + value2(*v.median) + " [" + value2(v.lo) + ", " + value2(v.hi) +
                          "], n=" + std::to_string(v.n) + (v.tooFew ? ", too few" : "");
            f.items.emplace_back(bar);
            const double lo = fr.plotX0 + span * std::clamp(v.lo, 0.0, 1.0);
            const double hi = fr.plotX0 + span * std::clamp(v.hi, 0.0, 1.0);
            const double my = y + fr.slotH / 2;
            f.line(lo, my, hi, my, Rgb{17, 17, 17}, 0.6);
            f.line(lo, my - fr.slotH * 0.25, lo, my + fr.slotH * 0.25, Rgb{17, 17, 17}, 0.6);
            f.line(hi, my - fr.slotH * 0.25, hi, my + fr.slotH * 0.25, Rgb{17, 17, 17}, 0.6);
        }
    }
    axis01(f, fr.plotX0, fr.plotX1, fr.plotTop, fr.plotBottom, style, "AsC-Eval (guides at 0.5 and 0.6)");
    if (fr.legend != LegendPlacement::None)
        legend(&f, fr.legendX, fr.legendY, fr.legendW, fr.legend == LegendPlacement::Right);
    f.heightPt += drawNote(f, keyNote(fr.key), kPad, f.heightPt - kPad, f.widthPt - 2 * kPad, style);
    f.heightPt += drawNote(f, d.warning, kPad, f.heightPt - kPad, f.widthPt - 2 * kPad, style);
    return f;
}

} // namespace ascviz
