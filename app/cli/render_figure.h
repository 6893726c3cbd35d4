// render's figure options (docs/cli.md): the view as a paper figure (figure room) — page width, font, title,
// legend, subtree, depth, orientation, whitespace tokens, PDF — and `--view figure5`.
#pragma once
#include "args.h"

#include "ascviz/figure/views.h"

#include <string>

namespace ascviz::cli {

struct RenderFigureArgs {
    FigureStyle style;
    ViewFigureOptions options;
    bool figure = false; // a figure option was given: draw through the figure room
};
// --subtree NODE_ID, --max-depth D, --orientation td|lr, --whitespace faint|none|full and the style options
// (figure_args.h); `layout` carries --max-graphviz-nodes.
RenderFigureArgs readRenderFigureArgs(Args& args, const LayoutOptions& layout);
// Draws `view` (complete, partial, sequence, figure5) and writes it as SVG or PDF; reports on stderr what
// was collapsed to keep the labels legible.
void writeRenderFigure(const EvalResult& r, const std::string& view, const RenderFigureArgs& a, const std::string& file,
                       bool pdf);

} // namespace ascviz::cli
