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
    const bool right = style.legend == LegendPlacement::Right;
    const std::string caption = "AsC-Eval (median)";
    const Size ls = style.legend == LegendPlacement::None
                        ? Size{}
                        : scaleLegend(nullptr, 0, 0, right ? f.widthPt * 0.3 : f.widthPt - 2 * kPad, style, caption);
    const double mapX = kPad, mapW = f.widthPt - 2 * kPad - (right ? ls.w + 2 * kPad : 0);
    const double mapH = mapW * 0.75, mapY = top;
    std::vector<double> gs;
    for (const auto& [g, v] : order)
        gs.push_back(total(v));
    const auto blocks = squarify(gs, mapX, mapY, mapW, mapH);
    std::size_t unlabelled = 0, keys = 0;
    std::string unbanded; // categories whose name did not fit on their block, with their concepts
    std::string unlabelledNames;
    for (std::size_t g = 0; g < blocks.size(); ++g) {
        const auto& b = blocks[g];
        const auto& items = order[g].second;
        // The category's name on a band above its cells when it fits, else in the caption.
        const bool band = b.h > lineHeight(tf) * 3 && measureText(order[g].first, tf, true) < b.w - 3;
        if (!band)
            unbanded += (unbanded.empty() ? "" : "; ") + order[g].first + ": " + joinNames(order[g].second);
        const double bandH = band ? lineHeight(tf) + 1 : 0;
        std::vector<double> cs;
        for (const auto* it : items)
            cs.push_back(it->count);
        const auto cells = squarify(cs, b.x, b.y + bandH, b.w, b.h - bandH);
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
            cell.tooltip = it.name + " (" + order[g].first + "): n=" + value2(it.count) + ", AsC-Eval " +
                           (it.value ? value2(*it.value) : std::string("n/a"));
            f.items.emplace_back(cell);
            if (!it.value) { // n/a: hatched so it differs from 0.5 also in grey print
                f.line(c.x, c.y + c.h, c.x + c.w, c.y, Rgb{120, 120, 120}, 0.4);
            }
            const std::string valueText = it.value ? value2(*it.value) : "n/a";
            const auto lines = wrapText(it.name, tf, c.w - 3);
            const double need = lineHeight(tf) * static_cast<double>(lines.size() + 1);
            if (labelWidth(lines, tf) <= c.w - 3 && need <= c.h - 2) {
                const Rgb ink = textColourOn(ascColor(it.value));
                double ty = c.y + 1 + tf;
                for (const auto& l : lines) {
                    f.text(c.x + 1.5, ty, l, tf, TextAnchor::Start, false, ink);
                    ty += lineHeight(tf);
                }
                f.text(c.x + 1.5, ty, valueText, tf, TextAnchor::Start, true, ink);
            } else {
                // A number keyed in the caption when it fits, else the name alone in the caption.
                ++unlabelled;
                const std::string key = std::to_string(keys + 1);
                const bool keyFits = measureText(key, tf) <= c.w - 1 && lineHeight(tf) <= c.h;
                if (keyFits) {
                    ++keys;
                    const Rgb ink = textColourOn(ascColor(it.value));
                    f.text(c.x + c.w / 2, c.y + c.h / 2 + tf * 0.35, key, tf, TextAnchor::Middle, false, ink);
                }
                unlabelledNames += (unlabelled > 1 ? ", " : "") + (keyFits ? key + " " : std::string("(no key) ")) +
                                   it.name + " " + valueText;
            }
            f.items.emplace_back(FigGroup{});
        }
        FigRect outline;
        outline.x = b.x;
        outline.y = b.y;
        outline.w = b.w;
        outline.h = b.h;
        outline.stroke = Rgb{17, 17, 17};
        outline.strokeWidth = 0.8;
        f.items.emplace_back(outline);
        if (band)
            f.text(b.x + 1.5, b.y + tf, order[g].first, tf, TextAnchor::Start, true);
    }
    double bottom = mapY + mapH;
    if (style.legend == LegendPlacement::Right) {
        scaleLegend(&f, f.widthPt - kPad - ls.w, top, ls.w, style, caption);
        bottom = std::max(bottom, top + ls.h);
    } else if (style.legend == LegendPlacement::Bottom) {
        scaleLegend(&f, kPad, bottom + kPad, f.widthPt - 2 * kPad, style, caption);
        bottom += kPad + ls.h;
    }
    std::string note;
    if (!unbanded.empty())
        note += "Categories too small for their name: " + unbanded + ". ";
    if (unlabelled > 0)
        note += std::to_string(unlabelled) + " cells too small for a name (numbered): " + unlabelledNames + ". ";
    if (uncategorized > 0)
        note += std::to_string(uncategorized) + " concepts without a category are not drawn.";
    f.heightPt = bottom + kPad;
    f.heightPt += drawNote(f, note, kPad, f.heightPt - kPad, f.widthPt - 2 * kPad, style);
    return f;
}

} // namespace ascviz
