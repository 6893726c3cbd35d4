// SVG export of the AST and sequence views (method.md §8), drawn from the same GraphLayout as the GUI.
#pragma once
#include "ascviz/render/layout.h"

#include <string>

namespace ascviz {

// Standalone SVG documents (title line, the view, legend). Node groups carry id="node-<id>" and
// data-node/data-type/data-start/data-end; token groups carry data-token (sequence view).
// Beyond options.maxGraphvizNodes shown nodes the tree layout is used and the title line says so.
std::string renderAstSvg(const EvalResult& r, AstView view, const LayoutOptions& options = {});
std::string renderSequenceSvg(const EvalResult& r);

} // namespace ascviz
