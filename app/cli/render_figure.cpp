// render's figure options (render_figure.h).
#include "render_figure.h"

#include "figure_args.h"
#include "output.h"

#include "ascviz/base/error.h"

#include <iostream>

namespace ascviz::cli {

RenderFigureArgs readRenderFigureArgs(Args& args, const LayoutOptions& layout)
{
    RenderFigureArgs a;
    a.options.layout = layout;
    a.style = readFigureStyle(args, &a.figure);
    const auto subtree = args.value("--subtree");
    const auto depth = args.value("--max-depth");
    const auto orientation = args.value("--orientation");
    auto count = [](const std::string& name, const std::string& v) {
        try {
            std::size_t used = 0;
            const int n = std::stoi(v, &used);
            if (used == v.size() && n >= 0)
                return n;
        } catch (const std::exception&) {
        }
        throw UsageError(name + " needs a whole number >= 0 (got '" + v + "')");
    };
    if (subtree)
        a.options.layout.subtree = count("--subtree", *subtree);
    if (depth)
        a.options.layout.maxDepth = count("--max-depth", *depth);
    if (orientation) {
        if (*orientation != "td" && *orientation != "lr")
            throw UsageError("--orientation must be td or lr (got '" + *orientation + "')");
        a.options.layout.leftToRight = *orientation == "lr";
        a.options.autoOrientation = false;
    }
    if (const auto ws = args.value("--whitespace")) {
        try {
            a.options.whitespace = parseWhitespaceTokens(*ws);
        } catch (const InputError& e) {
            throw UsageError(std::string("--whitespace: ") + e.what());
        }
    }
    a.figure = a.figure || subtree || depth || orientation;
    return a;
}

void writeRenderFigure(const EvalResult& r, const std::string& view, const RenderFigureArgs& a, const std::string& file,
                       bool pdf)
{
    const AstView ast = view == "complete" ? AstView::Complete : AstView::Partial;
    const ViewFigure v = view == "sequence"  ? sequenceFigure(r, a.style, a.options)
                         : view == "figure5" ? figure5(r, ast, a.style, a.options)
                                             : astFigure(r, ast, a.style, a.options);
    writeFigure(v.figure, file, pdf);
    if (!v.note.empty())
        std::cerr << "render: " << v.note << '\n';
    std::cerr << "render: " << fmt(v.figure.widthPt / kPointsPerMm, "%.1f") << " x "
              << fmt(v.figure.heightPt / kPointsPerMm, "%.1f") << " mm, labels " << fmt(v.labelPt, "%.1f") << " pt\n";
}

} // namespace ascviz::cli
