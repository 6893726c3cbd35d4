// Graph layout of the AST views with Graphviz (dot), and SVG rendering of the three views
// (method.md §8). Layout data is exposed so the GUI draws the same picture interactively.
#pragma once
#include "ascviz/eval.h"

#include <string>
#include <vector>

namespace ascviz {

enum class AstView { Complete, Partial };

struct Rgb { unsigned char r = 0, g = 0, b = 0; };
// Diverging scale red (0) -> white (0.5) -> blue (1); grey for n/a.
Rgb ascColor(std::optional<double> value);

struct LayoutNode {
    int node = 0;           // AST node id
    double x = 0, y = 0;    // centre, points, y grows downwards
    double width = 0, height = 0;
    std::string label;      // type (+ text for terminals) and value, lines separated by '\n'
};
struct LayoutEdge {
    int from = 0, to = 0;                       // AST node ids
    std::vector<std::pair<double, double>> points; // spline control points, points, y down
};
struct GraphLayout {
    double width = 0, height = 0;
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
};

// Partial = non-terminals only (named nodes with children, plus ERROR nodes).
std::vector<int> visibleNodes(const EvalResult& r, AstView view);
std::string nodeLabel(const EvalResult& r, int node, AstView view);
GraphLayout layoutAst(const EvalResult& r, AstView view); // throws Error when Graphviz fails

std::string renderAstSvg(const EvalResult& r, AstView view);
std::string renderSequenceSvg(const EvalResult& r);

} // namespace ascviz
