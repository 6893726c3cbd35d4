#include "ascviz/eval/evaluate.h"

#include "ascviz/base/error.h"

#include <utility>

namespace ascviz {

namespace {

void checkPrompt(const EvalRequest& req, std::size_t textBytes)
{
    if (req.promptBytes && *req.promptBytes > textBytes)
        throw InputError(req.promptName + " " + std::to_string(*req.promptBytes) + " is beyond the end of the text (" +
                         std::to_string(textBytes) + " bytes)");
}

} // namespace

EvalResult evaluateScores(ScoredText scored, const EvalRequest& req, std::optional<SyntaxTree> tree)
{
    checkPrompt(req, scored.text.size());
    if (!tree || tree->text() != scored.text)
        tree = parseForEval(req.language, scored.text, req.maxAstDepth, req.maxAstNodes);
    if (req.promptBytes)
        splitAtPrompt(scored, *req.promptBytes);
    EvalResult r = evaluate(std::move(scored), std::move(*tree), req.aggregation,
                            req.categories ? *req.categories : CategoryMap::forLanguage(req.language));
    if (req.scope != AggregationScope::Tokens)
        reaggregate(r, req.aggregation, req.scope);
    return r;
}

EvalResult evaluateText(const std::string& text, const EvalRequest& req, const TextScorer& score)
{
    // Bounded work before the model runs: the text's size, the prompt, then its tree (parsing is cheap next to
    // scoring: 32 KiB parse in milliseconds).
    limits::checkTextSize(text.size(), req.maxTextBytes, req.source);
    checkPrompt(req, text.size());
    SyntaxTree tree = parseForEval(req.language, text, req.maxAstDepth, req.maxAstNodes);
    ScoredText scored = score(text, tree);
    return evaluateScores(std::move(scored), req, std::move(tree));
}

} // namespace ascviz
