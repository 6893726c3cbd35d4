// The batch runner (batch.h): plan the run (runplan.h), then score and store the pending snippets
// (pipeline.h) while the progress clock reports (progressclock.h).
#include "ascviz/batch/batch.h"
#include "ascviz/eval/evaluate.h"

#include "pipeline.h"
#include "progressclock.h"
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

    BatchSummary sum;
    sum.db = dbPath;
    sum.total = static_cast<int>(plan.mine.size());
    std::vector<int> pending;
    for (int i : plan.mine) {
        if (done.count(i))
            ++sum.resumed;
        else
            pending.push_back(i);
    }
    ProgressClock clock(opts, sum.total, sum.resumed);
    clock.emit({});

    // Scoring overlaps storing when the model leaves a core free (pipeline.h).
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const bool overlap = model.info().threads == 0 || model.info().threads < cores;
    const GroupScorer scorer(model, corpus, opts, pending);
    SnippetWriter writer(model, corpus, plan, pending, store.db(), clock, sum);
    GroupSource source(scorer, pending.size(), overlap, clock, opts); // its thread is joined however we leave
    while (auto group = source.next()) {
        if (!writer.store(*group)) {
            sum.cancelled = true;
            break;
        }
    }
    if (source.cancelled())
        sum.cancelled = true;
    if (writer.processed() < pending.size() && cancelRequested(opts))
        sum.cancelled = true;
    sum.seconds = clock.worked();

    const std::set<int64_t> after = store.db().doneIndices();
    const auto stored = std::count_if(plan.mine.begin(), plan.mine.end(), [&](int i) { return after.count(i) > 0; });
    sum.complete = stored == sum.total;
    setRunStatus(plan.want, sum.complete, sum.cancelled);
    store.db().updateRun(plan.want);
    return sum;
}

} // namespace ascviz
