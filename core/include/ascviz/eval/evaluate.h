// The one evaluation entry point (issue 40): limits → parse → score → split at the prompt → evaluate → scope, in
// that order, for every front end (the CLI's eval and export-html, the GUI's pages, Python, the runners). The
// eval room does not see the model: the caller passes the scoring as a function (a model's score, a layer lens,
// the experts' router, an observer) or scores it already has (a scores file, a session).
#pragma once
#include "ascviz/base/limits.h"
#include "ascviz/base/scored.h"
#include "ascviz/eval/eval.h"
#include "ascviz/syntax/syntax.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace ascviz {

// What to evaluate a text with. The names in messages are the caller's words for its settings (core names no
// front end's flags): e.g. the CLI passes "--prompt-bytes", Python "prompt_bytes".
struct EvalRequest {
    std::string language; // a registry id
    Aggregation aggregation = Aggregation::Median;
    AggregationScope scope = AggregationScope::Tokens;
    const CategoryMap* categories = nullptr; // not owned; none: the language's table (CategoryMap::forLanguage)
    std::optional<std::size_t> promptBytes;  // the text's first bytes are the prompt (splitAtPrompt); none: no split
    std::size_t maxTextBytes = limits::kDefaultMaxTextBytes; // 0 = no limit
    int maxAstDepth = limits::kDefaultMaxAstDepth;           // 0 = no limit
    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes;   // 0 = no limit
    std::string source = "the text";                         // the text's name in messages (a file, "the prompt")
    std::string promptName = "the prompt length";            // promptBytes' name in messages
};

// Scores `text` (its syntax tree is given, parsed within the request's limits, for scorers that need it: e.g. the
// attention heads' relations).
using TextScorer = std::function<ScoredText(const std::string& text, const SyntaxTree& tree)>;

// Evaluates `text`: checks its size (limits::checkTextSize, naming req.source) and the prompt length, parses it
// within the tree limits (parseForEval), all before `score` runs; then scores it, splits it at the prompt and
// evaluates it with the request's aggregation, scope and categories. InputError for a text or tree past a limit or
// a prompt beyond the end of the text.
EvalResult evaluateText(const std::string& text, const EvalRequest& req, const TextScorer& score);

// The same over scores the caller already has (a scores file, a stored result): the scored text is parsed within
// the tree limits (req.maxTextBytes is not applied: the text was scored already), split and evaluated; `tree`,
// when given, is the scored text's tree parsed before (it is parsed again when its text differs).
EvalResult evaluateScores(ScoredText scored, const EvalRequest& req, std::optional<SyntaxTree> tree = std::nullopt);

} // namespace ascviz
