// The study's Likert answers as diverging stacked bars (charts.h): per question and condition, the share of
// each scale point, disagreement left of the centre line and agreement right of it.
#include "ascviz/base/error.h"
#include "ascviz/study/report.h"
#include "parts.h"

#include <algorithm>
#include <cmath>

namespace ascviz {
namespace {

// PuOr (ColorBrewer, colour-blind safe), disagree (orange) -> agree (purple); the neutral point grey.
std::vector<Rgb> scaleColours(int points)
{
    if (points == 5)
        return {{230, 97, 1}, {253, 184, 99}, {220, 220, 220}, {178, 171, 210}, {94, 60, 153}};
    if (points == 4)
        return {{230, 97, 1}, {253, 184, 99}, {178, 171, 210}, {94, 60, 153}};
    std::vector<Rgb> out;
    for (int i = 0; i < points; ++i)
        out.push_back(ascColor(points > 1 ? 1.0 - static_cast<double>(i) / (points - 1) : 0.5));
    return out;
}

} // namespace

Figure likertFigure(const StudyReport& r, const FigureStyle& style)
{
    using namespace figparts;
    style.validate();
    if (r.questions.empty() || r.conditions.empty())
        throw InputError("a Likert chart needs a study with questions and conditions");
    Figure f;
    f.widthPt = style.widthPt;
    f.title = "Study answers";
    const double top = drawTitle(f, style, "Study answers by condition (share of answers)");
    std::vector<std::string> rows;
    std::vector<std::pair<const StudyQuestion*, std::string>> keys;
    for (const auto& q : r.questions)
        for (const auto& c : r.conditions) {
            const std::string what = conditionDescription(c);
            rows.push_back(q.id + " \u00b7 " + c + (what.empty() || what == c ? "" : " (" + what + ")"));
            keys.emplace_back(&q, c);
        }
    // The legend lists the first question's scale labels (questions share their scale in the paper's design).
    const StudyQuestion& q0 = r.questions.front();
    const auto colours = scaleColours(q0.points());
    auto legend = [&](Figure* target, double x, double y, double w, bool column) {
        return runLegend(target, x, y, w, q0.labels, style, column, {"n: answers per row"}, colours);
    };
    const double tf = tickFont(style);
    const double nW = measureText("n=0000", tf) + 2; // the answers per row, right of the bars
    const RowFrame fr = layoutRows(
        f, style, top, rows, 1, [&](double w, bool column) { return legend(nullptr, 0, 0, w, column); }, "", nW);
    const double x0 = fr.plotX0, x1 = fr.plotX1 - nW, mid = (x0 + x1) / 2, half = (x1 - x0) / 2;
    f.plotAreas.back().x1 = x1; // the bars (the sweep holds them to a third of the page)
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double cy = fr.rowTop[i] + fr.rowH[i] / 2;
        drawLabel(f, fr.labels[i], fr.labelX, cy, style.fontPt, TextAnchor::End);
        const QuestionReport& qr = r.at(keys[i].second, keys[i].first->id);
        const int points = keys[i].first->points();
        const auto cs = scaleColours(points);
        f.text(fr.plotX1, cy + tf * 0.35, "n=" + std::to_string(qr.n), tf, TextAnchor::End);
        if (qr.n == 0)
            continue;
        // Start left of the centre by the disagreeing share (+ half the neutral point).
        double left = 0;
        for (int p = 0; p < points; ++p) {
            const double share = static_cast<double>(qr.distribution[static_cast<std::size_t>(p)]) / qr.n;
            if (2 * (p + 1) < points + 1)
                left += share;
            else if (2 * (p + 1) == points + 1)
                left += share / 2;
        }
        double x = mid - left * half;
        // The row's summary on its SVG group (as the on-screen chart labels it): "44% agree, n=16".
        f.items.emplace_back(FigGroup{{{"data-row", rows[i]},
                                       {"data-summary", std::to_string(static_cast<int>(std::lround(qr.agreePct))) +
                                                            "% agree, n=" + std::to_string(qr.n)}}});
        for (int p = 0; p < points; ++p) {
            const double w = half * static_cast<double>(qr.distribution[static_cast<std::size_t>(p)]) / qr.n;
            FigRect seg;
            seg.x = x;
            seg.y = cy - fr.slotH * 0.45;
            seg.w = w;
            seg.h = fr.slotH * 0.9;
            seg.fill = cs[static_cast<std::size_t>(p)];
            seg.tooltip = keys[i].first->labels[static_cast<std::size_t>(p)] + ": " +
                          std::to_string(qr.distribution[static_cast<std::size_t>(p)]);
            f.items.emplace_back(seg);
            x += w;
        }
        f.items.emplace_back(FigGroup{});
    }
    f.line(mid, fr.plotTop, mid, fr.plotBottom, Rgb{68, 68, 68}, 0.6);
    f.line(x0, fr.plotBottom, x1, fr.plotBottom, Rgb{68, 68, 68}, 0.5);
    // Tick labels that would touch their neighbour (a narrow plot) are left out; 0 and the ends stay.
    const double labelW = measureText("100%", tf) + 2;
    for (int pct : {-100, -50, 0, 50, 100}) {
        const double tx = mid + half * pct / 100.0;
        f.line(tx, fr.plotBottom, tx, fr.plotBottom + 2, Rgb{68, 68, 68}, 0.5);
        if (std::abs(pct) == 50 && half / 2 < labelW)
            continue;
        if (std::abs(pct) == 100 && half < labelW / 2 + measureText("0%", tf) / 2 + 2)
            continue;
        f.text(tx, fr.plotBottom + 2 + tf, std::to_string(std::abs(pct)) + "%", tf, TextAnchor::Middle);
    }
    if (fr.legend != LegendPlacement::None)
        legend(&f, fr.legendX, fr.legendY, fr.legendW, fr.legend == LegendPlacement::Right);
    f.heightPt += drawNote(f, keyNote(fr.key), kPad, f.heightPt - kPad, f.widthPt - 2 * kPad, style);
    return f;
}

} // namespace ascviz
