// The experts figure of `ascviz-cli analyze experts --svg/--pdf` (issue 42; method.md §15): per sparse layer a
// category × expert heat map of the share of a category's tokens the router sends to each expert, through the
// figure room's heat map (width, font, legend, SVG and PDF). Plain data, so the figure room needs no link to the
// experts room (the CLI converts an ExpertReport).
#pragma once
#include "ascviz/figure/figure.h"

#include <map>
#include <string>
#include <vector>

namespace ascviz {

struct ExpertsFigureData {
    std::string model;
    int experts = 0;                     // experts per sparse layer (columns E0 … E{experts-1})
    int expertsPerToken = 0;             // k (the caption says that a row's shares sum to k)
    std::vector<std::string> categories; // rows, display order
    struct Layer {
        int layer = 0;
        std::map<std::string, std::vector<double>> shares; // category -> [expert] share in [0, 1]
    };
    std::vector<Layer> layers;          // panels, in order
    std::map<std::string, long long> n; // category -> its tokens (cells over fewer than minN carry a dark corner)
};

// One panel per layer, stacked (small multiples), each headed "layer ℓ", cells in percent on the white → blue key
// (drawn once, above the panels, unless the legend is none; the captions once, below them); one layer alone is a
// single heat map with the legend where style puts it. A category without shares at a layer is drawn as 0.
// Throws InputError when there is no layer, no
// category or no expert, or a share vector's size differs from `experts`.
Figure expertsFigure(const ExpertsFigureData& d, const FigureStyle& style, long long minN = 10);

} // namespace ascviz
