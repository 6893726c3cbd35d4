// ascviz-cli ablate (method.md §14.1, docs/cli.md): ΔAsC-Eval per category of a corpus under head ablation
// (ablated − clean, bootstrapped over snippets), against the same number of random heads drawn K times.
#include "attention_scorer.h"
#include "commands.h"
#include "common.h"

#include "ascviz/analysis/ablationtable.h"
#include "ascviz/attention/headscore.h"
#include "ascviz/attention/relations.h"
#include "ascviz/base/error.h"
#include "ascviz/corpusrun/engine.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/model/ablation.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <set>

namespace ascviz::cli {

using nlohmann::json;

namespace {

struct AblateText {
    std::string code;
    SyntaxTree tree;
    const CategoryMap* categories = nullptr;
    std::set<int> nodes; // --relation: the relation's dependent nodes (empty: every node)
    std::map<std::string, double> clean;
};

// ablate evaluates every text with the median over its tokens, the language's (or the corpus's) table
EvalRequest ablateRequest(const std::string& language, const CategoryMap* categories)
{
    EvalRequest req;
    req.language = language;
    req.aggregation = Aggregation::Median;
    req.categories = categories;
    return req;
}

// the text's ΔAsC-Eval values under the model as it is now (clean or ablated), over the tree parsed once
std::map<std::string, double> valuesUnder(const LanguageModel& model, const AblateText& t, bool relation)
{
    const EvalResult r = evaluateScores(model.score(t.code), ablateRequest(t.tree.language(), t.categories), t.tree);
    return categoryMeans(r, relation ? &t.nodes : nullptr);
}

template <class T> json unitsJson(const std::vector<T>& units)
{
    json out = json::array();
    for (const auto& u : units)
        out.push_back(toString(u));
    return out;
}

// --relation R --top N: the N heads whose attention best predicts R over the snippets (analyze heads' score at
// top-1 with the first-token metric, method.md §11: the share of R's edges whose dependent's first token attends
// most to the head's first token); ties go to the lower layer, then head. `selection` receives the scores.
std::vector<AttentionHead> bestHeadsFor(const LanguageModel& model, const std::vector<AblateText>& texts,
                                        const std::string& relation, int n, json& selection)
{
    const int layers = model.info().layers, heads = attentionHeads(model);
    const int bos = model.tokenizer().addsBos() ? 1 : 0;
    std::vector<int> hits(static_cast<std::size_t>(layers * heads), 0);
    int edges = 0;
    for (const auto& t : texts) {
        std::vector<Relation> rels;
        for (auto& r : syntaxRelations(t.tree))
            if (r.type == relation)
                rels.push_back(std::move(r));
        if (rels.empty())
            continue;
        attachTokens(rels, model.tokenizer().encode(t.code, false).offsets);
        HeadScorer scorer(layers, bos, headEdges(rels, HeadMetric::First));
        AttentionToScorer obs(scorer);
        ScoreOptions so;
        so.topK = 0;
        so.observer = &obs;
        (void)model.score(t.code, so);
        for (std::size_t e = 0; e < scorer.edges().size(); ++e) {
            if (!scorer.evaluated(e))
                continue;
            ++edges;
            for (int l = 0; l < layers; ++l)
                for (int h = 0; h < heads; ++h)
                    if (scorer.rank(e, l, h) < 1)
                        ++hits[static_cast<std::size_t>(l * heads + h)];
        }
    }
    if (edges == 0)
        throw InputError("relation " + relation + " has no edge in the " + std::to_string(texts.size()) +
                         " snippets ablated: no head can be picked for it (analyze heads lists the relations)");
    std::vector<std::size_t> order(hits.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return hits[a] > hits[b]; });
    std::vector<AttentionHead> out;
    json scores = json::object();
    for (std::size_t i = 0; i < static_cast<std::size_t>(n) && i < order.size(); ++i) {
        const AttentionHead h{static_cast<int>(order[i]) / heads, static_cast<int>(order[i]) % heads};
        out.push_back(h);
        scores[toString(h)] = static_cast<double>(hits[order[i]]) / edges;
    }
    std::sort(out.begin(), out.end());
    selection = {{"relation", relation}, {"metric", "first"}, {"k", 1}, {"edges", edges}, {"scores", scores}};
    return out;
}

} // namespace

