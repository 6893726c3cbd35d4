// Experts by syntax (experts.h; method.md §15).
#include "ascviz/experts/experts.h"

#include "ascviz/base/error.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/model/observer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ascviz {
namespace {

// kExperts [T, 2, k] of each sparse layer, rows placed at their position in the scored ids (windows of a long
// text come with their position; a later window's rows overwrite the overlap, as its predictions do).
class ExpertsRecorder : public IntermediateObserver {
public:
    explicit ExpertsRecorder(std::size_t positions) : m_rows(positions) {}
    bool wants(std::string_view name, int) const override { return name == intermediate::kExperts; }
    void observe(const Intermediate& v) override
    {
        if (v.shape.size() != 3 || v.shape[1] != 2)
            throw ModelError("internal: experts of layer " + std::to_string(v.layer) + " have an unexpected shape");
        const int64_t T = v.shape[0], K = v.shape[2];
        for (int64_t t = 0; t < T; ++t) {
            const auto pos = static_cast<std::size_t>(v.position + t);
            if (pos >= m_rows.size())
                continue;
            LayerExperts le;
            le.layer = v.layer;
            for (int64_t k = 0; k < K; ++k) {
                le.ids.push_back(static_cast<int>(v.data[static_cast<std::size_t>(t * 2 * K + k)]));
                le.probs.push_back(v.data[static_cast<std::size_t>((t * 2 + 1) * K + k)]);
            }
            auto& row = m_rows[pos];
            std::erase_if(row, [&](const LayerExperts& e) { return e.layer == v.layer; });
            row.push_back(std::move(le));
        }
    }
    std::vector<TokenExperts> m_rows; // [position]
};

} // namespace

namespace {

// ModelError for a dense model: there is no routing to show.
void requireExperts(const LanguageModel& model)
{
    const ModelInfo& info = model.info();
    if (info.experts <= 0)
        throw ModelError("the model " + info.name + " (" + info.architecture +
                             ") is dense: it has no mixture-of-experts layers whose routing could be shown",
                         ErrorContext(info.dir.string()));
}

// The recorded rows of the text's tokens (after BOS when there is one), each in layer order.
std::vector<TokenExperts> tokenRows(ExpertsRecorder& rec, std::size_t tokens, std::size_t bos)
{
    std::vector<TokenExperts> out;
    for (std::size_t j = 0; j < tokens; ++j) {
        auto row = std::move(rec.m_rows[j + bos]);
        std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.layer < b.layer; });
        out.push_back(std::move(row));
    }
    return out;
}

} // namespace

ScoredExperts scoreExperts(const LanguageModel& model, const std::string& text)
{
    requireExperts(model);
    const std::size_t bos = model.tokenizer().addsBos() ? 1 : 0;
    const auto enc = model.tokenizer().encode(text, false);
    ExpertsRecorder rec(enc.ids.size() + bos);
    ScoreOptions o;
    o.topK = 0;
    o.observer = &rec;
    ScoredExperts out;
    out.scored = model.score(text, o);
    if (out.scored.tokens.size() + bos != rec.m_rows.size())
        throw ModelError("scoring gave " + std::to_string(out.scored.tokens.size()) + " tokens, the encoding " +
                         std::to_string(enc.ids.size()));
    out.tokens = tokenRows(rec, out.scored.tokens.size(), bos);
    return out;
}

ScoredExperts scoreExpertsOfTokens(const LanguageModel& model, const ScoredText& scored)
{
    requireExperts(model);
    std::vector<int32_t> ids;
    const std::optional<int32_t> bosId = model.tokenizer().bosId();
    const std::size_t bos = model.tokenizer().addsBos() && bosId ? 1 : 0;
    if (bos)
        ids.push_back(*bosId);
    for (const ScoredToken& t : scored.tokens)
        ids.push_back(t.id);
    ExpertsRecorder rec(ids.size());
    if (ids.size() >= 2)
        model.observeIds(ids, rec);
    ScoredExperts out;
    out.scored = scored;
    out.tokens = tokenRows(rec, scored.tokens.size(), bos);
    return out;
}

void addExpertFields(nlohmann::json& j, const std::vector<TokenExperts>& tokens)
{
    auto& list = j.at("tokens");
    if (list.size() != tokens.size())
        throw InputError("experts of " + std::to_string(tokens.size()) + " tokens for an eval of " +
                         std::to_string(list.size()));
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        nlohmann::json layers = nlohmann::json::array();
        for (const auto& le : tokens[i])
            layers.push_back({{"layer", le.layer}, {"ids", le.ids}, {"probs", le.probs}});
        list[i]["experts"] = std::move(layers);
    }
}

ExpertTally::ExpertTally(int layers, int experts, int expertsPerToken)
    : m_layers(layers), m_experts(experts), m_k(expertsPerToken)
{
    if (layers <= 0 || experts <= 0 || expertsPerToken <= 0 || expertsPerToken > experts)
        throw InputError("an experts tally needs layers > 0 and 0 < experts per token <= experts, not " +
                         std::to_string(layers) + " layers, " + std::to_string(expertsPerToken) + " of " +
                         std::to_string(experts) + " experts");
}

void ExpertTally::count(Counts& c, const TokenExperts& experts) const
{
    ++c.n;
    for (const auto& le : experts) {
        auto& row = c.perLayer[le.layer];
        row.resize(static_cast<std::size_t>(m_experts), 0);
        for (int e : le.ids)
            ++row[static_cast<std::size_t>(e)];
    }
}

