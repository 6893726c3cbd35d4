// AST views laid out with Graphviz dot (method.md §8). Graphviz handles live only inside layoutAst().
#include "ascviz/render/layout.h"

#include "ascviz/base/error.h"
#include "render_util.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace ascviz {

Rgb ascColor(std::optional<double> value)
{
    if (!value || !std::isfinite(*value))
        return {200, 200, 200}; // n/a
    const double v = std::clamp(*value, 0.0, 1.0);
    // ColorBrewer RdBu end points; white in the middle.
    constexpr double red[3] = {202, 0, 32}, white[3] = {255, 255, 255}, blue[3] = {5, 113, 176};
    const double* a = v < 0.5 ? red : white;
    const double* b = v < 0.5 ? white : blue;
    const double t = v < 0.5 ? v / 0.5 : (v - 0.5) / 0.5;
    auto mix = [&](int k) { return static_cast<unsigned char>(std::lround(a[k] + (b[k] - a[k]) * t)); };
    return {mix(0), mix(1), mix(2)};
}

Rgb textColourOn(Rgb fill)
{
    return detail::luminance(fill) < 0.3 ? Rgb{255, 255, 255} : Rgb{17, 17, 17};
}

std::vector<int> visibleNodes(const EvalResult& r, AstView view)
{
    std::vector<int> out;
    for (const auto& n : r.tree.nodes())
        if (view == AstView::Complete || !n.isTerminal() || n.error())
            out.push_back(n.id);
    return out;
}

std::vector<int> depthsBelow(const EvalResult& r, int subtree)
{
    const auto& ast = r.tree.nodes();
    std::vector<int> depth(ast.size(), -1);
    for (const auto& n : ast) { // pre-order: parents first
        const auto id = static_cast<std::size_t>(n.id);
        if (subtree < 0 ? n.parent < 0 : n.id == subtree)
            depth[id] = 0;
        else if (n.parent >= 0 && depth[static_cast<std::size_t>(n.parent)] >= 0)
            depth[id] = depth[static_cast<std::size_t>(n.parent)] + 1;
    }
    return depth;
}

std::string nodeLabel(const EvalResult& r, int node, AstView /*view*/)
{
    const auto& n = r.tree.nodes().at(static_cast<std::size_t>(node));
    std::string label;
    if (n.isMissing)
        label = "MISSING ";
    label.append(n.type);
    label = detail::truncateChars(detail::displayText(label), 28);
    if (n.isTerminal() && !n.isMissing) {
        const auto text = r.tree.nodeText(n);
        if (text != n.type) { // anonymous terminals (`(`, `if`) already show their text as their type
            label.push_back('\n');
            label.append(detail::truncateChars(detail::displayText(text), 24));
        }
    }
    label.push_back('\n');
    label.append(detail::formatValue(r.nodes.at(static_cast<std::size_t>(node)).value));
    return label;
}

namespace {

std::mutex& graphvizMutex()
{
    static std::mutex m; // Graphviz keeps global state: one layout at a time
    return m;
}

GVC_t* graphvizContext()
{
    static GVC_t* gvc = [] {
        agseterr(AGERR); // no warnings on stderr
        return gvContext();
    }();
    return gvc;
}

struct GraphCloser {
    GVC_t* gvc;
    bool laidOut = false;
    void operator()(Agraph_t* g) const
    {
        if (laidOut)
            gvFreeLayout(gvc, g);
        agclose(g);
    }
};

std::pair<double, double> labelSize(const std::string& label)
{
    double w = 0.0;
    int lines = 0;
    std::istringstream in(label);
    std::string line;
    while (std::getline(in, line)) {
        w = std::max(w, detail::textWidth(line, detail::kLabelFontSize));
        ++lines;
    }
    return {std::max(w + 2 * detail::kLabelPadX, 30.0),
            std::max(lines, 1) * detail::kLabelLineHeight + 2 * detail::kLabelPadY};
}

std::string inches(double points)
{
    std::ostringstream s;
    s.precision(6);
    s << points / 72.0;
    return s.str();
}

} // namespace

namespace {
constexpr double kNodeSep = 0.12 * 72.0; // dot's nodesep and ranksep below, in points
constexpr double kRankSep = 0.32 * 72.0;
constexpr double kTreeMargin = 4.0; // dot's bounding box pad
} // namespace

