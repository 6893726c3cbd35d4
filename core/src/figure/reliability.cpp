// Reliability diagrams as small multiples (reliability.h).
#include "ascviz/figure/reliability.h"

#include "ascviz/base/error.h"
#include "parts.h"

#include <algorithm>
#include <cmath>

namespace ascviz {

Figure reliabilityFigure(const ReliabilityFigureData& d, const FigureStyle& style, long long minN)
{
    using namespace figparts;
    style.validate();
    if (d.panels.empty())
        throw InputError("a reliability figure needs at least one group");
    for (const auto& p : d.panels)
        if (p.bins.empty())
            throw InputError("the reliability figure's group " + p.group + " has no bins");
    const Rgb bar{70, 120, 180}, light{178, 200, 226}, gap{214, 39, 40}, grey{120, 120, 120};
    Figure f;
    f.widthPt = style.widthPt;
    const std::string title =
        "Reliability of " + d.confidence + " by category" + (d.model.empty() ? std::string() : " (" + d.model + ")");
    f.title = title;
    double y = drawTitle(f, style, title);
    const double tick = tickFont(style);
    const double avail = style.widthPt - 2 * kPad;
    const double yTicksW = measureText("0.5", tick) + 3;
    const double minPanel = 25 * kPointsPerMm;
    const int cols = std::max(1, std::min(static_cast<int>(d.panels.size()), static_cast<int>(avail / minPanel)));
    const double cellW = avail / cols;
    const double plot = cellW - yTicksW - 3 * kPad; // a square plot
    // Each heading, over the whole cell: the group's name (at most two lines), then its n and ECE (wrapped between
    // the two), both wrapped to the cell.
    const double headW = cellW - 2 * kPad;
    std::vector<std::vector<std::string>> names, stats;
    std::size_t nameLines = 1, statLines = 1;
    for (const auto& p : d.panels) {
        auto lines = wrapText(p.group, style.fontPt, headW, true);
        if (lines.size() > 2) {
            lines.resize(2);
            lines[1] += "\u2026";
        }
        nameLines = std::max(nameLines, lines.size());
        names.push_back(std::move(lines));
        const std::string st = noBreak("n = " + std::to_string(p.n)) + ", " +
                               noBreak(p.ece ? "ECE = " + value2(*p.ece) : std::string("ECE n/a"));
        stats.push_back(wrapText(st, tick, headW));
        statLines = std::max(statLines, stats.back().size());
    }
    const double headH = lineHeight(style.fontPt) * static_cast<double>(nameLines) +
                         lineHeight(tick) * static_cast<double>(statLines) + 4;
    const double cellH = headH + plot + lineHeight(tick) + kPad * 2;
    for (std::size_t i = 0; i < d.panels.size(); ++i) {
        const auto& p = d.panels[i];
        const int row = static_cast<int>(i) / cols, col = static_cast<int>(i) % cols;
        const double x0 = kPad + col * cellW + yTicksW + kPad;
        const double top = y + row * cellH;
        const double hx = kPad + col * cellW;
        double hy = top;
        for (const auto& line : names[i]) {
            hy += lineHeight(style.fontPt);
            f.text(hx, hy - style.fontPt * 0.25, line, style.fontPt, TextAnchor::Start, true);
        }
        hy = top + lineHeight(style.fontPt) * static_cast<double>(nameLines);
        for (const auto& line : stats[i]) {
            hy += lineHeight(tick);
            f.text(hx, hy - tick * 0.25, line, tick, TextAnchor::Start, false, grey);
        }
        const double py = top + headH;
        auto X = [&](double v) { return x0 + plot * std::clamp(v, 0.0, 1.0); };
        auto Y = [&](double v) { return py + plot * (1 - std::clamp(v, 0.0, 1.0)); };
        f.items.emplace_back(FigGroup({{"data-group", p.group}}));
        const double B = static_cast<double>(p.bins.size());
        for (std::size_t b = 0; b < p.bins.size(); ++b) {
            const auto& bin = p.bins[b];
            if (bin.n <= 0)
                continue;
            const double bx0 = X(b / B), bx1 = X((b + 1) / B);
            const double w = std::max(0.2, bx1 - bx0 - 0.4);
            FigRect r = Figure::makeRect(bx0 + 0.2, Y(bin.accuracy), w, plot * std::clamp(bin.accuracy, 0.0, 1.0),
                                         bin.n < minN ? light : bar);
            r.tooltip = "confidence " + value2(bin.confidence) + ", accuracy " + value2(bin.accuracy) +
                        ", n = " + std::to_string(bin.n);
            f.items.emplace_back(r);
            // The gap between accuracy and mean confidence.
            const double lo = std::min(bin.accuracy, bin.confidence), hi = std::max(bin.accuracy, bin.confidence);
            if (hi - lo > 1e-9) {
                FigRect g = Figure::makeRect(bx0 + 0.2, Y(hi), w, Y(lo) - Y(hi), std::nullopt, gap, 0.6);
                f.items.emplace_back(g);
            }
        }
        FigLine diag;
        diag.x1 = X(0);
        diag.y1 = Y(0);
        diag.x2 = X(1);
        diag.y2 = Y(1);
        diag.stroke = grey;
        diag.dashed = true;
        f.items.emplace_back(diag);
        f.items.emplace_back(FigGroup{});
        f.rect(x0, py, plot, plot, std::nullopt, Rgb{68, 68, 68}, 0.5);
        f.plotAreas.push_back({x0, py, x0 + plot, py + plot});
        for (const double v : {0.0, 0.5, 1.0}) {
            const std::string t = v == 0.5 ? "0.5" : v == 0.0 ? "0" : "1";
            f.text(X(v), py + plot + tick + 1, t, tick, TextAnchor::Middle, false, grey);
            f.text(x0 - 2, Y(v) + tick * 0.35, t, tick, TextAnchor::End, false, grey);
        }
    }
    const int rows = (static_cast<int>(d.panels.size()) + cols - 1) / cols;
    double bottom = y + rows * cellH;
    // The key and the axes, once.
    if (style.legend != LegendPlacement::None) {
        // Two entries, flowing onto a second line when the page is narrow.
        const double sw = style.fontPt;
        double x = kPad, ky = bottom + kPad;
        auto entry = [&](const std::string& text, bool filled) {
            const double w = sw + 3 + measureText(text, tick);
            if (x > kPad && x + w > style.widthPt - kPad) {
                x = kPad;
                ky += sw + 3;
            }
            if (filled)
                f.rect(x, ky, sw, sw * 0.8, bar);
            else
                f.rect(x, ky, sw, sw * 0.8, std::nullopt, gap, 0.6);
            f.text(x + sw + 3, ky + sw * 0.75, text, tick);
            x += w + 8;
        };
        entry("accuracy of a bin", true);
        entry("gap to its mean confidence", false);
        bottom = ky + sw + kPad;
    }
    bottom +=
        drawNote(f,
                 "x: the mean " + d.confidence + " of a bin's tokens (" + std::to_string(d.panels.front().bins.size()) +
                     " equal-width bins); y: their accuracy, the share the model predicted (its top-1). The "
                     "dashed diagonal is perfect calibration; bins over fewer than " +
                     noBreak(std::to_string(minN) + " tokens") + " are drawn light.",
                 kPad, bottom, avail, style);
    f.heightPt = bottom + kPad;
    return f;
}

} // namespace ascviz
