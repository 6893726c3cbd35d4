// The heads view's heat map and attention arcs as Figures (figure/heads.h, method.md §11).
#include "ascviz/base/error.h"
#include "ascviz/figure/charts.h"
#include "ascviz/figure/heads.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ascviz {
namespace {

constexpr Rgb kPick{214, 39, 40}, kEdge{44, 160, 44}, kGrid{153, 153, 153};

// White → dark blue for a score in [0, 1].
Rgb blue(double v)
{
    v = std::clamp(v, 0.0, 1.0);
    return {static_cast<unsigned char>(255 - 222 * v), static_cast<unsigned char>(255 - 172 * v),
            static_cast<unsigned char>(255 - 75 * v)};
}

} // namespace

Figure headHeatmapFigure(const std::vector<double>& scores, int layers, int heads, const std::string& title,
                         std::pair<int, int> pick)
{
    if (layers <= 0 || heads <= 0)
        throw InputError("heads heat map: needs at least one layer and one head (got " + std::to_string(layers) +
                         " x " + std::to_string(heads) + ")");
    const double font = 8, cell = kHeadMapCell;
    Figure f;
    f.title = title;
    f.widthPt = std::max(kHeadMapLeft + heads * cell + 12, 12 + measureText(title, font * 1.2));
    f.heightPt = kHeadMapTop + layers * cell + 12;
    f.rect(0, 0, f.widthPt, f.heightPt, Rgb{255, 255, 255});
    f.text(6, 14, title, font * 1.2);
    for (int hd = 0; hd < heads; ++hd)
        f.text(kHeadMapLeft + hd * cell + cell / 2, kHeadMapTop - 4, "H" + std::to_string(hd), font,
               TextAnchor::Middle);
    char buf[32];
    for (int l = 0; l < layers; ++l) {
        f.text(kHeadMapLeft - 6, kHeadMapTop + l * cell + cell / 2 + 3, "L" + std::to_string(l), font, TextAnchor::End);
        for (int hd = 0; hd < heads; ++hd) {
            const std::size_t i =
                static_cast<std::size_t>(l) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(hd);
            const double v = i < scores.size() ? scores[i] : 0.0;
            const bool picked = pick.first == l && pick.second == hd;
            const Rgb fill = blue(v);
            f.rect(kHeadMapLeft + hd * cell, kHeadMapTop + l * cell, cell, cell, fill, picked ? kPick : kGrid,
                   picked ? 2.0 : 0.5);
            std::snprintf(buf, sizeof buf, "%.0f", 100.0 * std::clamp(v, 0.0, 1.0));
            f.text(kHeadMapLeft + hd * cell + cell / 2, kHeadMapTop + l * cell + cell / 2 + 3, buf, font,
                   TextAnchor::Middle, false, textColourOn(fill));
        }
    }
    return f;
}

Figure headHeatmapPaperFigure(const std::vector<double>& scores, int layers, int heads, const std::string& title,
                              const FigureStyle& style, std::pair<int, int> pick)
{
    if (layers <= 0 || heads <= 0)
        throw InputError("heads heat map: needs at least one layer and one head (got " + std::to_string(layers) +
                         " x " + std::to_string(heads) + ")");
    std::vector<std::string> rows;
    for (int l = 0; l < layers; ++l)
        rows.push_back("L" + std::to_string(l));
    std::vector<HeatmapColumn> cols;
    for (int hd = 0; hd < heads; ++hd) {
        HeatmapColumn c;
        c.name = "H" + std::to_string(hd);
        for (int l = 0; l < layers; ++l) {
            const std::size_t i =
                static_cast<std::size_t>(l) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(hd);
            c.values[rows[static_cast<std::size_t>(l)]] = i < scores.size() ? scores[i] : 0.0;
        }
        cols.push_back(std::move(c));
    }
    HeatmapFigureOptions o;
    o.title = title;
    o.scaleCaption = "score (%), rows: layers, columns: heads";
    o.blues = true;
    if (pick.first >= 0 && pick.second >= 0) {
        o.pickRow = "L" + std::to_string(pick.first);
        o.pickColumn = "H" + std::to_string(pick.second);
    }
    return heatmapFigure(rows, cols, style, o);
}

