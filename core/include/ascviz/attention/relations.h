// CodeSyntax relations (method.md §11): the edges between the children of every syntax-tree node, named by
// the grammar's field names and keyword leaves, with byte spans and the tokens each end covers. Plain data, no
// torch: every language of the registry through the same code (no per-language table).
#pragma once
#include "ascviz/syntax/syntax.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ascviz {

// One end of a relation: a child node, its UTF-8 byte span and the indices of the tokens overlapping it
// (empty until attachTokens()).
struct RelationEnd {
    int node = -1;
    std::size_t start = 0, end = 0;
    std::vector<int> tokens;
};

// One edge `N.type:A→B`: `head` is the earlier child A, `dependent` the later child B (method.md §11; in a
// decoder the dependent's first token is the query that should attend to the head).
struct Relation {
    std::string type;
    RelationEnd head, dependent;
    // First dependent token minus first head token (0 until attachTokens(), or when either end has no token).
    int offset = 0;
};

// The role a child plays in its parent: its field name; else, for an anonymous leaf made of letters and
// underscores only (`if`, `else`, `return`), its text as a pseudo-field; else "" (no role: the child takes
// part in no relation).
std::string relationRole(const AstNode& child);

// Every relation of a tree, in pre-order of the parent and then the children's order: for each node that is
// not an ERROR node, each ordered pair (A, B) of its children with roles that differ and A starting before B.
// Zero-width (MISSING) children take part in none.
std::vector<Relation> syntaxRelations(const SyntaxTree& tree);

// Fills each end's tokens (the tokens whose byte span overlaps the end's span) and the offset, from the
// tokens' byte spans in text order (ScoredToken start/end, or a tokenizer's offsets).
void attachTokens(std::vector<Relation>& relations, const std::vector<std::pair<std::size_t, std::size_t>>& tokenSpans);

} // namespace ascviz
