// ascviz-cli probe --rewrite rename|spacing (method.md §14.4, docs/cli.md): ΔAsC-Eval per category of a corpus
// under meaning-preserving rewrites (rewritten − original, bootstrapped over the rewritten snippets). The rewrites
// and their tree-shape check are the syntax room's (syntax/rewrite.h), the table the analysis room's.
#include "commands.h"
#include "common.h"

#include "ascviz/analysis/ablationtable.h"
#include "ascviz/base/error.h"
#include "ascviz/corpusrun/engine.h"
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
    int unchanged = 0, rejected = 0, skipped = 0, edits = 0;
    json rejections = json::array();
    // The corpus-run engine's loop (corpusrun/engine.h): the first --limit snippets, progress and Ctrl-C
    // (stop after the current snippet) as every corpus loop reports them; nothing is stored, so no resume.
    const RunSlice slice = planSlice(static_cast<int>(corpus.entries.size()), limit, ShardSpec{});
    const int seen = static_cast<int>(slice.mine.size());
    const RunQueue queue = pendingItems(slice.mine, [](int) { return false; });
    InterruptScope interrupt;
    RunControls controls;
    controls.cancel = InterruptScope::cancelFlag();
    controls.progress = [&](const RunProgress&) {
        if (!quiet && !rows.empty())
            std::cerr << "\rprobe: " << rows.size() << " snippets rewritten and scored" << std::flush;
    };
    ProgressClock clock(controls, queue.total, queue.resumed);
    const RunTally tally = runItems(clock, queue, [&](int i) -> std::optional<ItemOutcome> {
        const CorpusEntry& e = corpus.entries[static_cast<std::size_t>(i)];
        try {
            const SyntaxTree tree = parseForEval(e.language, e.code);
            const RewriteResult rw = rewriteSnippet(tree, kind);
            if (rw.edits == 0) {
                ++unchanged;
                return ItemOutcome{e.id, true, 0};
            }
            if (!rw.sameShape) {
                ++rejected;
                rejections.push_back({{"id", e.id}, {"difference", rw.difference}});
                if (!quiet)
                    std::cerr << "probe: snippet " << e.id << ": the rewrite changes the tree (" << rw.difference
                              << "); left out\n";
                return ItemOutcome{e.id, true, 0};
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
            const ScoredText original = model->score(e.code);
            const EvalResult before = evaluateScores(original, req, tree);
            req.source = "the rewritten text";
            std::size_t rewrittenTokens = 0;
            const EvalResult after = evaluateText(rw.text, req, [&](const std::string& code, const SyntaxTree&) {
                ScoredText scored = model->score(code);
                rewrittenTokens = scored.tokens.size();
                return scored;
            });
            rows.push_back({categoryMeans(before), categoryMeans(after)});
            edits += rw.edits;
            return ItemOutcome{e.id, true, static_cast<int64_t>(original.tokens.size() + rewrittenTokens)};
        } catch (const InputError& err) {
            ++skipped;
            if (!quiet)
                std::cerr << "\nprobe: snippet " << e.id << " skipped: " << err.what() << '\n';
            return ItemOutcome{e.id, false, 0};
        }
    });
    if (!quiet)
        std::cerr << '\n';
    if (tally.cancelled)
        throw InputError("probe: interrupted after " + std::to_string(tally.stored) + " of " + std::to_string(seen) +
                         " snippets; nothing written");
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