int cmdAblate(Args& args)
{
    const std::string corpusArg = args.require("--corpus");
    const auto headsArg = args.value("--heads");
    const auto relation = args.value("--relation");
    const auto top = args.value("--top");
    const auto experts = args.value("--experts");
    const auto control = args.value("--control");
    const int draws = args.intValue("--draws", 10, 1, kMaxDraws);
    const int limit = args.intValue("--limit", 50);
    const int resamples = args.intValue("--resamples", 500, 1, kMaxResamples);
    const uint64_t seed = args.uint64Value("--seed", 20260126);
    const std::string modeArg = args.valueOr("--ablation", "zero");
    const std::string language = languageOptionOrEmpty(args);
    (void)args.flag("--json"); // the table is JSON only
    const bool quiet = args.flag("--quiet");
    const auto out = args.value("--out");
    if (top && (top->empty() || top->find_first_not_of("0123456789") != std::string::npos || top->size() > 4 ||
                std::stoi(*top) < 1))
        throw UsageError("--top expects a number of heads from 1 to 9999, got '" + *top + "'");
    const int topN = top ? std::stoi(*top) : 0;
    if (top && !relation)
        throw UsageError("--top N picks the N best heads of a relation: give --relation R too");
    if (int(headsArg.has_value()) + int(top.has_value()) + int(experts.has_value()) != 1)
        throw UsageError("ablate needs exactly one of --heads L.H,…, --relation R --top N or --experts L.E,…");
    if (control && *control != "random")
        throw UsageError("--control must be random");
    if (draws < 1 || limit < 0)
        throw UsageError("--draws must be >= 1 and --limit >= 0");
    std::vector<AttentionHead> heads;
    std::vector<ExpertRef> expertSet;
    AblationMode mode = AblationMode::Zero;
    usageOf(std::string(experts ? "--experts" : "--heads") + "/--ablation", [&] {
        if (headsArg)
            heads = parseHeadList(*headsArg);
        if (experts)
            expertSet = parseExpertList(*experts);
        mode = parseAblationMode(modeArg);
    });
    if (experts && mode == AblationMode::Mean)
        throw UsageError("--ablation mean applies to heads; experts are ablated by masking the router's choice");
    auto model = loadModel(args);
    args.finish();
    usageOf(experts ? "--experts" : "--heads", [&] {
        if (experts)
            checkExperts(*model, expertSet);
        else
            checkHeads(*model, heads);
    });

    const Corpus corpus = readCorpusOption(corpusArg, language, "");
    std::map<std::string, CategoryMap> tables;
    std::vector<AblateText> texts;
    int skipped = 0;
    for (const auto& e : corpus.entries) {
        if (limit > 0 && texts.size() >= static_cast<std::size_t>(limit))
            break;
        try {
            auto it = tables.find(e.language);
            if (it == tables.end())
                it = tables.emplace(e.language, CategoryMap::forLanguage(e.language)).first;
            // the clean evaluation: limits, parse, score, evaluate (eval/evaluate.h); its tree is kept for the
            // ablated runs and the relation's nodes
            const EvalResult clean =
                evaluateText(e.code, ablateRequest(e.language, &it->second),
                             [&](const std::string& code, const SyntaxTree&) { return model->score(code); });
            AblateText t{e.code, clean.tree, &it->second, {}, {}};
            if (relation)
                for (const auto& rel : syntaxRelations(t.tree))
                    if (rel.type == *relation)
                        t.nodes.insert(rel.dependent.node);
            t.clean = categoryMeans(clean, relation ? &t.nodes : nullptr);
            texts.push_back(std::move(t));
        } catch (const InputError& err) {
            ++skipped;
            if (!quiet)
                std::cerr << "ablate: snippet " << e.id << " skipped: " << err.what() << '\n';
        }
    }
    if (texts.empty())
        throw InputError("ablate: no snippet of " + corpusArg + " could be evaluated");
    const std::vector<std::string> order = texts.front().categories->categories();

    json selection = nullptr;
    if (top)
        heads = bestHeadsFor(*model, texts, *relation, topN, selection);

    // Every snippet under one head set (mean ablation: each snippet's own means). Progress and Ctrl-C through
    // the corpus-run engine's types (corpusrun/engine.h), as every corpus loop reports them; nothing is stored,
    // so an interrupted run writes nothing.
    const std::size_t total = texts.size() * (1 + (control ? static_cast<std::size_t>(draws) : 0));
    InterruptScope interrupt;
    RunControls controls;
    controls.cancel = InterruptScope::cancelFlag();
    controls.progress = [&](const RunProgress& p) {
        if (!quiet && p.done > 0)
            std::cerr << "\rablate: " << p.done << "/" << p.total << " ablated snippets" << std::flush;
    };
    ProgressClock clock(controls, static_cast<int>(total), 0);
    auto next = [&] {
        if (!clock.waitWhilePaused())
            throw InputError("ablate: interrupted after " + std::to_string(clock.progress().done) + " of " +
                             std::to_string(total) + " ablated snippets; nothing written");
    };
    auto counted = [&] {
        ++clock.progress().done;
        clock.emit({});
    };
    auto under = [&](const std::vector<AttentionHead>& set) {
        std::vector<AblationSnippet> out;
        const auto zero = mode == AblationMode::Zero ? withAblatedHeads(*model, set) : nullptr;
        for (const auto& t : texts) {
            next();
            const auto ablated = zero ? nullptr : withAblatedHeads(*model, set, meanHeadOutputs(*model, t.code, set));
            out.push_back({t.clean, valuesUnder(zero ? *zero : *ablated, t, relation.has_value())});
            counted();
        }
        return out;
    };
    // Every snippet under one expert set.
    auto underExperts = [&](const std::vector<ExpertRef>& set) {
        std::vector<AblationSnippet> out;
        const auto ablated = withAblatedExperts(*model, set);
        for (const auto& t : texts) {
            next();
            out.push_back({t.clean, valuesUnder(*ablated, t, relation.has_value())});
            counted();
        }
        return out;
    };
    json j = {{"model", model->info().name},
              {"ablated", experts ? unitsJson(expertSet) : unitsJson(heads)},
              {"unit", experts ? "expert" : "head"},
              {"mode", experts ? "router" : toString(mode)},
              {"relation", relation ? json(*relation) : json(nullptr)},
              {"selected_by", selection},
              {"snippets", texts.size()},
              {"skipped", skipped},
              {"resamples", resamples},
              {"seed", seed}};
    j["rows"] =
        ablationRowsJson(ablationDeltaRows(experts ? underExperts(expertSet) : under(heads), order, resamples, seed));
    j["control"] = nullptr;
    if (control && experts) {
        // |S| experts drawn uniformly without replacement from the other experts of the mixture-of-experts
        // blocks, K times (a draw that would leave a block fewer experts than a token is routed to is redrawn).
        std::vector<ExpertRef> pool;
        for (int l = 0; l < model->info().layers; ++l)
            for (int e = 0; e < routedExperts(*model); ++e)
                if (!std::binary_search(expertSet.begin(), expertSet.end(), ExpertRef{l, e})) {
                    try {
                        checkExperts(*model, {{l, e}});
                        pool.push_back({l, e});
                    } catch (const InputError&) {
                        // a dense block: not a candidate
                    }
                }
        if (pool.size() < expertSet.size())
            throw UsageError("--control random needs " + std::to_string(expertSet.size()) +
                             " experts outside --experts; the model has " + std::to_string(pool.size()));
        std::mt19937_64 rng(seed);
        std::vector<std::vector<AblationSnippet>> perDraw;
        json drawn = json::array();
        for (int k = 0; k < draws; ++k) {
            std::vector<ExpertRef> set;
            for (int attempt = 0; attempt < 100; ++attempt) {
                set = pool;
                for (std::size_t i = 0; i < expertSet.size(); ++i)
                    std::swap(set[i], set[std::uniform_int_distribution<std::size_t>(i, set.size() - 1)(rng)]);
                set.resize(expertSet.size());
                std::sort(set.begin(), set.end());
                try {
                    checkExperts(*model, set);
                    break;
                } catch (const InputError&) {
                    set.clear();
                }
            }
            if (set.empty())
                throw UsageError("--control random: no draw of " + std::to_string(expertSet.size()) +
                                 " experts leaves every block enough experts to route to");
            drawn.push_back(unitsJson(set));
            perDraw.push_back(underExperts(set));
        }
        j["control"] = {{"kind", "random"},
                        {"draws", draws},
                        {"experts", std::move(drawn)},
                        {"rows", ablationRowsJson(controlDeltaRows(perDraw, order))}};
    } else if (control) {
        // |S| heads drawn uniformly without replacement from the heads not in S, K times.
        std::vector<AttentionHead> pool;
        for (int l = 0; l < model->info().layers; ++l)
            for (int h = 0; h < attentionHeads(*model); ++h)
                if (!std::binary_search(heads.begin(), heads.end(), AttentionHead{l, h}))
                    pool.push_back({l, h});
        if (pool.size() < heads.size())
            throw UsageError("--control random needs " + std::to_string(heads.size()) +
                             " heads outside --heads; the "
                             "model has " +
                             std::to_string(pool.size()));
        std::mt19937_64 rng(seed);
        std::vector<std::vector<AblationSnippet>> perDraw;
        json drawn = json::array();
        for (int k = 0; k < draws; ++k) {
            // a partial Fisher-Yates over a fresh copy of the (sorted) pool: the first |S| are a uniform draw
            std::vector<AttentionHead> set = pool;
            for (std::size_t i = 0; i < heads.size(); ++i)
                std::swap(set[i], set[std::uniform_int_distribution<std::size_t>(i, set.size() - 1)(rng)]);
            set.resize(heads.size());
            std::sort(set.begin(), set.end());
            drawn.push_back(unitsJson(set));
            perDraw.push_back(under(set));
        }
        j["control"] = {{"kind", "random"},
                        {"draws", draws},
                        {"heads", std::move(drawn)},
                        {"rows", ablationRowsJson(controlDeltaRows(perDraw, order))}};
    }
    if (!quiet)
        std::cerr << "\n";
    writeJson(j, out);
    return 0;
}

} // namespace ascviz::cli
