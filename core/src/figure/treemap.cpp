// The concept treemap (charts.h; ASTxplainer Fig. 3): categories as squarified blocks, their concepts
// squarified inside, each cell's area proportional to its count and coloured by its AsC-Eval.
#include "ascviz/base/error.h"
#include "parts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace ascviz {
namespace {

// The worst aspect ratio of a row of areas laid along a side of length `side`.
double worst(const std::vector<double>& row, double side)
{
    const double sum = std::accumulate(row.begin(), row.end(), 0.0);
    const auto [mn, mx] = std::minmax_element(row.begin(), row.end());
    const double s2 = side * side, sum2 = sum * sum;
    return std::max(s2 * *mx / sum2, sum2 / (s2 * *mn));
}

std::string joinNames(const std::vector<const TreemapItem*>& items)
{
    std::string out;
    for (const auto* it : items)
        out += (out.empty() ? "" : ", ") + it->name;
    return out;
}

} // namespace

std::vector<TreemapRect> squarify(const std::vector<double>& sizes, double x, double y, double w, double h)
{
    std::vector<TreemapRect> out;
    const double total = std::accumulate(sizes.begin(), sizes.end(), 0.0);
    if (sizes.empty() || !(total > 0) || w <= 0 || h <= 0)
        return out;
    std::vector<double> areas;
    for (double s : sizes)
        areas.push_back(std::max(s, 0.0) * w * h / total);
    std::size_t i = 0;
    while (i < areas.size()) {
        const double side = std::min(w, h);
        std::vector<double> row{areas[i]};
        std::size_t j = i + 1;
        while (j < areas.size()) {
            std::vector<double> next = row;
            next.push_back(areas[j]);
            if (worst(next, side) > worst(row, side))
                break;
            row = std::move(next);
            ++j;
        }
        const double sum = std::accumulate(row.begin(), row.end(), 0.0);
        if (j == areas.size()) { // the last row fills what is left exactly
            const bool alongW = w >= h;
            double pos = alongW ? y : x;
            for (double a : row) {
                const double len = (alongW ? h : w) * a / sum;
                out.push_back(alongW ? TreemapRect{x, pos, w, len} : TreemapRect{pos, y, len, h});
                pos += len;
            }
            break;
        }
        if (w >= h) { // a column on the left, its width sum / h
            const double cw = sum / h;
            double pos = y;
            for (double a : row) {
                out.push_back({x, pos, cw, a / cw});
                pos += a / cw;
            }
            x += cw;
            w -= cw;
        } else { // a row on the top
            const double rh = sum / w;
            double pos = x;
            for (double a : row) {
                out.push_back({pos, y, a / rh, rh});
                pos += a / rh;
            }
            y += rh;
            h -= rh;
        }
        i = j;
    }
    return out;
}

