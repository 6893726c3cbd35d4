// The one check of token spans read from a file (eval --scores, session files): what a tokenizer can produce.
#pragma once
#include "ascviz/base/scored.h"

#include <optional>
#include <string>

namespace ascviz {

// Spans are UTF-8 byte ranges of s.text, in the order of the tokens. A tokenizer's spans:
//   - lie inside the text, start <= end, and begin and end on character boundaries;
//   - never go backwards: each token's start and end are at or after the previous token's;
//   - overlap the previous token by at most one character (a character split over several byte-level tokens, or
//     one that a normaliser expanded, is the span of each of them), never by more.
// Returns what is wrong with the first token that breaks a rule ("token 3 [4, 2) ends before it starts"), or
// nullopt when all are well formed.
std::optional<std::string> tokenSpanProblem(const ScoredText& s);

} // namespace ascviz
