// The heat map (categories x runs, charts.h) at a page width: today's `analyze heatmap` through the figure code.
#include "ascviz/base/error.h"
#include "parts.h"

#include <algorithm>

namespace ascviz {

Figure heatmapFigure(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                     const FigureStyle& style, const std::string& title)
{
    using namespace figparts;
    style.validate();
    if (columns.empty())
        throw InputError("a heat map needs at least one result set");
    Figure f;
    f.widthPt = style.widthPt;
    f.title = title;
    const double top = drawTitle(f, style, title);
    const double fs = style.fontPt, tf = tickFont(style);
    const bool right = style.legend == LegendPlacement::Right;
    const Size ls =
        style.legend == LegendPlacement::None
            ? Size{}
            : scaleLegend(nullptr, 0, 0, right ? f.widthPt * 0.28 : f.widthPt - 2 * kPad, style, "AsC-Eval");
    const double innerW = f.widthPt - 2 * kPad - (right ? ls.w + 2 * kPad : 0);
    std::vector<std::vector<std::string>> rowLines;
    double rowW = 0;
    for (const auto& r : rows) {
        rowLines.push_back(wrapText(r, fs, innerW * 0.35));
        rowW = std::max(rowW, labelWidth(rowLines.back(), fs));
    }
    const double gridX = kPad + rowW + 4;
    const double colW = (kPad + innerW - gridX) / static_cast<double>(columns.size());
    // Column headers wrap into their column; the header band is as tall as the tallest.
    std::vector<std::vector<std::string>> head;
    std::size_t headLines = 1;
    for (const auto& c : columns) {
        head.push_back(wrapText(c.name, tf, colW - 2, true));
        headLines = std::max(headLines, head.back().size());
    }
    const double headH = lineHeight(tf) * static_cast<double>(headLines) + 2;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        double y = top + headH - lineHeight(tf) * static_cast<double>(head[c].size()) + tf - 1;
        for (const auto& l : head[c]) {
            f.text(gridX + colW * (static_cast<double>(c) + 0.5), y, l, tf, TextAnchor::Middle, true);
            y += lineHeight(tf);
        }
    }
    double y = top + headH + 1;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const double h = std::max(fs * 1.8, lineHeight(fs) * static_cast<double>(rowLines[r].size()) + 3);
        drawLabel(f, rowLines[r], gridX - 4, y + h / 2, fs, TextAnchor::End);
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const auto it = columns[c].values.find(rows[r]);
            const std::optional<double> v = it == columns[c].values.end() ? std::nullopt : it->second;
            const double x = gridX + colW * static_cast<double>(c);
            f.items.emplace_back(FigGroup{{{"data-row", rows[r]},
                                           {"data-column", std::to_string(c)},
                                           {"data-value", v ? value2(*v) : std::string("n/a")}}});
            FigRect cell;
            cell.x = x + 0.5;
            cell.y = y + 0.5;
            cell.w = colW - 1;
            cell.h = h - 1;
            cell.fill = ascColor(v);
            f.items.emplace_back(cell);
            if (!v)
                f.line(x + 0.5, y + h - 0.5, x + colW - 0.5, y + 0.5, Rgb{120, 120, 120}, 0.4);
            f.text(x + colW / 2, y + h / 2 + fs * 0.35, v ? value2(*v) : "n/a", fs, TextAnchor::Middle, false,
                   textColourOn(ascColor(v)));
            f.items.emplace_back(FigGroup{});
        }
        y += h;
    }
    double bottom = y;
    if (right) {
        scaleLegend(&f, f.widthPt - kPad - ls.w, top, ls.w, style, "AsC-Eval");
        bottom = std::max(bottom, top + ls.h);
    } else if (style.legend == LegendPlacement::Bottom) {
        scaleLegend(&f, kPad, bottom + kPad, f.widthPt - 2 * kPad, style, "AsC-Eval");
        bottom += kPad + ls.h;
    }
    f.heightPt = bottom + kPad;
    return f;
}

} // namespace ascviz