Figure attentionArcsFigure(const std::string& text, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                           int query, const std::vector<std::pair<int, float>>& keys,
                           const std::vector<std::pair<int, int>>& edges, const std::string& title)
{
    // Monospace layout: column = bytes since the line start (a tab as one column).
    const double codePt = 10, cw = measureText("x", codePt, false, true), lh = 22, left = 8, top = 80;
    std::vector<double> cx(spans.size()), cy(spans.size());
    std::size_t line = 0, lineStart = 0, maxCol = 0;
    Figure boxes;
    for (std::size_t i = 0, b = 0; i < spans.size(); ++i) {
        for (; b < spans[i].first && b < text.size(); ++b)
            if (text[b] == '\n') {
                ++line;
                lineStart = b + 1;
            }
        std::size_t s = spans[i].first; // the box skips the token's leading whitespace
        while (s < spans[i].second && s < text.size() && (text[s] == ' ' || text[s] == '\n' || text[s] == '\t')) {
            if (text[s] == '\n') {
                ++line;
                lineStart = s + 1;
            }
            ++s;
        }
        b = s;
        const std::size_t e = std::max(s, std::min(spans[i].second, text.size()));
        const double x = left + cw * static_cast<double>(s - lineStart), y = top + lh * static_cast<double>(line);
        cx[i] = x + cw * static_cast<double>(e - s) / 2;
        cy[i] = y;
        maxCol = std::max(maxCol, e - lineStart);
        if (e == s)
            continue; // a whitespace-only token: no box
        const bool q = static_cast<int>(i) == query;
        boxes.rect(x, y - 8, cw * static_cast<double>(e - s), 15, q ? Rgb{255, 221, 153} : Rgb{242, 242, 242},
                   Rgb{204, 204, 204});
        FigText t;
        t.x = x;
        t.y = y + 3.5;
        t.text = text.substr(s, e - s);
        t.sizePt = codePt;
        t.mono = true;
        boxes.items.emplace_back(std::move(t));
    }
    Figure f;
    f.title = title;
    f.widthPt = std::max(left * 2 + cw * static_cast<double>(maxCol) + 30, 12 + measureText(title, 9.6));
    f.heightPt = top + lh * static_cast<double>(line + 1);
    f.rect(0, 0, f.widthPt, f.heightPt, Rgb{255, 255, 255});
    f.text(6, 14, title, 9.6);
    f.append(boxes, 0, 0);
    auto arc = [&](int from, int to, Rgb colour, double width, bool dashed) {
        if (from < 0 || to < 0 || static_cast<std::size_t>(from) >= spans.size() ||
            static_cast<std::size_t>(to) >= spans.size())
            return;
        const double x1 = cx[static_cast<std::size_t>(from)], y1 = cy[static_cast<std::size_t>(from)] - 8;
        const double x2 = cx[static_cast<std::size_t>(to)], y2 = cy[static_cast<std::size_t>(to)] - 8;
        const double lift = std::min(8 + 0.25 * std::abs(x1 - x2) + 0.3 * std::abs(y1 - y2), top - 24);
        FigPath p;
        p.ops = {{'M', {x1, y1}}, {'C', {x1, std::min(y1, y2) - lift, x2, std::min(y1, y2) - lift, x2, y2}}};
        p.stroke = colour;
        p.width = width;
        p.dashed = dashed;
        f.items.emplace_back(std::move(p));
    };
    for (const auto& [a, b] : edges)
        arc(b, a, kEdge, 1.2, true);
    for (const auto& [token, weight] : keys)
        arc(query, token, kPick, 0.4 + 4.5 * static_cast<double>(weight), false);
    return f;
}

} // namespace ascviz
