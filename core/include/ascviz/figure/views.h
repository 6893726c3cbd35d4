// The three views of one evaluation as paper figures (docs/figures.md): the AST view scaled to the page
// width, collapsing deep levels first so that node labels stay at least kMinFigureFontPt; the sequence view
// with whitespace tokens faint; and `figure5` (ASTxplainer Fig. 5): the code with the completion highlighted
// above the AST view. Legends go below the view (or nowhere with LegendPlacement::None).
#pragma once
#include "ascviz/base/error.h"
#include "ascviz/figure/figure.h"
#include "ascviz/render/layout.h"
#include "ascviz/render/svg.h"

#include <string>

namespace ascviz {

struct ViewFigureOptions {
    LayoutOptions layout;                                  // subtree, max depth, orientation, Graphviz limit
    WhitespaceTokens whitespace = WhitespaceTokens::Faint; // the sequence view
    // Collapse deep levels (below layout.maxDepth when it is set) to keep labels legible at the width.
    bool autoCollapse = true;
    // When even collapsing cannot keep the whole tree legible: also try the other orientation and keep the
    // one that shows more levels (off when the user chose the orientation).
    bool autoOrientation = true;
};

struct ViewFigure {
    Figure figure;
    double labelPt = 0;               // the node label / code font drawn
    int maxDepth = -1;                // the depth limit used (-1: none)
    std::string note;                 // what was done to fit (collapsed levels, a page wider than asked), for the user
    Remedy noteRemedy = Remedy::None; // the settings that change what the note says (front ends name them)
};

ViewFigure astFigure(const EvalResult& r, AstView view, const FigureStyle& style, const ViewFigureOptions& options);
ViewFigure sequenceFigure(const EvalResult& r, const FigureStyle& style, const ViewFigureOptions& options);
ViewFigure figure5(const EvalResult& r, AstView view, const FigureStyle& style, const ViewFigureOptions& options);

// The GUI's views as standalone pictures at screen size (`render` without figure options, the GUI's exports):
// render's layout unscaled, in CSS pixels, with a title block and the legend's colour bar below. Node groups
// carry id="node-<id>", class "node" ("node error"), data-node/data-type/data-start/data-end and a tooltip;
// edge groups data-from/data-to; token groups class "token" ("token generated") and data-token. Beyond
// options.maxGraphvizNodes shown nodes the tree layout is used and the title line says so.
Figure astViewFigure(const EvalResult& r, AstView view, const LayoutOptions& options = {});
Figure sequenceViewFigure(const EvalResult& r, WhitespaceTokens ws = WhitespaceTokens::Faint);
// figureToSvg of the two above.
std::string renderAstSvg(const EvalResult& r, AstView view, const LayoutOptions& options = {});
std::string renderSequenceSvg(const EvalResult& r, WhitespaceTokens ws = WhitespaceTokens::Faint);

} // namespace ascviz
