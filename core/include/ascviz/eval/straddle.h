// Tokens against the grammar (method.md §14.4): whether a token straddles an AST leaf boundary.
#pragma once
#include "ascviz/base/scored.h"
#include "ascviz/syntax/syntax.h"

#include <vector>

namespace ascviz {

// Per token of `scored` (parallel to scored.tokens): true when the token overlaps two or more leaves of `tree`
// (a leaf boundary falls inside it) or one leaf it does not contain (the leaf is split across tokens). Leaves are
// the nodes without children and with a non-empty byte span; overlap is §3's rule on UTF-8 byte spans; a token with
// an empty span never straddles.
std::vector<bool> straddlingTokens(const ScoredText& scored, const SyntaxTree& tree);

} // namespace ascviz
