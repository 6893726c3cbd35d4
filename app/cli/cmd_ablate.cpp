// ascviz-cli ablate (method.md §14.1, docs/cli.md): ΔAsC-Eval per category of a corpus under head ablation
// (ablated − clean, bootstrapped over snippets), against the same number of random heads drawn K times.
#include "commands.h"
#include "common.h"

#include "ascviz/analysis/ablationtable.h"
#include "ascviz/attention/relations.h"
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
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

// Per category, the mean of the node values of `r` (only `only` when given).
std::map<std::string, double> categoryMeans(const EvalResult& r, const std::set<int>* only)
{
    std::map<std::string, std::pair<double, int>> sums;
    for (std::size_t k = 0; k < r.nodes.size(); ++k) {
        const auto& n = r.nodes[k];
        if (!n.category || !n.value || (only && !only->count(static_cast<int>(k))))
            continue;
        auto& s = sums[*n.category];
        s.first += *n.value;
        ++s.second;
    }
    std::map<std::string, double> out;
    for (const auto& [c, s] : sums)
        out[c] = s.first / s.second;
    return out;
}

std::map<std::string, double> valuesUnder(const LanguageModel& model, const AblateText& t, bool relation)
{
    const EvalResult r = evaluate(model.score(t.code), t.tree, Aggregation::Median, *t.categories);
    return categoryMeans(r, relation ? &t.nodes : nullptr);
}

json headsJson(const std::vector<AttentionHead>& heads)
{
    json out = json::array();
    for (const auto& h : heads)
        out.push_back(toString(h));
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
    const int draws = args.intValue("--draws", 10);
    const int limit = args.intValue("--limit", 50);
    const int resamples = args.intValue("--resamples", 500, 1, kMaxResamples);
    const uint64_t seed = args.uint64Value("--seed", 20260126);
    const std::string modeArg = args.valueOr("--ablation", "zero");
    const std::string language = languageOptionOrEmpty(args);
    (void)args.flag("--json"); // the table is JSON only
    const bool quiet = args.flag("--quiet");
    const auto out = args.value("--out");
    if (experts)
        throw UsageError("--experts: expert ablation needs a mixture-of-experts family, which this build's decoder "
                         "does not run");
    if (top)
        throw UsageError("--top: picking a relation's best heads is not implemented yet; give --heads L.H,… (e.g. "
                         "analyze heads' best_head_per_k) and --relation R to restrict the delta");
    if (!headsArg)
        throw UsageError("ablate needs --heads L.H,…");
    if (control && *control != "random")
        throw UsageError("--control must be random");
    if (draws < 1 || limit < 0)
        throw UsageError("--draws must be >= 1 and --limit >= 0");
    std::vector<AttentionHead> heads;
    AblationMode mode = AblationMode::Zero;
    try {
        heads = parseHeadList(*headsArg);
        mode = parseAblationMode(modeArg);
    } catch (const InputError& e) {
        throw UsageError(std::string("--heads/--ablation: ") + e.what());
    }
    auto model = loadModel(args);
    args.finish();
    try {
        checkHeads(*model, heads);
    } catch (const InputError& e) {
        throw UsageError(std::string("--heads: ") + e.what());
    }

    const Corpus corpus = readCorpusOption(corpusArg, language, "");
    std::map<std::string, CategoryMap> tables;
    std::vector<AblateText> texts;
    int skipped = 0;
    for (const auto& e : corpus.entries) {
        if (limit > 0 && texts.size() >= static_cast<std::size_t>(limit))
            break;
        try {
            AblateText t{e.code, parseForEval(e.language, e.code), nullptr, {}, {}};
            auto it = tables.find(e.language);
            if (it == tables.end())
                it = tables.emplace(e.language, CategoryMap::forLanguage(e.language)).first;
            t.categories = &it->second;
            if (relation)
                for (const auto& rel : syntaxRelations(t.tree))
                    if (rel.type == *relation)
                        t.nodes.insert(rel.dependent.node);
            t.clean = valuesUnder(*model, t, relation.has_value());
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

    // Every snippet under one head set (mean ablation: each snippet's own means).
    std::size_t done = 0;
    const std::size_t total = texts.size() * (1 + (control ? static_cast<std::size_t>(draws) : 0));
    auto under = [&](const std::vector<AttentionHead>& set) {
        std::vector<AblationSnippet> out;
        const auto zero = mode == AblationMode::Zero ? withAblatedHeads(*model, set) : nullptr;
        for (const auto& t : texts) {
            const auto ablated = zero ? nullptr : withAblatedHeads(*model, set, meanHeadOutputs(*model, t.code, set));
            out.push_back({t.clean, valuesUnder(zero ? *zero : *ablated, t, relation.has_value())});
            if (!quiet)
                std::cerr << "\rablate: " << ++done << "/" << total << " ablated snippets" << std::flush;
        }
        return out;
    };
    json j = {{"model", model->info().name}, {"ablated", headsJson(heads)},
              {"mode", toString(mode)},      {"relation", relation ? json(*relation) : json(nullptr)},
              {"snippets", texts.size()},    {"skipped", skipped},
              {"resamples", resamples},      {"seed", seed}};
    j["rows"] = ablationRowsJson(ablationDeltaRows(under(heads), order, resamples, seed));
    j["control"] = nullptr;
    if (control) {
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
            drawn.push_back(headsJson(set));
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
