// The experts figure (expertsfigure.h): heat map panels of expert shares per sparse layer.
#include "ascviz/figure/expertsfigure.h"

#include "ascviz/base/error.h"
#include "parts.h"

#include <algorithm>

namespace ascviz {
namespace {

std::vector<HeatmapColumn> layerColumns(const ExpertsFigureData& d, const ExpertsFigureData::Layer& l)
{
    std::vector<HeatmapColumn> cols(static_cast<std::size_t>(d.experts));
    for (int e = 0; e < d.experts; ++e) {
        auto& c = cols[static_cast<std::size_t>(e)];
        c.name = "E" + std::to_string(e);
        for (const auto& cat : d.categories) {
            const auto it = l.shares.find(cat);
            c.values[cat] = it == l.shares.end() ? 0.0 : it->second[static_cast<std::size_t>(e)];
            if (const auto n = d.n.find(cat); n != d.n.end())
                c.counts[cat] = n->second;
        }
    }
    return cols;
}

} // namespace

Figure expertsFigure(const ExpertsFigureData& d, const FigureStyle& style, long long minN)
{
    using namespace figparts;
    style.validate();
    if (d.layers.empty() || d.categories.empty() || d.experts <= 0)
        throw InputError("an experts figure needs at least one layer, one category and one expert (" +
                         std::to_string(d.layers.size()) + " layers, " + std::to_string(d.categories.size()) +
                         " categories, " + std::to_string(d.experts) + " experts)");
    for (const auto& l : d.layers)
        for (const auto& [cat, shares] : l.shares)
            if (shares.size() != static_cast<std::size_t>(d.experts))
                throw InputError("the experts figure's layer " + std::to_string(l.layer) + " gives " +
                                 std::to_string(shares.size()) + " shares for " + cat + ", not " +
                                 std::to_string(d.experts));
    HeatmapFigureOptions o;
    o.blues = true;
    o.minN = minN;
    o.scaleCaption = "share of the category's tokens routed to the expert";
    o.note = "A cell: the percentage of the category's tokens whose top-" + std::to_string(d.expertsPerToken) +
             " experts at the layer include the expert (a row sums to " + std::to_string(d.expertsPerToken * 100) +
             " %).";
    const std::string title = "Experts by category (" + d.model + ")";
    if (d.layers.size() == 1) {
        o.title = title + ", layer " + std::to_string(d.layers[0].layer);
        return heatmapFigure(d.categories, layerColumns(d, d.layers[0]), style, o);
    }
    // Small multiples: the title and the colour key once, each panel headed by its layer, the captions once below.
    Figure f;
    f.widthPt = style.widthPt;
    f.title = title;
    double y = drawTitle(f, style, title);
    if (style.legend != LegendPlacement::None) // the colour key once, above the panels
        y += scaleLegend(&f, kPad, y, f.widthPt - 2 * kPad, style, o.scaleCaption, {true, false}).h + kPad;
    FigureStyle panel = style;
    panel.title = false;
    panel.legend = LegendPlacement::None;
    const double hf = style.fontPt;
    for (std::size_t i = 0; i < d.layers.size(); ++i) {
        const auto& l = d.layers[i];
        y += lineHeight(hf);
        f.text(kPad, y - hf * 0.25, "layer " + std::to_string(l.layer), hf, TextAnchor::Start, true);
        HeatmapFigureOptions po = o;
        po.captions = i + 1 == d.layers.size(); // the same for every panel (same rows, columns and counts)
        const Figure p = heatmapFigure(d.categories, layerColumns(d, l), panel, po);
        const double dy = y - kPad; // the panel's content starts at kPad (no title)
        f.append(p, 0, dy);
        for (FigBox b : p.plotAreas) {
            b.y0 += dy;
            b.y1 += dy;
            f.plotAreas.push_back(b);
        }
        y = dy + p.heightPt;
    }
    f.heightPt = y;
    return f;
}

} // namespace ascviz
