// Meaning-preserving rewrites of a snippet for the rewrite probe (method.md §14.4): identifier renaming and
// whitespace changes, each checked by parsing the result to give the same tree shape. Plain data, tree-sitter
// through syntax.h only.
#pragma once
#include "ascviz/syntax/syntax.h"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace ascviz {

enum class RewriteKind { Rename, Spacing };

// "rename" or "spacing"; anything else is an InputError naming the value and the choices.
RewriteKind parseRewriteKind(const std::string& name);
std::string toString(RewriteKind kind);

struct RewriteResult {
    std::string text;                         // the rewritten text (the original when edits == 0)
    int edits = 0;                            // leaves renamed, or gaps between leaves changed
    std::map<std::string, std::string> names; // rename: old name → new name
    bool sameShape = true;                    // the rewritten text parses to the same tree shape
    std::string difference;                   // when not: the first difference (sameTreeShape's)
};

// The first difference between the shapes of two trees — node count, then per pre-order node its type, named
// flag, field, child count, ERROR and MISSING — as one line naming the node; "" when the shapes are equal.
// Byte spans and leaf texts are not part of the shape.
std::string treeShapeDifference(const SyntaxTree& a, const SyntaxTree& b);

// The text with `edits` replacements of byte spans [start, end) by new strings, applied to `tree`'s text;
// the spans must not overlap (InputError otherwise).
struct TextEdit {
    std::size_t start = 0, end = 0;
    std::string replacement;
};
std::string applyEdits(const std::string& text, std::vector<TextEdit> edits);

// method.md §14.4: the rewrite of `tree`'s text, parsed again (same language, same node limit) and compared
// with `tree` by treeShapeDifference. `rename`: the names the snippet binds (definition names, parameters,
// assignment and loop targets) written in the other case convention (snake_case ↔ camelCase) at every
// occurrence that is not an attribute or keyword-argument name; a name whose new form already occurs is left.
// `spacing`: every gap between two leaves on one line, one of them punctuation or an operator and outside any
// string, toggled (no space ↔ one space).
RewriteResult rewriteSnippet(const SyntaxTree& tree, RewriteKind kind);

// The other case convention of one name (rename's rule): snake_case with an inner underscore → camelCase
// ("max_value" → "maxValue", "_max_value" → "_maxValue"), lower camelCase → snake_case ("maxValue" →
// "max_value"); "" when neither applies (one word, ALL_CAPS, dunder names, digits after an underscore).
std::string flipCaseConvention(const std::string& name);

} // namespace ascviz
