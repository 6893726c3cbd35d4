// Experts by syntax (issue 42; method.md §15): the router's choices of a mixture-of-experts model per token
// (model/observer.h, intermediate::kExperts), the fields `ascviz-cli eval --experts` adds to the eval JSON, and
// the category × layer × expert table of `ascviz-cli analyze experts` with its specialisation score.
#pragma once
#include "ascviz/base/limits.h"
#include "ascviz/corpusrun/engine.h"
#include "ascviz/eval/eval.h"
#include "ascviz/model/model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

// One sparse layer's choice for one token: the chosen experts in the router's order (descending weight) and
// their routing weights as the layer uses them (after renormalisation where the family renormalises).
struct LayerExperts {
    int layer = 0;
    std::vector<int> ids;
    std::vector<double> probs;
};
using TokenExperts = std::vector<LayerExperts>; // one entry per sparse layer, in layer order

struct ScoredExperts {
    ScoredText scored;
    std::vector<TokenExperts> tokens; // parallel to scored.tokens
};

// Scores `text` and records the router's choices of every token. ModelError when the model is dense (its
// ModelInfo lists no experts): it has no routing to show.
ScoredExperts scoreExperts(const LanguageModel& model, const std::string& text);
// The router's choices for the tokens of a result as it is (its ids, e.g. those a text was generated with, which
// need not be its text's encoding); `scored` is kept as given. The same errors.
ScoredExperts scoreExpertsOfTokens(const LanguageModel& model, const ScoredText& scored);

// Adds per token "experts": [{"layer": l, "ids": [e, …], "probs": [p, …]}, …] to an eval JSON of the same
// scored text (InputError when the token counts differ).
void addExpertFields(nlohmann::json& evalJson, const std::vector<TokenExperts>& tokens);

// One row of the table: of the n tokens of `category`, the fraction `share` routed to `expert` at `layer`
// (a token counts once per category; with top-k routing the shares of a category and layer sum to k).
struct ExpertRow {
    std::string category;
    int layer = 0;
    int expert = 0;
    double share = 0;
    int64_t n = 0;
};

// The specialisation of a category at a layer (method.md §15): the Kullback-Leibler divergence, in bits, of the
// category's expert distribution P (its shares / k) from the corpus-wide one Q (the shares of all tokens / k),
// Σ_e P(e) log2(P(e) / Q(e)): 0 when the category is routed as the corpus is, larger the more its tokens go to
// experts the corpus as a whole uses less.
struct ExpertSpecialisation {
    std::string category;
    int layer = 0;
    int64_t n = 0;
    double kl = 0;
};

struct ExpertReport {
    int layers = 0;              // the model's layers (rows name sparse layers by their index among them)
    int experts = 0;             // experts per sparse layer
    std::vector<ExpertRow> rows; // category, layer, expert order; experts never chosen: share 0
    std::vector<ExpertSpecialisation> specialisation; // category, layer order
};

// Counts routed tokens per category, layer and expert over texts. A token's categories are those of the AST nodes
// it is aligned to (EvalResult::nodesOfToken and NodeEval::category); tokens of no category count only in the
// corpus-wide distribution.
class ExpertTally {
public:
    ExpertTally(int layers, int experts, int expertsPerToken);
    // Adds the tokens of one evaluated text; `tokens` parallel to r.scored.tokens (InputError otherwise, or when an
    // expert id or layer is out of range).
    void add(const EvalResult& r, const std::vector<TokenExperts>& tokens);
    // The same for one token of the given categories (what add() does per token; also the unit of the tests).
    void addToken(const std::set<std::string>& categories, const TokenExperts& experts);
    ExpertReport report() const;
    int64_t tokens() const { return m_all.n; }

private:
    struct Counts {
        int64_t n = 0;                                // tokens
        std::map<int, std::vector<int64_t>> perLayer; // layer -> [expert] tokens routed there
    };
    void count(Counts& c, const TokenExperts& experts) const;
    int m_layers, m_experts, m_k;
    Counts m_all;
    std::map<std::string, Counts> m_categories;
};

nlohmann::json expertReportJson(const ExpertReport& r);

// One text of a corpus or results database for analyzeExperts.
struct ExpertText {
    std::string code, language, location; // location: how messages name it ("corpus.jsonl: line 3")
};
struct ExpertRunOptions {
    std::size_t maxTextBytes = limits::kDefaultMaxTextBytes; // texts longer are left out (0 = no limit)
    int maxAstDepth = limits::kDefaultMaxAstDepth;
    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes;
    std::function<void(const ExpertText&, const std::string& why)> skipped; // a text left out (over the size)
    // The corpus-run engine's controls (corpusrun/engine.h): progress after each text (left-out texts count as
    // done), cancel polled between texts (analyzeExperts then throws Cancelled), pause.
    RunControls controls;
};
struct ExpertRun {
    ExpertReport report;
    std::string model; // ModelInfo::name
    int64_t tokens = 0;
    int snippets = 0, skipped = 0;
};
// `analyze experts`: parses each text (parseForEval), scores it with the router recorded (scoreExperts), aligns
// it (AsC-Eval, median) and tallies its tokens by category (ExpertTally), on the corpus-run engine's loop (nothing
// is stored, so no resume). ModelError for a dense model, InputError when no text could be analysed, Cancelled when
// options.controls cancels.
ExpertRun analyzeExperts(const LanguageModel& model, const std::vector<ExpertText>& texts,
                         const ExpertRunOptions& options = {});
// The document of `analyze experts --json`: expertReportJson plus "model", "tokens" and "snippets".
nlohmann::json expertRunJson(const ExpertRun& run);

} // namespace ascviz
