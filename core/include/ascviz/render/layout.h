// Graph layout of the AST views with Graphviz (dot), and SVG rendering of the three views
// (method.md §8). Layout data is exposed so the GUI draws the same picture interactively.
#pragma once
#include "ascviz/base/limits.h"
#include "ascviz/eval/eval.h"

#include <string>
#include <vector>

namespace ascviz {

enum class AstView { Complete, Partial };

struct Rgb {
    unsigned char r = 0, g = 0, b = 0;
};
// Diverging scale red (0) -> white (0.5) -> blue (1); grey for n/a.
Rgb ascColor(std::optional<double> value);
// The colour of text on `fill`: the one rule of the SVG views, the figures and the GUI (ui's textColorOn), so
// the screen and an export agree — white when the fill's WCAG relative luminance is below 0.3, else #111111.
Rgb textColourOn(Rgb fill);

struct LayoutNode {
    int node = 0;        // AST node id
    double x = 0, y = 0; // centre, points, y grows downwards
    double width = 0, height = 0;
    std::string label; // type (+ text for terminals) and value, lines separated by '\n'
};
struct LayoutEdge {
    int from = 0, to = 0;                          // AST node ids
    std::vector<std::pair<double, double>> points; // spline control points, points, y down
};
enum class LayoutEngine { Graphviz, Tree };

struct GraphLayout {
    double width = 0, height = 0;
    LayoutEngine engine = LayoutEngine::Graphviz; // Tree: beyond LayoutOptions::maxGraphvizNodes
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
};

// Partial = non-terminals only (nodes with children), plus ERROR and MISSING nodes (which stay visible,
// method.md §2); pre-order ids.
std::vector<int> visibleNodes(const EvalResult& r, AstView view);
// "type" ("MISSING type" for a MISSING node), then for terminals whose text differs from their type the
// text (control characters as visible symbols, cut at 24 characters with "…"), then "0.63" or "n/a".
std::string nodeLabel(const EvalResult& r, int node, AstView view);
struct LayoutOptions {
    // Beyond this many shown nodes (0 = never) the linear-time tree layout replaces Graphviz, whose dot
    // layout takes minutes and gigabytes on tens of thousands of nodes (docs/limits.md).
    std::size_t maxGraphvizNodes = limits::kDefaultMaxGraphvizNodes;
    int subtree = -1;         // >= 0: only this node and its descendants (render --subtree NODE_ID)
    int maxDepth = -1;        // >= 0: levels below the root deeper than this are collapsed (render --max-depth)
    bool leftToRight = false; // ranks from left to right instead of top down (render --orientation lr)
    // Folded subtrees (collapse.cpp): these nodes stay, their descendants are not laid out, and their label gets
    // a last line "…(n)", n = the descendants the view would show. Ids that are not shown are ignored.
    std::vector<int> collapsed;
    // Non-terminals also show their code text (a line before the value; whitespace runs as one space, cut
    // at 24 characters with "…"), as terminals always do.
    bool nodeText = false;
};
// Per node id: its level below `subtree` (0 = the subtree's root; subtree < 0: below the tree's roots), -1
// for nodes outside the subtree.
std::vector<int> depthsBelow(const EvalResult& r, int subtree);
// The nodes shown under `options` (subtree, depth, the folded subtrees of `collapsed`), in pre-order; throws
// InputError naming the node when options.subtree is not a node id of the tree.
std::vector<int> visibleNodes(const EvalResult& r, AstView view, const LayoutOptions& options);
// Per node id: how many nodes the view would show below it are hidden by options.maxDepth or by folding it
// (options.collapsed) (0 for the others); the label of such a node ends with "…(n)".
std::vector<int> collapsedCounts(const EvalResult& r, AstView view, const LayoutOptions& options);

// nodeLabel with `options` applied: the code text of a non-terminal (nodeText) and "…(n)" for a node with hidden
// nodes below it (collapsedCounts).
std::string nodeLabel(const EvalResult& r, int node, AstView view, const LayoutOptions& options);
// The descendants of `node` that `view` shows when nothing is folded.
std::size_t shownDescendants(const EvalResult& r, int node, AstView view);
// The nodes of `view` at depth `depth` that have descendants the view shows: folding them all shows the tree down
// to that depth (what a fit that keeps labels readable folds first).
std::vector<int> foldAtDepth(const EvalResult& r, AstView view, int depth);

// Top-down layout, children in text order, boxes sized for their labels (10 pt sans). Points, y down,
// origin at the top-left of the graph. Graphviz dot up to options.maxGraphvizNodes shown nodes, else
// layoutAstTree(). Thread-safe (Graphviz calls are serialised). Throws Error when Graphviz fails.
GraphLayout layoutAst(const EvalResult& r, AstView view, const LayoutOptions& options = {});
// The fallback: a layered tree layout in O(n) time and memory, no recursion. One rank per depth (the rank's
// tallest box, dot's rank and node separations), leaves left to right in text order, each parent centred
// over its children unless that would overlap its left neighbour on its rank; straight edges as cubics.
GraphLayout layoutAstTree(const EvalResult& r, AstView view, const LayoutOptions& options = {});
// The same layout with each label's value line rewritten from r's node values (another layer of the layer lens,
// method.md §13): boxes and edges stay where they are.
GraphLayout relabelValues(const GraphLayout& layout, const EvalResult& r);

} // namespace ascviz
