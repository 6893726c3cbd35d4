// Folded subtrees and code text in the AST views' layouts (LayoutOptions::collapsed, ::nodeText): which nodes a
// view shows with some subtrees folded, their labels, and the folds that show a tree down to a depth.
#include "ascviz/render/layout.h"

#include "render_util.h"

#include <algorithm>

namespace ascviz {

namespace {

bool shownIn(const AstNode& n, AstView view)
{
    return view == AstView::Complete || !n.isTerminal() || n.error();
}

// One past the last descendant of `node` (pre-order ids: a subtree is a contiguous run of ids).
std::size_t subtreeEnd(const std::vector<AstNode>& ast, std::size_t node)
{
    std::size_t end = node + 1;
    while (end < ast.size() && ast[end].depth > ast[node].depth)
        ++end;
    return end;
}

} // namespace

std::vector<int> visibleNodes(const EvalResult& r, AstView view, const LayoutOptions& options)
{
    const auto& ast = r.tree.nodes();
    std::vector<char> folded(ast.size(), 0);
    for (int c : options.collapsed)
        if (c >= 0 && static_cast<std::size_t>(c) < ast.size())
            folded[static_cast<std::size_t>(c)] = 1;
    std::vector<int> out;
    for (std::size_t i = 0; i < ast.size();) {
        if (shownIn(ast[i], view))
            out.push_back(ast[i].id);
        i = folded[i] && shownIn(ast[i], view) ? subtreeEnd(ast, i) : i + 1;
    }
    return out;
}

std::size_t shownDescendants(const EvalResult& r, int node, AstView view)
{
    const auto& ast = r.tree.nodes();
    const auto n = static_cast<std::size_t>(node);
    std::size_t count = 0;
    for (std::size_t i = n + 1, end = subtreeEnd(ast, n); i < end; ++i)
        count += shownIn(ast[i], view) ? 1 : 0;
    return count;
}

std::string nodeLabel(const EvalResult& r, int node, AstView view, const LayoutOptions& options)
{
    std::string label = nodeLabel(r, node, view);
    const AstNode& n = r.tree.nodes().at(static_cast<std::size_t>(node));
    if (options.nodeText && !n.isTerminal()) {
        // Whitespace runs (newlines, indentation) as one space: one line of code.
        std::string text;
        for (const char c : r.tree.nodeText(n)) {
            const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
            if (!space || (!text.empty() && text.back() != ' '))
                text.push_back(space ? ' ' : c);
        }
        const auto valueLine = label.rfind('\n');
        label.insert(valueLine, "\n" + detail::truncateChars(detail::displayText(text), 24));
    }
    if (std::find(options.collapsed.begin(), options.collapsed.end(), node) != options.collapsed.end())
        if (const std::size_t hidden = shownDescendants(r, node, view); hidden > 0)
            label += "\n\u2026(" + std::to_string(hidden) + ")";
    return label;
}

std::vector<int> foldAtDepth(const EvalResult& r, AstView view, int depth)
{
    std::vector<int> out;
    for (const AstNode& n : r.tree.nodes())
        if (n.depth == depth && shownIn(n, view) && shownDescendants(r, n.id, view) > 0)
            out.push_back(n.id);
    return out;
}

} // namespace ascviz
