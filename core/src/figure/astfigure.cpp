// The AST view as a paper figure (views.h): the Graphviz layout scaled to the page width.
#include "ascviz/base/error.h"
#include "ascviz/figure/views.h"
#include "parts.h"

#include <algorithm>
#include <sstream>

namespace ascviz {
namespace {

constexpr double kLayoutLabelPt = 10.0; // the font the layout sized its boxes for (render_util.h)

// Levels below the subtree's root (or the tree's roots).
int treeDepth(const EvalResult& r, int subtree)
{
    const auto depth = depthsBelow(r, subtree);
    return depth.empty() ? 0 : std::max(0, *std::max_element(depth.begin(), depth.end()));
}

// Draws the layout at `scale` with its top-left corner at (x, y).
void drawGraph(Figure& f, const EvalResult& r, const GraphLayout& g, double x, double y, double scale)
{
    const auto& ast = r.tree.nodes();
    for (const auto& e : g.edges) {
        if (e.points.size() < 4)
            continue;
        FigPath p;
        p.ops.push_back({'M', {x + e.points[0].first * scale, y + e.points[0].second * scale}});
        for (std::size_t k = 1; k + 2 < e.points.size(); k += 3)
            p.ops.push_back({'C',
                             {x + e.points[k].first * scale, y + e.points[k].second * scale,
                              x + e.points[k + 1].first * scale, y + e.points[k + 1].second * scale,
                              x + e.points[k + 2].first * scale, y + e.points[k + 2].second * scale}});
        p.stroke = Rgb{119, 119, 119};
        p.width = std::max(0.4, 0.8 * scale);
        f.items.emplace_back(p);
    }
    const double fontPt = kLayoutLabelPt * scale;
    for (const auto& ln : g.nodes) {
        const auto& n = ast[static_cast<std::size_t>(ln.node)];
        const auto& ne = r.nodes[static_cast<std::size_t>(ln.node)];
        f.items.emplace_back(FigGroup{{{"data-node", std::to_string(n.id)}, {"data-type", n.type}}});
        FigRect box;
        box.x = x + (ln.x - ln.width / 2) * scale;
        box.y = y + (ln.y - ln.height / 2) * scale;
        box.w = ln.width * scale;
        box.h = ln.height * scale;
        box.radius = 3 * scale;
        box.fill = ascColor(ne.value);
        box.stroke = n.error() ? Rgb{127, 0, 0} : Rgb{68, 68, 68};
        box.strokeWidth = (n.error() ? 2.0 : 0.6) * scale;
        box.dashed = n.error();
        f.items.emplace_back(box);
        if (!ne.value) // n/a: hatched, as in the legend, so it differs from 0.5 also in grey print
            figparts::hatch(f, box.x + box.radius * 0.3, box.y + box.radius * 0.3, box.w - box.radius * 0.6,
                            box.h - box.radius * 0.6);
        std::vector<std::string> lines;
        std::istringstream in(ln.label);
        for (std::string line; std::getline(in, line);)
            lines.push_back(line);
        const double lh = 12.5 * scale; // the layout's line height
        double ty = y + ln.y * scale - lh * static_cast<double>(lines.size()) / 2 + fontPt * 0.95;
        const bool collapsed = !lines.empty() && lines.back().rfind("\u2026(", 0) == 0;
        const std::size_t valueLine = lines.size() - (collapsed ? 2 : 1);
        for (std::size_t i = 0; i < lines.size(); ++i, ty += lh) {
            f.text(x + ln.x * scale, ty, lines[i], fontPt, TextAnchor::Middle, i == valueLine, textColourOn(*box.fill));
        }
        f.items.emplace_back(FigGroup{});
    }
}

std::string viewName(AstView v)
{
    return v == AstView::Complete ? "AST complete" : "AST partial";
}

} // namespace

ViewFigure astFigure(const EvalResult& r, AstView view, const FigureStyle& style, const ViewFigureOptions& options)
{
    using namespace figparts;
    style.validate();
    ViewFigure out;
    const double avail = style.widthPt - 2 * kPad;
    auto labelAt = [&](const GraphLayout& gl) {
        return gl.width > 0 ? std::min(style.fontPt, kLayoutLabelPt * avail / gl.width) : style.fontPt;
    };
    struct Choice {
        LayoutOptions lo;
        GraphLayout g;
        int depth = -1; // the depth limit chosen (-1: none needed)
    };
    // A depth the user gave is honoured as given (a page wider than asked rather than fewer levels); only a
    // tree without one has its deep levels folded to fit.
    const bool collapse = options.autoCollapse && options.layout.maxDepth < 0;
    auto choose = [&](bool leftToRight) {
        Choice c{options.layout, {}, -1};
        c.lo.leftToRight = leftToRight;
        c.g = layoutAst(r, view, c.lo);
        if (labelAt(c.g) >= kMinFigureFontPt || !collapse)
            return c;
        // The deepest depth limit at which the labels stay legible (binary search; depth 0 = the root alone).
        const int deepest = treeDepth(r, c.lo.subtree);
        int lo_d = 0, hi_d = (c.lo.maxDepth >= 0 ? std::min(c.lo.maxDepth, deepest) : deepest) - 1, best = 0;
        while (lo_d <= hi_d) {
            const int mid = (lo_d + hi_d) / 2;
            LayoutOptions t = c.lo;
            t.maxDepth = mid;
            if (labelAt(layoutAst(r, view, t)) >= kMinFigureFontPt) {
                best = mid;
                lo_d = mid + 1;
            } else {
                hi_d = mid - 1;
            }
        }
        c.lo.maxDepth = best;
        c.depth = best;
        c.g = layoutAst(r, view, c.lo);
        return c;
    };
    Choice c = choose(options.layout.leftToRight);
    if (c.depth >= 0 && options.autoOrientation) {
        Choice other = choose(!options.layout.leftToRight);
        if (other.depth < 0 || other.depth > c.depth)
            c = std::move(other);
    }
    if (c.lo.leftToRight != options.layout.leftToRight) {
        out.noteRemedy = out.noteRemedy | Remedy::Orientation;
        out.note = std::string("drawn ") + (c.lo.leftToRight ? "left to right" : "top down") +
                   " (shows more levels at this width)";
    }
    if (c.depth >= 0) {
        out.noteRemedy = out.noteRemedy | Remedy::DepthLimit;
        out.note += std::string(out.note.empty() ? "" : "; ") + "levels below depth " + std::to_string(c.depth) +
                    " collapsed into \u2026(n) so that labels stay >= 6 pt at " + value2(style.widthPt / kPointsPerMm) +
                    " mm";
    }
    const LayoutOptions lo = c.lo;
    const GraphLayout& g = c.g;
    double label = labelAt(g);
    Figure& f = out.figure;
    f.widthPt = style.widthPt;
    if (label < kMinFigureFontPt) { // still too wide: a wider page rather than illegible labels
        label = kMinFigureFontPt;
        f.widthPt = g.width * label / kLayoutLabelPt + 2 * kPad;
        out.note += std::string(out.note.empty() ? "" : "; ") + "the tree needs " + value2(f.widthPt / kPointsPerMm) +
                    " mm at 6 pt labels: the page is wider than asked (a depth limit or a subtree makes it smaller)";
        out.noteRemedy = out.noteRemedy | Remedy::DepthLimit | Remedy::Subtree;
    }
    out.labelPt = label;
    out.maxDepth = lo.maxDepth;
    const double scale = label / kLayoutLabelPt;
    const std::string model = r.scored.model.empty() ? std::string("(unnamed model)") : r.scored.model;
    f.title = "AsC-Eval " + viewName(view) + " - " + model;
    double y =
        drawTitle(f, style,
                  "AsC-Eval \u00b7 " + model + " \u00b7 \u03b8 = " + toString(r.aggregation) +
                      (r.scope == AggregationScope::Children ? " over children" : "") + " \u00b7 " + viewName(view));
    if (style.title)
        y += drawNote(f,
                      std::to_string(g.nodes.size()) + " of " + std::to_string(r.tree.nodes().size()) + " nodes shown" +
                          (lo.subtree >= 0 ? " (subtree of node " + std::to_string(lo.subtree) + ")" : "") +
                          (lo.maxDepth >= 0 ? ", depth \u2264 " + std::to_string(lo.maxDepth) : "") +
                          ", snippet AsC-Eval " + (r.features.ascEval ? value2(*r.features.ascEval) : "n/a"),
                      kPad, y - kPad, f.widthPt - 2 * kPad, style);
    const double gx = kPad + std::max(0.0, (f.widthPt - 2 * kPad - g.width * scale) / 2);
    drawGraph(f, r, g, gx, y, scale);
    double bottom = y + g.height * scale;
    if (style.legend != LegendPlacement::None) {
        const Size ls = scaleLegend(&f, kPad, bottom + kPad, f.widthPt - 2 * kPad, style,
                                    "AsC-Eval of a node = " + toString(r.aggregation) +
                                        (r.scope == AggregationScope::Children
                                             ? " of its children's values (a leaf: of its tokens' NtP)"
                                             : " of its tokens' NtP") +
                                        "; dashed outline: ERROR/MISSING node");
        bottom += kPad + ls.h;
    }
    f.heightPt = bottom + kPad;
    return out;
}

} // namespace ascviz
