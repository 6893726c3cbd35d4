// CodeSyntax relations from a tree-sitter tree (method.md §11).
#include "ascviz/attention/relations.h"

#include <algorithm>

namespace ascviz {

std::string relationRole(const AstNode& child)
{
    if (!child.field.empty())
        return child.field;
    if (child.named || child.type.empty() || !child.isTerminal())
        return {};
    const bool word = std::all_of(child.type.begin(), child.type.end(),
                                  [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; });
    return word ? child.type : std::string();
}

std::vector<Relation> syntaxRelations(const SyntaxTree& tree)
{
    const auto& nodes = tree.nodes();
    std::vector<Relation> out;
    std::vector<std::pair<int, std::string>> roled; // child id, role
    for (const AstNode& n : nodes) {
        if (n.isError || n.children.size() < 2)
            continue;
        roled.clear();
        for (int c : n.children) {
            const AstNode& child = nodes[static_cast<std::size_t>(c)];
            if (child.isMissing || child.start == child.end)
                continue;
            if (auto role = relationRole(child); !role.empty())
                roled.emplace_back(c, std::move(role));
        }
        for (std::size_t i = 0; i < roled.size(); ++i) {
            for (std::size_t j = i + 1; j < roled.size(); ++j) {
                const AstNode& a = nodes[static_cast<std::size_t>(roled[i].first)];
                const AstNode& b = nodes[static_cast<std::size_t>(roled[j].first)];
                if (roled[i].second == roled[j].second || a.start >= b.start)
                    continue;
                Relation r;
                r.type = n.type + ":" + roled[i].second + "\u2192" + roled[j].second;
                r.head = {a.id, a.start, a.end, {}};
                r.dependent = {b.id, b.start, b.end, {}};
                out.push_back(std::move(r));
            }
        }
    }
    return out;
}

namespace {

std::vector<int> overlapping(const std::vector<std::pair<std::size_t, std::size_t>>& spans, std::size_t start,
                             std::size_t end)
{
    // Tokens are in text order: the first whose end is after `start`, then on while they start before `end`.
    auto it = std::partition_point(spans.begin(), spans.end(), [&](const auto& s) { return s.second <= start; });
    std::vector<int> out;
    for (; it != spans.end() && it->first < end; ++it)
        if (it->second > it->first)
            out.push_back(static_cast<int>(it - spans.begin()));
    return out;
}

} // namespace

void attachTokens(std::vector<Relation>& relations, const std::vector<std::pair<std::size_t, std::size_t>>& tokenSpans)
{
    for (Relation& r : relations) {
        r.head.tokens = overlapping(tokenSpans, r.head.start, r.head.end);
        r.dependent.tokens = overlapping(tokenSpans, r.dependent.start, r.dependent.end);
        r.offset = r.head.tokens.empty() || r.dependent.tokens.empty()
                       ? 0
                       : r.dependent.tokens.front() - r.head.tokens.front();
    }
}

} // namespace ascviz
