// Galeras outcomes (method.md §12, docs/galeras.md): a generated completion against the ground truth.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ascviz {

// 1 − d / max(|a|, |b|), d = the Levenshtein distance in Unicode code points (insert, delete, substitute: 1
// each); 1 when both are empty. Invalid UTF-8 counts byte by byte.
double levenshteinSimilarity(const std::string& a, const std::string& b);

// BLEU-4 of a candidate against one reference, on tokens: the geometric mean of the smoothed n-gram
// precisions p_n = (m_n + 1) / (c_n + 1), n = 1..4 (m_n clipped matches, c_n candidate n-grams; the
// smoothing of CodeXGLUE's smooth_bleu), times the brevity penalty exp(1 − r/c) when c < r; 0 for an empty
// candidate.
double bleu4(const std::vector<std::string>& candidate, const std::vector<std::string>& reference);

// Equal after removing leading and trailing whitespace (of the whole text): 1, else 0.
double exactMatch(const std::string& candidate, const std::string& reference);

// Lexical tokens and subtrees are taken in context: the partial code followed by the candidate (or the
// reference) is parsed as one text, and what lies at or after byte `from` (= the partial code's size) counts.
// The lexical tokens of code[from..]: the text of every non-empty leaf starting at or after `from`.
std::vector<std::string> lexicalTokensFrom(const std::string& code, std::size_t from, const std::string& language);
// The s-expressions (named node types, leaves' text ignored, ERROR nodes included) of every named node lying
// wholly at or after `from` (that is not empty).
std::vector<std::string> subtreeSexps(const std::string& code, std::size_t from, const std::string& language);

// CodeBLEU's AST match: the share of the reference's subtrees (subtreeSexps of partial + reference) whose
// s-expression occurs among the candidate's (of partial + candidate); 1 when the reference has none.
double astMatch(const std::string& partial, const std::string& candidate, const std::string& reference,
                const std::string& language);

} // namespace ascviz