Figure treemapFigure(const TreemapData& d, const FigureStyle& style)
{
    using namespace figparts;
    style.validate();
    // The categorized concepts (Fig. 3); the uncategorized ones (punctuation, identifiers without a
    // category) are counted in the caption.
    std::map<std::string, std::vector<const TreemapItem*>> groups;
    std::size_t uncategorized = 0;
    for (const auto& it : d.items) {
        if (it.count <= 0)
            continue;
        if (it.group.empty())
            ++uncategorized;
        else
            groups[it.group].push_back(&it);
    }
    if (groups.empty())
        throw InputError("a treemap needs at least one categorized concept with values");
    std::vector<std::pair<std::string, std::vector<const TreemapItem*>>> order(groups.begin(), groups.end());
    auto total = [](const std::vector<const TreemapItem*>& v) {
        double s = 0;
        for (const auto* i : v)
            s += i->count;
        return s;
    };
    for (auto& [g, v] : order)
        std::stable_sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->count > b->count; });
    std::stable_sort(order.begin(), order.end(), [&](auto& a, auto& b) { return total(a.second) > total(b.second); });

    Figure f;
    f.widthPt = style.widthPt;
    f.title = "Concepts by count and AsC-Eval";
    const double top = drawTitle(f, style,
                                 "Concepts by count (area) and AsC-Eval (colour)" +
                                     (d.run.empty() ? std::string() : " \u00b7 " + d.run));
    const double tf = tickFont(style);
    const std::string caption = "AsC-Eval (median)";
    // The legend right only while the map keeps 70 % of the page (a narrow page puts it below).
    LegendPlacement legend = style.legend;
    Size ls;
    if (legend == LegendPlacement::Right) {
        ls = scaleLegend(nullptr, 0, 0, f.widthPt * 0.3, style, caption);
        if (f.widthPt - 4 * kPad - ls.w < 0.7 * f.widthPt)
            legend = LegendPlacement::Bottom;
    }
    if (legend == LegendPlacement::Bottom)
        ls = scaleLegend(nullptr, 0, 0, f.widthPt - 2 * kPad, style, caption);
    const bool right = legend == LegendPlacement::Right;
    const double mapX = kPad, mapW = f.widthPt - 2 * kPad - (right ? ls.w + 2 * kPad : 0);
    // A narrow page gets a square map: more cells large enough for their name, a shorter caption.
    const double mapH = mapW * (f.widthPt < 100 * kPointsPerMm ? 1.0 : 0.75), mapY = top;
    std::vector<double> gs;
    for (const auto& [g, v] : order)
        gs.push_back(total(v));
    const auto blocks = squarify(gs, mapX, mapY, mapW, mapH);
    std::size_t keys = 0, letters = 0;
    // The caption: per category (by its name or letter), the concepts whose cell had no room for its name —
    // with the number drawn in the cell, or, where not even a number fits, under their category's name only.
    std::vector<std::string> captionGroups;
    std::vector<std::string> letterKey;
    for (std::size_t g = 0; g < blocks.size(); ++g) {
        const auto& b = blocks[g];
        const auto& items = order[g].second;
        const std::string& cat = order[g].first;
        // The category's name on a band above its cells when it fits, else a letter on the band, keyed in the
        // caption; a block too small even for that is named in the caption with its concepts.
        const bool bandFits = b.h > lineHeight(tf) * 2.5;
        std::string bandText;
        if (bandFits && measureText(cat, tf, true) < b.w - 3)
            bandText = cat;
        else if (bandFits && measureText("W", tf, true) < b.w - 3) {
            bandText = std::string(1, static_cast<char>('A' + letters % 26)) +
                       (letters >= 26 ? std::to_string(letters / 26) : std::string());
            ++letters;
            letterKey.push_back(bandText + " = " + cat);
        }
        const std::string catRef = bandText.empty() ? cat + " (not drawn large enough to mark)" : bandText;
        const double bandH = bandText.empty() ? 0 : lineHeight(tf) + 1;
        std::vector<double> cs;
        for (const auto* it : items)
            cs.push_back(it->count);
        const auto cells = squarify(cs, b.x, b.y + bandH, b.w, b.h - bandH);
        std::string listed;
        for (std::size_t k = 0; k < cells.size(); ++k) {
            const auto& c = cells[k];
            const TreemapItem& it = *items[k];
            f.items.emplace_back(FigGroup{{{"data-concept", it.name}, {"data-count", value2(it.count)}}});
            FigRect cell;
            cell.x = c.x;
            cell.y = c.y;
            cell.w = c.w;
            cell.h = c.h;
            cell.fill = ascColor(it.value);
            cell.stroke = Rgb{255, 255, 255};
            cell.strokeWidth = 0.6;
            cell.tooltip = it.name + " (" + cat + "): n=" + value2(it.count) + ", AsC-Eval " +
                           (it.value ? value2(*it.value) : std::string("n/a"));
            f.items.emplace_back(cell);
            if (!it.value) // n/a: hatched so it differs from 0.5 also in grey print
                hatch(f, c.x + 0.3, c.y + 0.3, std::max(0.0, c.w - 0.6), std::max(0.0, c.h - 0.6));
            const std::string valueText = it.value ? value2(*it.value) : "n/a";
            // The name wraps at spaces only: for_statement is never split at its "_".
            const auto fitted = fitLabels({it.name}, tf, c.w - 3, "", false, 3);
            const auto& lines = fitted.lines[0];
            const double need = lineHeight(tf) * static_cast<double>(lines.size() + 1);
            const Rgb ink = textColourOn(ascColor(it.value));
            if (fitted.key.empty() && need <= c.h - 2 && measureText(valueText, tf, true) <= c.w - 3) {
                double ty = c.y + 1 + tf;
                for (const auto& l : lines) {
                    f.text(c.x + 1.5, ty, l, tf, TextAnchor::Start, false, ink);
                    ty += lineHeight(tf);
                }
                f.text(c.x + 1.5, ty, valueText, tf, TextAnchor::Start, true, ink);
            } else {
                const std::string key = std::to_string(keys + 1);
                const bool keyFits = measureText(key, tf) <= c.w - 1 && lineHeight(tf) * 0.95 <= c.h;
                if (keyFits) {
                    ++keys;
                    f.text(c.x + c.w / 2, c.y + c.h / 2 + tf * 0.35, key, tf, TextAnchor::Middle, false, ink);
                }
                listed += (listed.empty() ? "" : ", ") + (keyFits ? key + " " : std::string()) +
                          noBreak(it.name + " " + valueText);
            }
            f.items.emplace_back(FigGroup{});
        }
        if (!listed.empty() || bandText.empty())
            captionGroups.push_back(catRef + ": " + (listed.empty() ? joinNames(items) : listed));
        FigRect outline;
        outline.x = b.x;
        outline.y = b.y;
        outline.w = b.w;
        outline.h = b.h;
        outline.stroke = Rgb{17, 17, 17};
        outline.strokeWidth = 0.8;
        f.items.emplace_back(outline);
        if (!bandText.empty())
            f.text(b.x + 1.5, b.y + tf, bandText, tf, TextAnchor::Start, true);
    }
    f.plotAreas.push_back({mapX, mapY, mapX + mapW, mapY + mapH});
    double bottom = mapY + mapH;
    if (legend == LegendPlacement::Right) {
        scaleLegend(&f, f.widthPt - kPad - ls.w, top, ls.w, style, caption);
        bottom = std::max(bottom, top + ls.h);
    } else if (legend == LegendPlacement::Bottom) {
        scaleLegend(&f, kPad, bottom + kPad, f.widthPt - 2 * kPad, style, caption);
        bottom += kPad + ls.h;
    }
    std::string note = keyNote(letterKey);
    if (!captionGroups.empty()) {
        note += std::string(note.empty() ? "" : " ") + "Cells too small for their name (number in the cell):";
        for (std::size_t i = 0; i < captionGroups.size(); ++i)
            note += (i ? "; " : " ") + captionGroups[i];
        note += ".";
    }
    if (uncategorized > 0)
        note += " " + std::to_string(uncategorized) + " concepts without a category are not drawn.";
    f.heightPt = bottom + kPad;
    f.heightPt += drawNote(f, note, kPad, f.heightPt - kPad, f.widthPt - 2 * kPad, style);
    return f;
}

} // namespace ascviz
