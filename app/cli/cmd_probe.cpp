// ascviz-cli probe --rewrite rename|spacing (method.md §14.4, docs/cli.md): ΔAsC-Eval per category of a corpus
// under meaning-preserving rewrites (rewritten − original, bootstrapped over the rewritten snippets). The rewrites
// and their tree-shape check are the syntax room's (syntax/rewrite.h), the table the analysis room's.
#include "commands.h"
#include "common.h"

#include "ascviz/analysis/ablationtable.h"
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/syntax/rewrite.h"

#include <iostream>
#include <map>

namespace ascviz::cli {

using nlohmann::json;

int cmdProbe(Args& args)
{
    const std::string corpusArg = args.require("--corpus");
    const std::string rewriteArg = args.require("--rewrite");
    const int limit = args.intValue("--limit", 50);
    const int resamples = args.intValue("--resamples", 500, 1, kMaxResamples);
    const uint64_t seed = args.uint64Value("--seed", 20260126);
    const std::string language = languageOptionOrEmpty(args);
    (void)args.flag("--json"); // the table is JSON only
    const bool quiet = args.flag("--quiet");
    const auto out = args.value("--out");
    const RewriteKind kind = usageOf("--rewrite", [&] { return parseRewriteKind(rewriteArg); });
    if (limit < 0)
        throw UsageError("--limit must be >= 0 (0 = every snippet)");
    auto model = loadModel(args);
    args.finish();

    const Corpus corpus = readCorpusOption(corpusArg, language, "");
    std::map<std::string, CategoryMap> tables;
    std::vector<AblationSnippet> rows;
    std::vector<std::string> order;
    int seen = 0, unchanged = 0, rejected = 0, skipped = 0, edits = 0;
    json rejections = json::array();
    for (const auto& e : corpus.entries) {
        if (limit > 0 && seen >= limit)
            break;
        ++seen;
        try {
            const SyntaxTree tree = parseForEval(e.language, e.code);
            const RewriteResult rw = rewriteSnippet(tree, kind);
            if (rw.edits == 0) {
                ++unchanged;
                continue;
            }
            if (!rw.sameShape) {
                ++rejected;
                rejections.push_back({{"id", e.id}, {"difference", rw.difference}});
                if (!quiet)
                    std::cerr << "probe: snippet " << e.id << ": the rewrite changes the tree (" << rw.difference
                              << "); left out\n";
                continue;
            }
            auto it = tables.find(e.language);
            if (it == tables.end())
                it = tables.emplace(e.language, CategoryMap::forLanguage(e.language)).first;
            if (order.empty())
                order = it->second.categories();
            // both texts through the one entry point (eval/evaluate.h): the median over tokens, the language's table
            EvalRequest req;
            req.language = e.language;
            req.aggregation = Aggregation::Median;
            req.categories = &it->second;
            const EvalResult before = evaluateScores(model->score(e.code), req, tree);
            req.source = "the rewritten text";
            const EvalResult after = evaluateText(
                rw.text, req, [&](const std::string& code, const SyntaxTree&) { return model->score(code); });
            rows.push_back({categoryMeans(before), categoryMeans(after)});
            edits += rw.edits;
            if (!quiet)
                std::cerr << "\rprobe: " << rows.size() << " snippets rewritten and scored" << std::flush;
        } catch (const InputError& err) {
            ++skipped;
            if (!quiet)
                std::cerr << "\nprobe: snippet " << e.id << " skipped: " << err.what() << '\n';
        }
    }
    if (!quiet)
        std::cerr << '\n';
    if (rows.empty())
        throw InputError("probe: no snippet of " + corpusArg + " was changed by the " + toString(kind) +
                         " rewrite and kept its tree (" + std::to_string(unchanged) + " unchanged, " +
                         std::to_string(rejected) + " with another tree, " + std::to_string(skipped) + " skipped)");
    json j = {{"model", model->info().name},
              {"rewrite", toString(kind)},
              {"snippets", seen},
              {"rewritten", rows.size()},
              {"unchanged", unchanged},
              {"rejected", rejected},
              {"skipped", skipped},
              {"edits", edits},
              {"resamples", resamples},
              {"seed", seed},
              {"rows", ablationRowsJson(ablationDeltaRows(rows, order, resamples, seed))},
              {"rejections", std::move(rejections)}};
    writeJson(j, out);
    return 0;
}

} // namespace ascviz::cli
