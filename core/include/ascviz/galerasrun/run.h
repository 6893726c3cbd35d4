// Galeras generation runs (method.md §12, docs/galeras.md): for every testbed item × treatment, the model
// completes the rendered prompt; the row (prompt, completion, stop reason, outcomes, confounders, the
// completion's AsC-Eval) goes into the runs database in its own transaction. A killed or cancelled run resumes
// from the rows stored: nothing lost, nothing twice. The loop, its shard, resume and cancel are the corpus-run
// engine's (corpusrun/engine.h); one item is one testbed item under one treatment.
#pragma once
#include "ascviz/corpusrun/engine.h"
#include "ascviz/galeras/testbed.h"
#include "ascviz/galeras/treatments.h"
#include "ascviz/model/model.h"
#include "ascviz/results/galerasdb.h"

#include <filesystem>
#include <functional>
#include <map>
#include <string>

namespace ascviz {

struct GalerasRunOptions {
    Testbed testbed = Testbed::WithDocString; // the paper's testbed (seed 003)
    uint64_t seed = 20230807;                 // the cut rule's draws (sampling has its own, generation.seed)
    GenerationSettings generation;            // maxNewTokens, greedy / sampling
    bool stopAtFunctionEnd = false;           // stop when the completion goes past the function, and cut it there
    bool resume = false;
    ShardSpec shard;       // items k with k mod N == I (results/shards.h)
    std::size_t limit = 0; // the first N testbed items (0 = all)
    // Bounded work (base/limits.h; 0 = no limit): records over maxTextBytes or maxAstNodes are skipped by the
    // testbed (named); a template over maxTextBytes is refused; a rendered prompt over it is stored as an
    // error row without generating; the completion's AsC-Eval is bounded by maxAstDepth and maxAstNodes.
    std::size_t maxTextBytes = limits::kDefaultMaxTextBytes;
    int maxAstDepth = limits::kDefaultMaxAstDepth;
    std::size_t maxAstNodes = limits::kDefaultMaxAstNodes;
};

struct GalerasRunSummary {
    int items = 0;                                // testbed items in this shard
    int planned = 0;                              // items × treatments
    int done = 0;                                 // rows written now
    int resumed = 0;                              // rows found from an earlier run
    int errors = 0;                               // rows stored with an error
    std::map<std::string, int> skipped;           // testbed reason -> records
    std::vector<TestbedSet::OverLimit> overLimit; // the records skipped for a limit, named
    std::map<std::string, int> stops;             // stop reason -> rows written now
    bool cancelled = false;
};

struct GalerasProgress {
    int finished = 0, planned = 0; // rows, resumed ones included
    std::string recordId, treatment, stop;
};

// Throws InputError (a database that exists without --resume, a resume with other settings: the message
// names the setting), SqliteError. A row whose generation fails is stored with its error (stop "error").
GalerasRunSummary runGaleras(const LanguageModel& model, const RecordSet& records, const TreatmentSet& treatments,
                             const std::filesystem::path& db, const GalerasRunOptions& opts,
                             const std::function<void(const GalerasProgress&)>& progress = {},
                             const CancelFlag* cancel = nullptr);
// The same run driven by the caller's RunControls (corpusrun/engine.h): cancel, pause (the run waits between
// rows) and the engine's progress (rows done of planned, rate, ETA), as the GUI's run controller gives them.
GalerasRunSummary runGaleras(const LanguageModel& model, const RecordSet& records, const TreatmentSet& treatments,
                             const std::filesystem::path& db, const GalerasRunOptions& opts,
                             const RunControls& controls);

// One row's outcomes and the partial code's confounders (prompt_size is set by the runner); the completion's
// AsC-Eval comes from `scored` (the model's scores of partial + completion, nullptr: none).
std::map<std::string, std::optional<double>> galerasValues(const TestbedItem& item, const std::string& completion,
                                                           const ScoredText* scored,
                                                           int maxAstDepth = limits::kDefaultMaxAstDepth,
                                                           std::size_t maxAstNodes = limits::kDefaultMaxAstNodes);

} // namespace ascviz
