// One way to draw a view of an evaluation, for `render` (CLI), the GUI's view exports and Python's
// Result.render: the same request gives the same picture everywhere. Without a figure option the screen view
// (astViewFigure / sequenceViewFigure, CSS pixels); with one, for PDF and for figure5 the paper figure at the
// page width (astFigure, sequenceFigure, figure5: docs/figures.md).
#pragma once
#include "ascviz/figure/views.h"

#include <string>

namespace ascviz {

enum class ViewKind { Complete, Partial, Sequence, Figure5 };
// "complete" | "partial" | "sequence" | "figure5"; InputError naming the text else.
ViewKind parseViewKind(const std::string& s);
std::string toString(ViewKind v);

struct ViewRequest {
    ViewKind view = ViewKind::Complete;
    FigureStyle style;         // the paper figure's page width, font, title, legend
    ViewFigureOptions options; // layout (subtree, depth, orientation, Graphviz limit), whitespace tokens
    bool paper = false;        // a figure option was given: the paper figure even for an SVG
    bool pdf = false;          // PDF (always the paper figure) rather than SVG
};

// Sets one option by its name: width_mm, width_pt, font_pt, title ("true" | "false"), legend, subtree,
// max_depth, fold (node ids, comma-separated: their subtrees folded), auto_collapse ("true" | "false": whether a
// tree too wide for legible labels has its deep levels collapsed), orientation ("td" | "lr"), whitespace (faint |
// none | full). Every one but whitespace asks for the
// paper figure. InputError when the name or the value is not one it takes; the message names the option as
// `shownAs` (the caller's spelling of it, e.g. a command-line option), else by `name`.
void setViewOption(ViewRequest& q, const std::string& name, const std::string& value, const std::string& shownAs = {});

struct DrawnView {
    Figure figure;
    bool paper = false;               // drawn as the paper figure
    double labelPt = 0;               // the paper figure's label font
    std::string note;                 // what the paper figure did to fit (collapsed levels, a wider page)
    Remedy noteRemedy = Remedy::None; // the settings that change it (base/error.h; front ends name them)
    std::string bytes;                // the SVG text or the PDF
    std::string summary;              // "85.0 x 61.3 mm, labels 6.0 pt" for a paper figure; empty for a screen view
};
// Draws the request; InputError when the style is not valid or the subtree is not in the tree.
DrawnView drawView(const EvalResult& r, const ViewRequest& q);

} // namespace ascviz
