// The heat map (charts.h) fitted to a page width: categories x runs of `analyze heatmap`, categories x layers
// of `analyze layers`, layers x heads of `analyze heads`.
#include "ascviz/base/error.h"
#include "parts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ascviz {
namespace {

std::string cellText(double v, bool percent)
{
    if (!percent)
        return figparts::value2(v);
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.0f", 100.0 * std::clamp(v, 0.0, 1.0));
    return buf;
}

} // namespace

Figure heatmapFigure(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                     const FigureStyle& style, const std::string& title)
{
    HeatmapFigureOptions o;
    o.title = title;
    return heatmapFigure(rows, columns, style, o);
}

Figure heatmapFigure(const std::vector<std::string>& rows, const std::vector<HeatmapColumn>& columns,
                     const FigureStyle& style, const HeatmapFigureOptions& o)
{
    using namespace figparts;
    style.validate();
    if (columns.empty())
        throw InputError("a heat map needs at least one result set");
    const ScaleSpec spec{o.blues, !o.blues};
    Figure f;
    f.widthPt = style.widthPt;
    f.title = o.title;
    const double top = drawTitle(f, style, o.title);
    const double fs = style.fontPt, tf = tickFont(style), W = f.widthPt;
    const double nCols = static_cast<double>(columns.size());
    // Row labels: wrapped at spaces into a third of the page, else keyed.
    const FittedLabels rowFit = fitLabels(rows, fs, (W - 2 * kPad) * 0.34, "R", false, 2);
    double rowW = 0;
    for (const auto& l : rowFit.lines)
        rowW = std::max(rowW, labelWidth(l, fs));
    // The legend right while the grid keeps kMinPlotShare of the page and a column of at least one line.
    LegendPlacement legend = style.legend;
    Size ls;
    if (legend == LegendPlacement::Right) {
        ls = scaleLegend(nullptr, 0, 0, W * 0.28, style, o.scaleCaption, spec);
        const double gridW = W - 2 * kPad - ls.w - 2 * kPad - rowW - 4;
        if (gridW < kMinPlotShare * W || gridW / nCols < lineHeight(tf))
            legend = LegendPlacement::Bottom;
    }
    if (legend == LegendPlacement::Bottom)
        ls = scaleLegend(nullptr, 0, 0, W - 2 * kPad, style, o.scaleCaption, spec);
    const double innerW = W - 2 * kPad - (legend == LegendPlacement::Right ? ls.w + 2 * kPad : 0);
    const double gridX = kPad + rowW + 4;
    const double colW = (kPad + innerW - gridX) / nCols;
    f.plotAreas.push_back({gridX, top, kPad + innerW, top}); // bottom set below
    // Cell values: at the label font, else the tick font, else none (the colour scale tells them).
    double valuePt = 0;
    for (double p : {fs, tf})
        if (valuePt == 0 && measureText(o.blues ? "100" : "0.00", p) <= colW - 2)
            valuePt = p;
    // Column headers: horizontal (wrapped at spaces) when every one fits, else turned 90°, else every k-th.
    std::vector<std::string> colNames;
    for (const auto& c : columns)
        colNames.push_back(c.name);
    // Headers, in order of preference: horizontal whole names; turned whole names (one line, a quarter of the
    // page); horizontal keys (M1 …); turned keys, every k-th when even those touch.
    FittedLabels head = fitLabels(colNames, tf, colW - 2, "M", true, 3);
    bool turned = false;
    if (!head.key.empty()) {
        const FittedLabels turnedWhole = fitLabels(colNames, tf, W * 0.25, "M", true, 1);
        if (turnedWhole.key.empty() && colW >= lineHeight(tf)) {
            head = turnedWhole;
            turned = true;
        } else {
            bool keysFit = true;
            for (const auto& l : head.lines)
                keysFit = keysFit && labelWidth(l, tf) <= colW - 2;
            if (!keysFit) {
                head = turnedWhole;
                turned = true;
            }
        }
    }
    std::size_t every = 1;
    double headH = 0;
    if (!turned) {
        std::size_t n = 1;
        for (const auto& l : head.lines)
            n = std::max(n, l.size());
        headH = lineHeight(tf) * static_cast<double>(n) + 2;
    } else {
        every = static_cast<std::size_t>(std::ceil(lineHeight(tf) / std::max(colW, 1e-6)));
        for (std::size_t c = 0; c < columns.size(); c += every)
            headH = std::max(headH, measureText(head.lines[c][0], tf, true) + 3);
    }
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const double cx = gridX + colW * (static_cast<double>(c) + 0.5);
        if (!turned) {
            double y = top + headH - lineHeight(tf) * static_cast<double>(head.lines[c].size()) + tf - 1;
            for (const auto& l : head.lines[c]) {
                f.text(cx, y, l, tf, TextAnchor::Middle, true);
                y += lineHeight(tf);
            }
        } else if (c % every == 0) {
            FigText t;
            t.x = cx + tf * 0.35;
            t.y = top + headH - 2;
            t.text = head.lines[c][0];
            t.sizePt = tf;
            t.bold = true;
            t.rotate = -90;
            f.items.emplace_back(t);
        }
    }
    const double rowMin = valuePt > 0 ? valuePt * 1.8 : std::min(colW, fs * 1.3);
    double y = top + headH + 1;
    bool marked = false, anyNa = false;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const double h =
            std::max({rowMin, lineHeight(fs) * static_cast<double>(rowFit.lines[r].size()) + 1, lineHeight(fs)});
        drawLabel(f, rowFit.lines[r], gridX - 4, y + h / 2, fs, TextAnchor::End);
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const auto it = columns[c].values.find(rows[r]);
            const std::optional<double> v = it == columns[c].values.end() ? std::nullopt : it->second;
            const auto cn = columns[c].counts.find(rows[r]);
            const bool few = v && cn != columns[c].counts.end() && cn->second < o.minN;
            const double x = gridX + colW * static_cast<double>(c);
            f.items.emplace_back(FigGroup{{{"data-row", rows[r]},
                                           {"data-column", std::to_string(c)},
                                           {"data-value", v ? cellText(*v, o.blues) : std::string("n/a")}}});
            FigRect cell;
            cell.x = x + 0.5;
            cell.y = y + 0.5;
            cell.w = colW - 1;
            cell.h = h - 1;
            cell.fill = scaleColour(spec, v);
            const bool picked = rows[r] == o.pickRow && columns[c].name == o.pickColumn && !o.pickRow.empty();
            if (picked) {
                cell.stroke = Rgb{214, 39, 40};
                cell.strokeWidth = 1.5;
            }
            f.items.emplace_back(cell);
            if (!v) {
                anyNa = true;
                hatch(f, cell.x, cell.y, cell.w, cell.h);
            }
            if (few) { // a dark corner: the value rests on fewer than minN pooled values
                marked = true;
                const double m = std::min({cell.w, cell.h, 5.0}) * 0.6;
                FigPath p;
                p.ops = {{'M', {cell.x, cell.y}}, {'L', {cell.x + m, cell.y}}, {'L', {cell.x, cell.y + m}}, {'Z', {}}};
                p.fill = Rgb{17, 17, 17};
                f.items.emplace_back(p);
            }
            if (valuePt > 0 && (v || measureText("n/a", valuePt) <= colW - 2))
                f.text(x + colW / 2, y + h / 2 + valuePt * 0.35, v ? cellText(*v, o.blues) : "n/a", valuePt,
                       TextAnchor::Middle, false, textColourOn(scaleColour(spec, v)));
            f.items.emplace_back(FigGroup{});
        }
        y += h;
    }
    f.plotAreas.back().y1 = y;
    double bottom = y;
    if (legend == LegendPlacement::Right) {
        scaleLegend(&f, W - kPad - ls.w, top, ls.w, style, o.scaleCaption, spec);
        bottom = std::max(bottom, top + ls.h);
    } else if (legend == LegendPlacement::Bottom) {
        scaleLegend(&f, kPad, bottom + kPad, W - 2 * kPad, style, o.scaleCaption, spec);
        bottom += kPad + ls.h;
    }
    f.heightPt = bottom + kPad;
    std::string note;
    if (valuePt == 0)
        note += "Cell values are read from the colour scale at this width. ";
    if (marked)
        note += "A dark corner marks a value over fewer than " + noBreak(std::to_string(o.minN) + " values") +
                noBreak(" (n < " + std::to_string(o.minN) + ")") + ". ";
    if (anyNa && legend == LegendPlacement::None)
        note += "Hatched grey: n/a. ";
    if (every > 1)
        note += "Every " + std::to_string(every) + (every == 2 ? "nd" : (every == 3 ? "rd" : "th")) +
                " column is labelled. ";
    std::vector<std::string> key = rowFit.key;
    key.insert(key.end(), head.key.begin(), head.key.end());
    note += keyNote(key);
    if (!o.note.empty())
        note += (note.empty() ? "" : " ") + o.note;
    if (o.captions)
        f.heightPt += drawNote(f, note, kPad, f.heightPt - kPad, W - 2 * kPad, style);
    return f;
}

} // namespace ascviz
