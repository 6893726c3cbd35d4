// The reliability diagrams of `ascviz-cli analyze calibration --svg/--pdf` (issue 59; method.md §17): one panel per
// group ("global", then each category), small multiples in a grid at the page width, each the equal-width bins'
// accuracy against their mean confidence beside the diagonal of perfect calibration. Plain data, so the figure room
// needs no link to the calibration room (the CLI converts a calibration report).
#pragma once
#include "ascviz/figure/figure.h"

#include <optional>
#include <string>
#include <vector>

namespace ascviz {

struct ReliabilityFigureData {
    std::string model;             // in the title ("" leaves it out)
    std::string confidence = "p1"; // what the x axis is
    struct Bin {
        long long n = 0;         // tokens in the bin (an empty bin draws nothing)
        double confidence = 0.0; // their mean confidence
        double accuracy = 0.0;   // the share of them the model predicted (rank 1)
    };
    struct Panel {
        std::string group;         // "global" or a category
        long long n = 0;           // tokens
        std::optional<double> ece; // in the panel's heading
        std::vector<Bin> bins;     // B equal-width bins over [0, 1], in order
    };
    std::vector<Panel> panels;
};

// Panels in rows of as many as fit at least 32 mm wide (one at 40 mm, two at 85 mm, five at 178 mm), each a square
// plot: per non-empty bin b of B a bar over [b/B, (b+1)/B) up to its accuracy, the gap between accuracy and mean
// confidence shaded red, a bin over fewer than minN tokens drawn light; the diagonal dashed; ticks 0, 0.5, 1. The
// title, the axis captions and the key once. Throws InputError when there is no panel or a panel has no bin.
Figure reliabilityFigure(const ReliabilityFigureData& d, const FigureStyle& style, long long minN = 10);

} // namespace ascviz
