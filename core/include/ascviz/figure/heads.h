// The heads view's two pictures (method.md §11) as Figures (SVG in mm, PDF through Cairo): the layer × head heat
// map of a relation's scores and the attention arcs over the code. Plain arguments (no attention types), so the
// figure room needs no link to the attention room.
#pragma once
#include "ascviz/figure/figure.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

// The heat map's geometry in points: cell (layer l, head h) is the square at (kHeadMapLeft + h * kHeadMapCell,
// kHeadMapTop + l * kHeadMapCell).
constexpr double kHeadMapCell = 24, kHeadMapLeft = 40, kHeadMapTop = 34;

// The layer × head heat map of scores in [0, 1] (`scores[layer * heads + head]`, percent in each cell), one row
// per layer, with a title; `pick` (layer, head) is outlined in red (-1: none). Throws InputError when layers or
// heads is not positive.
Figure headHeatmapFigure(const std::vector<double>& scores, int layers, int heads, const std::string& title,
                         std::pair<int, int> pick = {-1, -1});

// The same heat map as a paper figure fitted to style (heatmapFigure: the width, the font, the legend, the title
// wrapped and never setting the width): rows L0 … , columns H0 … , scores in percent on a white → blue colour key.
Figure headHeatmapPaperFigure(const std::vector<double>& scores, int layers, int heads, const std::string& title,
                              const FigureStyle& style, std::pair<int, int> pick = {-1, -1});

// The code with its tokens boxed (monospace, one line per text line) and curves: red from `query` to each key
// (token, weight; width by weight; token -1 = BOS is not drawn) and, dashed green, each relation edge (head
// token → dependent token) of `edges`.
Figure attentionArcsFigure(const std::string& text, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                           int query, const std::vector<std::pair<int, float>>& keys,
                           const std::vector<std::pair<int, int>>& edges, const std::string& title);

} // namespace ascviz