GraphLayout layoutAstTree(const EvalResult& r, AstView view, const LayoutOptions& options)
{
    const auto& ast = r.tree.nodes();
    const std::vector<int> visible = visibleNodes(r, view, options);
    const std::vector<int> hidden = collapsedCounts(r, view, options);
    const bool lr = options.leftToRight;
    GraphLayout out;
    out.engine = LayoutEngine::Tree;
    if (visible.empty())
        return out;
    const std::size_t n = visible.size();
    // Index k in `visible` (pre-order). parent: the nearest shown ancestor's index (-1 for a root).
    std::vector<int> slot(ast.size(), -1);
    for (std::size_t k = 0; k < n; ++k)
        slot[static_cast<std::size_t>(visible[k])] = static_cast<int>(k);
    std::vector<int> parent(n, -1), depth(n, 0), firstChild(n, -1), lastChild(n, -1);
    std::vector<int> nearest(ast.size(), -1); // node id -> nearest shown node at or above it
    for (const auto& a : ast) {               // ast is in pre-order: parents come first
        const auto id = static_cast<std::size_t>(a.id);
        nearest[id] = slot[id] >= 0 ? slot[id] : (a.parent >= 0 ? nearest[static_cast<std::size_t>(a.parent)] : -1);
    }
    std::vector<double> w(n), h(n), x(n, 0.0);
    int maxDepth = 0;
    out.nodes.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        const AstNode& a = ast[static_cast<std::size_t>(visible[k])];
        const int p = a.parent >= 0 ? nearest[static_cast<std::size_t>(a.parent)] : -1;
        parent[k] = p;
        if (p >= 0) {
            depth[k] = depth[static_cast<std::size_t>(p)] + 1;
            if (firstChild[static_cast<std::size_t>(p)] < 0)
                firstChild[static_cast<std::size_t>(p)] = static_cast<int>(k);
            lastChild[static_cast<std::size_t>(p)] = static_cast<int>(k);
            out.edges.push_back({visible[static_cast<std::size_t>(p)], a.id, {}});
        }
        maxDepth = std::max(maxDepth, depth[k]);
        out.nodes[k].node = a.id;
        out.nodes[k].label = detail::labelWithHidden(r, a.id, view, options, hidden[static_cast<std::size_t>(a.id)]);
        std::tie(w[k], h[k]) = labelSize(out.nodes[k].label);
        if (lr) // laid out top down with the boxes turned, then mirrored on the diagonal
            std::swap(w[k], h[k]);
    }
    // Ranks: the tallest box of each depth, stacked with dot's rank separation.
    std::vector<double> rankH(static_cast<std::size_t>(maxDepth) + 1, 0.0), rankY(rankH.size(), 0.0);
    for (std::size_t k = 0; k < n; ++k)
        rankH[static_cast<std::size_t>(depth[k])] = std::max(rankH[static_cast<std::size_t>(depth[k])], h[k]);
    double y = kTreeMargin;
    for (std::size_t d = 0; d < rankH.size(); ++d) {
        rankY[d] = y + rankH[d] / 2;
        y += rankH[d] + kRankSep;
    }
    // x in post-order (children before their parent; on one rank, left before right): leaves at the next free
    // column, parents centred over their children, pushed right of the previous box on their rank.
    std::vector<double> rankRight(rankH.size(), kTreeMargin - kNodeSep);
    double nextLeft = kTreeMargin, right = kTreeMargin;
    auto place = [&](std::size_t k) {
        const auto d = static_cast<std::size_t>(depth[k]);
        double left =
            firstChild[k] < 0
                ? nextLeft
                : (x[static_cast<std::size_t>(firstChild[k])] + x[static_cast<std::size_t>(lastChild[k])]) / 2 -
                      w[k] / 2;
        left = std::max(left, rankRight[d] + kNodeSep);
        x[k] = left + w[k] / 2;
        rankRight[d] = left + w[k];
        if (firstChild[k] < 0)
            nextLeft = left + w[k] + kNodeSep;
        right = std::max(right, left + w[k]);
    };
    std::vector<std::size_t> open; // the current root-to-node path, as indices
    for (std::size_t k = 0; k < n; ++k) {
        while (!open.empty() && depth[open.back()] >= depth[k]) {
            place(open.back());
            open.pop_back();
        }
        open.push_back(k);
    }
    while (!open.empty()) {
        place(open.back());
        open.pop_back();
    }
    for (std::size_t k = 0; k < n; ++k) {
        auto& ln = out.nodes[k];
        ln.x = x[k];
        ln.y = rankY[static_cast<std::size_t>(depth[k])];
        ln.width = w[k];
        ln.height = h[k];
        if (lr) {
            std::swap(ln.x, ln.y);
            std::swap(ln.width, ln.height);
        }
    }
    out.width = right + kTreeMargin;
    out.height = y - kRankSep + kTreeMargin;
    if (lr)
        std::swap(out.width, out.height);
    for (auto& e : out.edges) {
        const auto& a = out.nodes[static_cast<std::size_t>(slot[static_cast<std::size_t>(e.from)])];
        const auto& b = out.nodes[static_cast<std::size_t>(slot[static_cast<std::size_t>(e.to)])];
        const std::pair<double, double> p0 =
            lr ? std::pair{a.x + a.width / 2, a.y} : std::pair{a.x, a.y + a.height / 2};
        const std::pair<double, double> p3 =
            lr ? std::pair{b.x - b.width / 2, b.y} : std::pair{b.x, b.y - b.height / 2};
        e.points = {p0, p0, p3, p3};
    }
    return out;
}

