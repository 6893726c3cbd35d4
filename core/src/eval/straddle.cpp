#include "ascviz/eval/straddle.h"

#include <algorithm>

namespace ascviz {

std::vector<bool> straddlingTokens(const ScoredText& scored, const SyntaxTree& tree)
{
    // Pre-order leaves are disjoint, so they are sorted by start and by end alike.
    std::vector<const AstNode*> leaves;
    for (const auto& n : tree.nodes())
        if (n.isTerminal() && n.end > n.start)
            leaves.push_back(&n);
    std::vector<bool> out;
    out.reserve(scored.tokens.size());
    for (const auto& t : scored.tokens) {
        bool straddles = false;
        if (t.end > t.start) {
            auto it = std::upper_bound(leaves.begin(), leaves.end(), t.start,
                                       [](std::size_t pos, const AstNode* leaf) { return pos < leaf->end; });
            int overlapping = 0;
            for (; it != leaves.end() && (*it)->start < t.end && !straddles; ++it) {
                ++overlapping;
                straddles = overlapping > 1 || (*it)->start < t.start || (*it)->end > t.end;
            }
        }
        out.push_back(straddles);
    }
    return out;
}

} // namespace ascviz
