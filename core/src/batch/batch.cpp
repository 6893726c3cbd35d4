// The batch runner (batch.h): plan the run (runplan.h), then score and store the pending snippets
// (pipeline.h) in the corpus-run engine's loop (corpusrun/engine.h: resume, progress, pause, cancel).
#include "ascviz/batch/batch.h"
#include "ascviz/eval/evaluate.h"

#include "pipeline.h"
#include "runplan.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <thread>

namespace ascviz {
namespace fs = std::filesystem;

EvalRequest evalRequest(const BatchOptions& opts, const std::string& language, const CategoryMap& categories)
{
    EvalRequest req;
    req.language = language;
    req.aggregation = opts.aggregation;
    req.scope = opts.aggregationScope;
    req.categories = &categories;
    req.maxTextBytes = opts.maxTextBytes;
    req.maxAstDepth = opts.maxAstDepth;
    req.maxAstNodes = opts.maxAstNodes;
    req.source = "the snippet";
    return req;
}

EvalResult evaluateEntry(const LanguageModel& model, const CorpusEntry& entry, const BatchOptions& opts,
                         const CategoryMap& categories, std::string* note)
{
    // eval's one entry point: the text's and the tree's limits before the model runs; the prompt is the entry's own
    // (markPrompt), split right after scoring.
    return evaluateText(entry.code, evalRequest(opts, languageOf(entry, opts), categories),
                        [&](const std::string& code, const SyntaxTree&) {
                            ScoreOptions so;
                            so.topK = 0;
                            ScoredText s = model.score(code, so);
                            markPrompt(s, entry, note);
                            return s;
                        });
}

BatchSummary runBatch(const LanguageModel& model, const Corpus& corpus, const fs::path& dbPath,
                      const BatchOptions& request)
{
    RunPlan plan = planRun(model, corpus, request);
    const BatchOptions& opts = plan.opts;
    RunStore store(dbPath, plan);
    const std::set<int64_t>& done = store.done();
    const RunQueue queue = pendingItems(plan.mine, [&done](int i) { return done.count(i) > 0; });
    const std::vector<int>& pending = queue.pending;

    BatchSummary sum;
    sum.db = dbPath;
    sum.total = queue.total;
    sum.resumed = queue.resumed;
    const RunControls& controls = opts;
    ProgressClock clock(controls, queue.total, queue.resumed);

    // Scoring overlaps storing when the model leaves a core free (pipeline.h).
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const bool overlap = model.info().threads == 0 || model.info().threads < cores;
    const GroupScorer scorer(model, corpus, opts, pending);
    SnippetWriter writer(model, corpus, plan, pending, store.db(), sum);
    GroupSource source(scorer, pending.size(), overlap, clock, controls); // its thread is joined however we leave
    std::optional<ScoredGroup> group;
    std::size_t next = 0; // position in `pending` of the snippet stored next
    const RunTally tally = runItems(clock, queue, [&](int) -> std::optional<ItemOutcome> {
        if (!group || next >= group->end) {
            group = source.next();
            if (!group)
                return std::nullopt;
        }
        return writer.store(*group, next++);
    });
    sum.stored = tally.stored;
    sum.errors = tally.errors;
    sum.tokens = tally.tokens;
    sum.cancelled = tally.cancelled || source.cancelled() ||
                    (static_cast<std::size_t>(tally.stored) < pending.size() && controls.cancelRequested());
    sum.seconds = tally.seconds;

    const std::set<int64_t> after = store.db().doneIndices();
    const auto stored = std::count_if(plan.mine.begin(), plan.mine.end(), [&](int i) { return after.count(i) > 0; });
    sum.complete = stored == sum.total;
    setRunStatus(plan.want, sum.complete, sum.cancelled);
    store.db().updateRun(plan.want);
    return sum;
}

} // namespace ascviz