GraphLayout layoutAst(const EvalResult& r, AstView view, const LayoutOptions& options)
{
    const auto& ast = r.tree.nodes();
    const std::vector<int> visible = visibleNodes(r, view, options);
    const std::vector<int> hidden = collapsedCounts(r, view, options);
    GraphLayout out;
    if (visible.empty())
        return out;
    if (options.maxGraphvizNodes > 0 && visible.size() > options.maxGraphvizNodes)
        return layoutAstTree(r, view, options);

    std::vector<char> isVisible(ast.size(), 0);
    for (int id : visible)
        isVisible[static_cast<std::size_t>(id)] = 1;

    std::lock_guard<std::mutex> lock(graphvizMutex());
    GVC_t* gvc = graphvizContext();
    if (!gvc)
        throw Error("Graphviz: cannot create a context");
    GraphCloser closer{gvc};
    std::unique_ptr<Agraph_t, GraphCloser&> g(agopen(const_cast<char*>("ast"), Agdirected, nullptr), closer);
    if (!g)
        throw Error("Graphviz: cannot create a graph");

    agattr(g.get(), AGRAPH, const_cast<char*>("ordering"), const_cast<char*>("out"));
    agattr(g.get(), AGRAPH, const_cast<char*>("nodesep"), const_cast<char*>("0.12"));
    agattr(g.get(), AGRAPH, const_cast<char*>("ranksep"), const_cast<char*>("0.32"));
    if (options.leftToRight)
        agattr(g.get(), AGRAPH, const_cast<char*>("rankdir"), const_cast<char*>("LR"));
    agattr(g.get(), AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
    agattr(g.get(), AGNODE, const_cast<char*>("fixedsize"), const_cast<char*>("true"));
    agattr(g.get(), AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
    Agsym_t* symW = agattr(g.get(), AGNODE, const_cast<char*>("width"), const_cast<char*>("0.75"));
    Agsym_t* symH = agattr(g.get(), AGNODE, const_cast<char*>("height"), const_cast<char*>("0.5"));
    agattr(g.get(), AGEDGE, const_cast<char*>("arrowhead"), const_cast<char*>("none"));

    std::unordered_map<int, Agnode_t*> gvNode;
    std::vector<std::string> labels(ast.size());
    for (int id : visible) {
        std::string name = std::to_string(id);
        name.insert(name.begin(), 'n');
        Agnode_t* n = agnode(g.get(), const_cast<char*>(name.c_str()), 1);
        labels[static_cast<std::size_t>(id)] =
            detail::labelWithHidden(r, id, view, options, hidden[static_cast<std::size_t>(id)]);
        const auto [w, h] = labelSize(labels[static_cast<std::size_t>(id)]);
        agxset(n, symW, const_cast<char*>(inches(w).c_str()));
        agxset(n, symH, const_cast<char*>(inches(h).c_str()));
        gvNode[id] = n;
    }
    // Pre-order creation keeps each parent's edges in child order (ordering=out).
    for (int id : visible) {
        int p = ast[static_cast<std::size_t>(id)].parent;
        while (p >= 0 && !isVisible[static_cast<std::size_t>(p)])
            p = ast[static_cast<std::size_t>(p)].parent;
        if (p >= 0) {
            agedge(g.get(), gvNode[p], gvNode[id], nullptr, 1);
            out.edges.push_back({p, id, {}});
        }
    }

    if (gvLayout(gvc, g.get(), "dot") != 0)
        throw Error("Graphviz: the dot layout failed for " + std::to_string(visible.size()) + " nodes");
    closer.laidOut = true;

    const boxf bb = GD_bb(g.get());
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    auto tx = [&](double x) { return x - bb.LL.x; };
    auto ty = [&](double y) { return bb.UR.y - y; };

    for (int id : visible) {
        Agnode_t* n = gvNode[id];
        LayoutNode ln;
        ln.node = id;
        ln.x = tx(ND_coord(n).x);
        ln.y = ty(ND_coord(n).y);
        ln.width = ND_width(n) * 72.0;
        ln.height = ND_height(n) * 72.0;
        ln.label = std::move(labels[static_cast<std::size_t>(id)]);
        out.nodes.push_back(std::move(ln));
    }
    std::unordered_map<int, std::size_t> index;
    for (std::size_t i = 0; i < out.nodes.size(); ++i)
        index[out.nodes[i].node] = i;
    for (auto& e : out.edges) {
        Agedge_t* ge = agedge(g.get(), gvNode[e.from], gvNode[e.to], nullptr, 0);
        const splines* spl = ge ? ED_spl(ge) : nullptr;
        if (spl && spl->size > 0) {
            const bezier& bz = spl->list[0];
            for (int k = 0; k < bz.size; ++k)
                e.points.emplace_back(tx(bz.list[k].x), ty(bz.list[k].y));
        }
        if (e.points.size() < 4) { // no spline: a straight cubic between the node boundaries
            const auto& a = out.nodes[index[e.from]];
            const auto& b = out.nodes[index[e.to]];
            const std::pair<double, double> p0{a.x, a.y + a.height / 2}, p3{b.x, b.y - b.height / 2};
            e.points = {p0, p0, p3, p3};
        }
    }
    return out;
}

} // namespace ascviz
