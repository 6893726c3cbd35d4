#include "ascviz/eval/evaljson.h"

#include "ascviz/eval/straddle.h"

#include <cmath>
#include <utility>

namespace ascviz {

using nlohmann::json;

namespace {
json optionalNumber(const std::optional<double>& v)
{
    return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}
} // namespace

json astNodeJson(const AstNode& n)
{
    return {{"id", n.id},       {"type", n.type},     {"named", n.named},
            {"start", n.start}, {"end", n.end},       {"parent", n.parent < 0 ? json(nullptr) : json(n.parent)},
            {"depth", n.depth}, {"error", n.error()}, {"missing", n.isMissing}};
}

json evalResultJson(const EvalResult& r)
{
    const ScoredText& s = r.scored;
    json tokens = json::array();
    for (const auto& t : s.tokens) {
        json o{{"id", t.id},
               {"start", t.start},
               {"end", t.end},
               {"ntp", optionalNumber(t.ntp)},
               {"generated", t.generated}};
        // The uncertainty of the same forward pass (issue 59): null where nothing predicts the token.
        const auto& u = t.uncertainty;
        o["entropy"] = u ? optionalNumber(u->entropy) : json(nullptr);
        o["topk_entropy"] = u ? optionalNumber(u->topkEntropy) : json(nullptr);
        o["p1"] = u ? optionalNumber(u->p1) : json(nullptr);
        o["margin"] = u ? optionalNumber(u->margin) : json(nullptr);
        o["rank"] = u ? json(u->rank) : json(nullptr);
        tokens.push_back(std::move(o));
    }

    json nodes = json::array();
    const auto& astNodes = r.tree.nodes();
    for (std::size_t i = 0; i < astNodes.size(); ++i) {
        const AstNode& n = astNodes[i];
        const NodeEval* ev = i < r.nodes.size() ? &r.nodes[i] : nullptr;
        json o = astNodeJson(n);
        o["category"] = ev && ev->category ? json(*ev->category) : json(nullptr);
        o["asc_eval"] = ev ? optionalNumber(ev->value) : json(nullptr);
        o["tokens"] = ev ? json(ev->tokens) : json::array();
        nodes.push_back(std::move(o));
    }

    const double ce = s.crossEntropy();
    const SnippetFeatures& f = r.features;
    json out{{"model", s.model},
             {"tokens", std::move(tokens)},
             {"cross_entropy", std::isfinite(ce) ? json(ce) : json(nullptr)},
             {"aggregation", toString(r.aggregation)},
             {"prompt_bytes", s.promptBytes},
             {"prompt_tokens", s.promptTokens},
             {"nodes", std::move(nodes)},
             {"summary",
              {{"asc_eval", optionalNumber(f.ascEval)},
               {"ast_nodes", f.astNodes},
               {"ast_levels", f.astLevels},
               {"cyclomatic", f.cyclomatic},
               {"tokens", f.tokens}}}};
    if (r.scope != AggregationScope::Tokens) // written only when not the default (older readers ignore it)
        out["aggregation_scope"] = toString(r.scope);
    return out;
}

json syntaxProblemsJson(const SyntaxTree& tree)
{
    json out = json::array();
    for (const auto& p : syntaxProblems(tree))
        out.push_back({{"node", p.node},
                       {"what", p.what},
                       {"start", p.start},
                       {"end", p.end},
                       {"line", p.line},
                       {"column", p.column}});
    return out;
}

json evalDocumentJson(const EvalResult& r, const std::string& language, const std::string& dtype)
{
    json j = evalResultJson(r);
    j["language"] = language;
    j["syntax_errors"] = syntaxProblemsJson(r.tree);
    j["dtype"] = dtype.empty() ? json(nullptr) : json(dtype);
    json perCategory = json::object();
    for (const auto& [k, v] : r.features.perCategory)
        perCategory[k] = v;
    j["summary"]["categories"] = std::move(perCategory);
    const std::vector<bool> straddles = straddlingTokens(r.scored, r.tree); // method.md §14.4
    auto& tokens = j.at("tokens");
    for (std::size_t i = 0; i < tokens.size() && i < straddles.size(); ++i)
        tokens[i]["straddles"] = static_cast<bool>(straddles[i]);
    return j;
}

nlohmann::json syntaxTreeJson(const SyntaxTree& tree)
{
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& n : tree.nodes())
        nodes.push_back(astNodeJson(n));
    return {{"language", tree.language()},
            {"levels", tree.levels()},
            {"syntax_errors", syntaxProblemsJson(tree)},
            {"nodes", std::move(nodes)}};
}

} // namespace ascviz
