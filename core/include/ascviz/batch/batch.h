// The batch runner: corpus-level AsC-Eval into a results database (the same code path for the CLI and
// the GUI). Per snippet: LanguageModel::score, prompt/generated marking, evaluate() (eval.h), one
// transaction in the results DB.
//
// Prompt marking: when an entry has a `prompt` that is a byte prefix of its code, tokens whose start is at
// or after prompt.size() are flagged generated (a token straddling the boundary stays prompt); otherwise
// every token is prompt and, when a prompt was given, the snippet's message notes that it was not a prefix.
//
// Long snippets: the model scores texts longer than its context in overlapping windows (model.h); such
// snippets are stored with windowed = 1, never truncated.
#pragma once
#include "ascviz/base/limits.h"
#include "ascviz/corpusrun/engine.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/model/model.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/shards.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

namespace ascviz {

// A batch run's progress: the corpus-run engine's (corpusrun/engine.h), one item per snippet.
using BatchProgress = RunProgress;

// The run's settings; its RunControls (corpusrun/engine.h) are the caller's cancel and pause flags, polled
// between snippets (cancel returns cleanly: the DB holds every finished snippet and is resumable; while pause is
// true the runner waits), and the progress callback, called on the runner's thread after each stored snippet
// (and once at the start).
struct BatchOptions : RunControls {
    Aggregation aggregation = Aggregation::Median;
    AggregationScope aggregationScope = AggregationScope::Tokens; // θ over own tokens or children (eval.h)
    std::string language; // entries without a language of their own (CorpusEntry::language); empty = the default
    int limit = 0;        // evaluate the first `limit` corpus entries (0 = all)
    bool resume = false;  // continue an existing DB (else the DB must not exist)
    int batchSize = 1;    // snippets scored together with scoreBatch (1 = one by one, bit for bit reproducible)
    ShardSpec shard;      // evaluate only this shard of the run (shards.h: snippet k is in shard k mod N)
    // Bounded work (base/limits.h): a snippet over any limit is stored as an error row with the limit's
    // message, without being scored (0 = no limit): its size is checked first, then its tree (parsed before
    // the model runs).
    std::size_t maxTextBytes = limits::kDefaultMaxTextBytes;
    int maxAstDepth = limits::kDefaultMaxAstDepth;
    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes;
    // Model identity stored in the run row (defaults: model.info()).
    std::string modelDir;
};

struct BatchSummary {
    std::filesystem::path db;
    int total = 0;      // planned (of this shard, for a sharded run)
    int stored = 0;     // stored by this call
    int resumed = 0;    // already in the DB before this call
    int errors = 0;     // status error among those stored by this call
    int windowed = 0;   // stored by this call and scored in windows
    int64_t tokens = 0; // tokens scored by this call
    double seconds = 0; // wall time of the work (paused time excluded)
    bool cancelled = false;
    bool complete = false; // every planned snippet is in the DB
};

// Throws InputError when the DB exists without resume, or when resuming a DB whose model, corpus or
// aggregation differ from the request (the message names what differs); ModelError/Error from the model.
// Per-snippet failures are stored as status error and do not stop the run.
BatchSummary runBatch(const LanguageModel& model, const Corpus& corpus, const std::filesystem::path& db,
                      const BatchOptions& opts);

// The evaluation request of a run's snippets in `language` (eval/evaluate.h): the run's aggregation, scope and
// limits, `categories` (kept by the caller, not copied).
EvalRequest evalRequest(const BatchOptions& opts, const std::string& language, const CategoryMap& categories);

// Evaluates one corpus entry exactly as runBatch does (no DB): score, prompt marking, evaluate() in the
// entry's language (else opts.language); `categories` is that language's table.
EvalResult evaluateEntry(const LanguageModel& model, const CorpusEntry& entry, const BatchOptions& opts,
                         const CategoryMap& categories, std::string* note = nullptr);

} // namespace ascviz
