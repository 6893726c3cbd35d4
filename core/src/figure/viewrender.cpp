// The one drawing entry point of the views (viewrender.h).
#include "ascviz/figure/viewrender.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace ascviz {
namespace {

double number(const std::string& name, const std::string& v)
{
    try {
        std::size_t used = 0;
        const double d = std::stod(v, &used);
        if (used == v.size())
            return d;
    } catch (const std::exception&) {
    }
    throw InputError(name + " needs a number (got '" + v + "')");
}

int count(const std::string& name, const std::string& v)
{
    try {
        std::size_t used = 0;
        const int n = std::stoi(v, &used);
        if (used == v.size() && n >= 0)
            return n;
    } catch (const std::exception&) {
    }
    throw InputError(name + " needs a whole number >= 0 (got '" + v + "')");
}

std::string oneDecimal(double x)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}

} // namespace

ViewKind parseViewKind(const std::string& s)
{
    if (s == "complete")
        return ViewKind::Complete;
    if (s == "partial")
        return ViewKind::Partial;
    if (s == "sequence")
        return ViewKind::Sequence;
    if (s == "figure5")
        return ViewKind::Figure5;
    throw InputError("the view must be complete, partial, sequence or figure5, not '" + s + "'");
}

std::string toString(ViewKind v)
{
    switch (v) {
    case ViewKind::Complete:
        return "complete";
    case ViewKind::Partial:
        return "partial";
    case ViewKind::Sequence:
        return "sequence";
    case ViewKind::Figure5:
        return "figure5";
    }
    return "complete";
}

void setViewOption(ViewRequest& q, const std::string& name, const std::string& value, const std::string& shownAs)
{
    const std::string shown = shownAs.empty() ? name : shownAs;
    if (name == "whitespace") {
        try {
            q.options.whitespace = parseWhitespaceTokens(value);
        } catch (const InputError& e) {
            throw InputError(shown + ": " + e.what());
        }
        return;
    }
    if (name == "width_mm") {
        const double w = number(shown, value);
        if (!(w >= kMinFigureWidthMm && w <= kMaxFigureWidthMm))
            throw InputError(shown + " must be between 30 and 2000 (mm), got " + value);
        q.style.widthPt = w * kPointsPerMm;
    } else if (name == "width_pt") {
        const double w = number(shown, value);
        if (!(w >= kMinFigureWidthMm * kPointsPerMm - 1e-6 && w <= kMaxFigureWidthMm * kPointsPerMm + 1e-6))
            throw InputError(shown + " must be between 85.04 and 5669.29 (pt, 30 to 2000 mm), got " + value);
        q.style.widthPt = w;
    } else if (name == "font_pt") {
        q.style.fontPt = number(shown, value);
    } else if (name == "title") {
        if (value != "true" && value != "false")
            throw InputError(shown + " must be true or false (got '" + value + "')");
        q.style.title = value == "true";
    } else if (name == "legend") {
        try {
            q.style.legend = parseLegendPlacement(value);
        } catch (const InputError& e) {
            throw InputError(shown + ": " + e.what());
        }
    } else if (name == "subtree") {
        q.options.layout.subtree = count(shown, value);
    } else if (name == "max_depth") {
        q.options.layout.maxDepth = count(shown, value);
    } else if (name == "fold") {
        // Node ids, comma-separated: those subtrees folded ("…(n)" on the node), as the GUI's view folds them.
        std::vector<int> ids;
        std::size_t begin = 0;
        while (begin <= value.size()) {
            const std::size_t comma = std::min(value.find(',', begin), value.size());
            ids.push_back(count(shown, value.substr(begin, comma - begin)));
            begin = comma + 1;
        }
        q.options.layout.collapsed = std::move(ids);
    } else if (name == "auto_collapse") {
        if (value != "true" && value != "false")
            throw InputError(shown + " must be true or false (got '" + value + "')");
        q.options.autoCollapse = value == "true";
    } else if (name == "orientation") {
        if (value != "td" && value != "lr")
            throw InputError(shown + " must be td or lr (got '" + value + "')");
        q.options.layout.leftToRight = value == "lr";
        q.options.autoOrientation = false;
    } else {
        throw InputError(
            "unknown view option '" + shown +
            "' (width_mm, width_pt, font_pt, title, legend, subtree, max_depth, fold, auto_collapse, orientation, "
            "whitespace)");
    }
    q.paper = true;
}

DrawnView drawView(const EvalResult& r, const ViewRequest& q)
{
    DrawnView out;
    for (const int id : q.options.layout.collapsed)
        if (id < 0 || static_cast<std::size_t>(id) >= r.tree.nodes().size())
            throw InputError("fold: node " + std::to_string(id) + " is not in the tree (ids 0 to " +
                             std::to_string(static_cast<long long>(r.tree.nodes().size()) - 1) + ")");
    out.paper = q.paper || q.pdf || q.view == ViewKind::Figure5;
    const AstView ast = q.view == ViewKind::Complete ? AstView::Complete : AstView::Partial;
    if (out.paper) {
        q.style.validate();
        ViewFigure v = q.view == ViewKind::Sequence  ? sequenceFigure(r, q.style, q.options)
                       : q.view == ViewKind::Figure5 ? figure5(r, ast, q.style, q.options)
                                                     : astFigure(r, ast, q.style, q.options);
        out.figure = std::move(v.figure);
        out.labelPt = v.labelPt;
        out.note = std::move(v.note);
        out.noteRemedy = v.noteRemedy;
        out.summary = oneDecimal(out.figure.widthPt / kPointsPerMm) + " x " +
                      oneDecimal(out.figure.heightPt / kPointsPerMm) + " mm, labels " + oneDecimal(out.labelPt) + " pt";
    } else {
        out.figure = q.view == ViewKind::Sequence ? sequenceViewFigure(r, q.options.whitespace)
                                                  : astViewFigure(r, ast, q.options.layout);
    }
    out.bytes = q.pdf ? figureToPdf(out.figure) : figureToSvg(out.figure);
    return out;
}

} // namespace ascviz
