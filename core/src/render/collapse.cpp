// Folded subtrees and code text in the AST views' layouts (LayoutOptions::collapsed, ::nodeText): which nodes a
// view shows with some subtrees folded, their labels, and the folds that show a tree down to a depth.
#include "ascviz/render/layout.h"

#include "ascviz/base/error.h"
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
    if (options.subtree >= 0 && static_cast<std::size_t>(options.subtree) >= ast.size()) {
        ErrorContext where;
        where.remedy = Remedy::Subtree;
        throw InputError("the subtree's root, node " + std::to_string(options.subtree) +
                             ", is not in the tree: it has nodes 0 to " +
                             std::to_string(ast.empty() ? 0 : ast.size() - 1),
                         std::move(where));
    }
    if (options.subtree < 0 && options.maxDepth < 0 && options.collapsed.empty())
        return visibleNodes(r, view);
    const std::vector<int> depth = depthsBelow(r, options.subtree);
    std::vector<char> folded(ast.size(), 0);
    for (int c : options.collapsed)
        if (c >= 0 && static_cast<std::size_t>(c) < ast.size())
            folded[static_cast<std::size_t>(c)] = 1;
    std::vector<int> out;
    for (std::size_t i = 0; i < ast.size();) {
        if (depth[i] < 0 || (options.maxDepth >= 0 && depth[i] > options.maxDepth)) {
            ++i;
            continue;
        }
        const bool shown = shownIn(ast[i], view) || ast[i].id == options.subtree;
        if (shown)
            out.push_back(ast[i].id);
        i = folded[i] && shown ? subtreeEnd(ast, i) : i + 1;
    }
    return out;
}

std::vector<int> collapsedCounts(const EvalResult& r, AstView view, const LayoutOptions& options)
{
    const auto& ast = r.tree.nodes();
    std::vector<int> hidden(ast.size(), 0);
    if (options.maxDepth < 0 && options.collapsed.empty())
        return hidden;
    std::vector<char> visible(ast.size(), 0);
    for (int id : visibleNodes(r, view, options))
        visible[static_cast<std::size_t>(id)] = 1;
    const std::vector<int> depth = depthsBelow(r, options.subtree);
    for (const auto& n : ast) {
        const auto id = static_cast<std::size_t>(n.id);
        if (depth[id] < 0 || visible[id] || !shownIn(n, view))
            continue; // outside the subtree, shown, or not a node of this view anyway
        // A hidden node counts for its nearest shown ancestor.
        int p = n.parent;
        while (p >= 0 && !visible[static_cast<std::size_t>(p)])
            p = ast[static_cast<std::size_t>(p)].parent;
        if (p >= 0)
            ++hidden[static_cast<std::size_t>(p)];
    }
    return hidden;
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

std::string detail::labelWithHidden(const EvalResult& r, int node, AstView view, const LayoutOptions& options,
                                    int hidden)
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
    if (hidden > 0)
        label += "\n\u2026(" + std::to_string(hidden) + ")";
    return label;
}

std::string nodeLabel(const EvalResult& r, int node, AstView view, const LayoutOptions& options)
{
    const auto hidden = collapsedCounts(r, view, options);
    return detail::labelWithHidden(r, node, view, options, hidden.at(static_cast<std::size_t>(node)));
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
