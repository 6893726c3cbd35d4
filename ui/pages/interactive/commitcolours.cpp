#include "pages/interactive/commitcolours.h"

#include "pages/interactive/interactivestate.h"
#include "pages/interactive/resultcanvas.h"

#include <QCoreApplication>

#include <algorithm>
#include <array>
#include <cmath>

namespace ascviz::ui {

QColor commitColor(double t)
{
    // Three stops, linear in RGB between them: (255, 255, 204) → (65, 182, 196) → (37, 52, 148).
    static constexpr std::array<std::array<double, 3>, 3> stops{{{255, 255, 204}, {65, 182, 196}, {37, 52, 148}}};
    t = std::clamp(t, 0.0, 1.0);
    const std::size_t i = t < 0.5 ? 0 : 1;
    const double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    auto mix = [&](std::size_t c) { return int(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * u)); };
    return QColor(mix(0), mix(1), mix(2));
}

QColor noCommitColor()
{
    return QColor(235, 235, 235);
}

CommitScale commitScale(const LayerEval& le)
{
    const double L = std::max(1, le.layers);
    double lo = L, hi = 0;
    bool any = false;
    auto take = [&](double c) {
        lo = std::min(lo, c);
        hi = std::max(hi, c);
        any = true;
    };
    for (const auto& c : le.tokenCommit)
        if (c)
            take(*c);
    for (const auto& c : le.commit)
        if (c)
            take(*c);
    if (!any)
        return {0, L};
    lo = std::clamp(std::floor(lo), 0.0, L);
    hi = std::clamp(std::ceil(hi), 0.0, L);
    if (hi - lo < 1) { // one layer: a scale one layer wide around it
        if (hi < L)
            hi = lo + 1;
        else
            lo = hi - 1;
    }
    return {lo, hi};
}

void showCommitment(ResultCanvas* canvas, const LayerEval& le)
{
    const AnalysisPtr shown = canvas->state()->shown();
    if (!shown || le.layers <= 0)
        return;
    const CommitScale scale = commitScale(le);
    const auto& tokens = shown->eval->scored.tokens;
    std::vector<SpanColour> spans;
    for (std::size_t i = 0; i < tokens.size() && i < le.tokenCommit.size(); ++i)
        if (le.tokenCommit[i])
            spans.push_back({tokens[i].start, tokens[i].end, commitColor(scale.t(*le.tokenCommit[i]))});
    canvas->setSpanColours(noCommitColor(), spans, false);
    canvas->paintNodes([&](int node) -> ResultCanvas::NodeLook {
        const auto k = std::size_t(node);
        const auto c = k < le.commit.size() ? le.commit[k] : std::nullopt;
        if (!c)
            return {noCommitColor(), QCoreApplication::translate("InsidePanel", "no commitment layer"),
                    QStringLiteral("–")};
        return {
            commitColor(scale.t(*c)),
            QCoreApplication::translate("InsidePanel", "commitment layer %1 of %2").arg(*c, 0, 'g', 3).arg(le.layers),
            QCoreApplication::translate("InsidePanel", "L%1").arg(*c, 0, 'g', 3)};
    });
    canvas->setRangeScale(QCoreApplication::translate("InsidePanel", "commitment layer"), commitColor, scale.lo,
                          scale.hi, noCommitColor(), QCoreApplication::translate("InsidePanel", "none"));
}

} // namespace ascviz::ui
