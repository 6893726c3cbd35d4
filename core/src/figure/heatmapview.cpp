// The global heat map at screen size (charts.h): categories × result sets, each cell coloured on the AsC-Eval
// scale with its value printed — `analyze heatmap --svg`, the Analysis page's and the Layers tab's heat maps.
#include "ascviz/base/error.h"
#include "ascviz/figure/charts.h"
#include "ascviz/render/svg.h"

#include <algorithm>

namespace ascviz {

Figure heatmapViewFigure(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                         const std::string& title)
{
    if (columns.empty())
        throw InputError("a heat map needs at least one result set");
    constexpr double font = 11, cellH = 26, pad = 12, titleH = 30, legendH = 40, headH = 24;
    const Rgb grey{51, 51, 51};
    double rowHeadW = 60;
    for (const auto& r : rows)
        rowHeadW = std::max(rowHeadW, estimatedTextWidth(displayText(r), font) + 16);
    std::vector<double> colW;
    for (const auto& c : columns)
        colW.push_back(std::max(70.0, estimatedTextWidth(truncateChars(displayText(c.name), 40), font) + 16));
    double gridW = 0;
    for (double w : colW)
        gridW += w;
    Figure f;
    f.pixelUnits = true;
    f.title = title;
    f.widthPt = pad * 2 + rowHeadW + gridW;
    f.heightPt = pad * 2 + titleH + headH + cellH * static_cast<double>(rows.size()) + legendH;
    f.text(pad, pad + 16, title, 14, TextAnchor::Start, true);
    const double top = pad + titleH;
    const long long minN = HeatmapFigureOptions{}.minN; // the paper figure's threshold
    constexpr double corner = 8;
    bool few = false;
    double x = pad + rowHeadW;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        f.text(x + colW[c] / 2, top + 16, truncateChars(displayText(columns[c].name), 40), font, TextAnchor::Middle,
               true);
        x += colW[c];
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const double y = top + headH + cellH * static_cast<double>(r);
        f.text(pad + rowHeadW - 8, y + cellH / 2 + 4, displayText(rows[r]), font, TextAnchor::End);
        x = pad + rowHeadW;
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const auto it = columns[c].values.find(rows[r]);
            const std::optional<double> v = it == columns[c].values.end() ? std::nullopt : it->second;
            const Rgb fill = ascColor(v);
            const std::string shown = v ? valueText(*v) : std::string("n/a");
            f.items.emplace_back(
                FigGroup({{"data-row", rows[r]}, {"data-column", std::to_string(c)}, {"data-value", shown}}));
            f.rect(x + 1, y + 1, colW[c] - 2, cellH - 2, fill);
            // A value over fewer than minN pooled values carries the paper figure's dark corner (issue 54).
            const auto cn = columns[c].counts.find(rows[r]);
            if (v && cn != columns[c].counts.end() && cn->second < minN) {
                few = true;
                FigPath p;
                p.ops = {
                    {'M', {x + 1, y + 1}}, {'L', {x + 1 + corner, y + 1}}, {'L', {x + 1, y + 1 + corner}}, {'Z', {}}};
                p.fill = Rgb{17, 17, 17};
                f.items.emplace_back(p);
            }
            f.text(x + colW[c] / 2, y + cellH / 2 + 4, shown, font, TextAnchor::Middle, false, textColourOn(fill));
            x += colW[c];
        }
        f.items.emplace_back(FigGroup{});
    }
    // Legend: the scale with its three anchors.
    const double ly = top + headH + cellH * static_cast<double>(rows.size()) + 12;
    const double lx = pad + rowHeadW;
    const double lw = std::min(240.0, std::max(120.0, gridW));
    for (int i = 0; i < 40; ++i)
        f.rect(lx + lw * i / 40.0, ly, lw / 40.0 + 0.3, 10, ascColor((i + 0.5) / 40.0));
    for (double v : {0.0, 0.5, 1.0})
        f.text(lx + lw * v, ly + 22, valueText(v), 9, TextAnchor::Middle, false, grey);
    f.text(lx - 8, ly + 9, "AsC-Eval", 9, TextAnchor::End, false, grey);
    if (few) {
        const double kx = lx + lw + 24;
        FigPath p;
        p.ops = {{'M', {kx, ly}}, {'L', {kx + corner, ly}}, {'L', {kx, ly + corner}}, {'Z', {}}};
        p.fill = Rgb{17, 17, 17};
        f.items.emplace_back(p);
        const std::string key = "n < " + std::to_string(minN) + ": fewer than " + std::to_string(minN) + " values";
        f.text(kx + corner + 6, ly + 9, key, 9, TextAnchor::Start, false, grey);
        f.widthPt = std::max(f.widthPt, kx + corner + 6 + estimatedTextWidth(key, 9) + pad);
    }
    return f;
}

std::string renderHeatmapSvg(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                             const std::string& title)
{
    return figureToSvg(heatmapViewFigure(rows, columns, title));
}

} // namespace ascviz