void ExpertTally::addToken(const std::set<std::string>& categories, const TokenExperts& experts)
{
    for (const auto& le : experts) {
        if (le.layer < 0 || le.layer >= m_layers)
            throw InputError("experts of layer " + std::to_string(le.layer) + " in a model of " +
                             std::to_string(m_layers) + " layers");
        if (static_cast<int>(le.ids.size()) != m_k)
            throw InputError(std::to_string(le.ids.size()) + " experts chosen at layer " + std::to_string(le.layer) +
                             ", not " + std::to_string(m_k));
        for (int e : le.ids)
            if (e < 0 || e >= m_experts)
                throw InputError("expert " + std::to_string(e) + " at layer " + std::to_string(le.layer) +
                                 " of a model of " + std::to_string(m_experts) + " experts");
    }
    count(m_all, experts);
    for (const auto& c : categories)
        count(m_categories[c], experts);
}

void ExpertTally::add(const EvalResult& r, const std::vector<TokenExperts>& tokens)
{
    if (tokens.size() != r.scored.tokens.size())
        throw InputError("experts of " + std::to_string(tokens.size()) + " tokens for a text of " +
                         std::to_string(r.scored.tokens.size()));
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        std::set<std::string> cats;
        if (t < r.nodesOfToken.size())
            for (int node : r.nodesOfToken[t])
                if (const auto& c = r.nodes[static_cast<std::size_t>(node)].category)
                    cats.insert(*c);
        addToken(cats, tokens[t]);
    }
}

ExpertReport ExpertTally::report() const
{
    ExpertReport out;
    out.layers = m_layers;
    out.experts = m_experts;
    const double k = m_k;
    for (const auto& [category, c] : m_categories) {
        for (const auto& [layer, routed] : c.perLayer) {
            const auto& all = m_all.perLayer.at(layer);
            const double nAll = static_cast<double>(m_all.n);
            double kl = 0;
            for (int e = 0; e < m_experts; ++e) {
                const double share =
                    static_cast<double>(routed[static_cast<std::size_t>(e)]) / static_cast<double>(c.n);
                out.rows.push_back({category, layer, e, share, c.n});
                const double p = share / k, q = static_cast<double>(all[static_cast<std::size_t>(e)]) / nAll / k;
                if (p > 0)
                    kl += p * std::log2(p / q);
            }
            out.specialisation.push_back({category, layer, c.n, std::max(0.0, kl)});
        }
    }
    return out;
}

nlohmann::json expertReportJson(const ExpertReport& r)
{
    nlohmann::json rows = nlohmann::json::array(), spec = nlohmann::json::array();
    for (const auto& row : r.rows)
        rows.push_back({{"category", row.category},
                        {"layer", row.layer},
                        {"expert", row.expert},
                        {"share", row.share},
                        {"n", row.n}});
    for (const auto& s : r.specialisation)
        spec.push_back({{"category", s.category}, {"layer", s.layer}, {"n", s.n}, {"kl_bits", s.kl}});
    return {
        {"layers", r.layers}, {"experts", r.experts}, {"rows", std::move(rows)}, {"specialisation", std::move(spec)}};
}

ExpertRun analyzeExperts(const LanguageModel& model, const std::vector<ExpertText>& texts,
                         const ExpertRunOptions& options)
{
    const ModelInfo& info = model.info();
    if (info.experts <= 0)
        throw ModelError("the model " + info.name + " (" + info.architecture +
                             ") is dense: it has no mixture-of-experts layers whose routing could be analysed",
                         ErrorContext(info.dir.string()));
    ExpertTally tally(info.layers, info.experts, info.expertsPerToken);
    ExpertRun run;
    run.model = info.name;
    std::vector<int> all(texts.size());
    std::iota(all.begin(), all.end(), 0);
    const RunQueue queue = pendingItems(all, [](int) { return false; });
    ProgressClock clock(options.controls, queue.total, queue.resumed);
    const RunTally done = runItems(clock, queue, [&](int i) -> std::optional<ItemOutcome> {
        const ExpertText& e = texts[static_cast<std::size_t>(i)];
        if (options.maxTextBytes && e.code.size() > options.maxTextBytes) {
            if (options.skipped)
                options.skipped(e, std::to_string(e.code.size()) + " bytes, over the text size limit " +
                                       std::to_string(options.maxTextBytes));
            ++run.skipped;
            return ItemOutcome{e.location, true, 0};
        }
        EvalRequest req; // θ = median over tokens, the language's categories (method.md §15)
        req.language = e.language;
        req.maxTextBytes = 0; // checked above: an over-long text is left out, not an error
        req.maxAstDepth = options.maxAstDepth;
        req.maxAstNodes = options.maxAstNodes;
        req.source = e.location;
        std::vector<TokenExperts> routed;
        const EvalResult r = evaluateText(e.code, req, [&](const std::string& code, const SyntaxTree&) {
            ScoredExperts se = scoreExperts(model, code);
            routed = std::move(se.tokens);
            return std::move(se.scored);
        });
        tally.add(r, routed);
        ++run.snippets;
        return ItemOutcome{e.location, true, static_cast<int64_t>(routed.size())};
    });
    if (done.cancelled)
        throw Cancelled();
    if (run.snippets == 0)
        throw InputError("none of the " + std::to_string(texts.size()) + " texts could be analysed (" +
                         std::to_string(run.skipped) + " over the size limit)");
    run.report = tally.report();
    run.tokens = tally.tokens();
    return run;
}

nlohmann::json expertRunJson(const ExpertRun& run)
{
    nlohmann::json j = expertReportJson(run.report);
    j["model"] = run.model;
    j["tokens"] = run.tokens;
    j["snippets"] = run.snippets;
    return j;
}

} // namespace ascviz
