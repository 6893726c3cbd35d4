// runBatch's plan (batch.h): what one call evaluates, the run row it records, and the results database it
// writes (created, or opened and checked against the stored run when resuming). Internal to the batch room.
#pragma once
#include "ascviz/batch/batch.h"
#include "ascviz/corpusrun/engine.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ascviz {

// A corpus entry's language: its own (readCorpus fills it in), else the run's (opts.language, else the
// registry's default).
std::string languageOf(const CorpusEntry& e, const BatchOptions& opts);

struct RunPlan {
    BatchOptions opts;     // the request, its language filled in
    int runTotal = 0;      // snippets of the whole run (all shards)
    std::vector<int> mine; // the corpus positions this call evaluates (all of the run, or its shard)
    std::map<std::string, CategoryMap> categories; // every language's table, loaded before any work
    RunInfo want;                                  // the run row this call records
};

// Throws InputError for an empty corpus or a shard that is not I/N, and what loading a category table throws.
RunPlan planRun(const LanguageModel& model, const Corpus& corpus, const BatchOptions& request);

// The run row's fields for a request (status: running).
RunInfo requestedRun(const LanguageModel& model, const Corpus& corpus, const BatchOptions& opts, int runTotal);
// Throws InputError (Remedy::NewOutput) naming every difference between a stored run and the request.
void checkResumable(const RunInfo& have, const RunInfo& want, const std::filesystem::path& db);
// The run row's status after a call: complete, cancelled, or still running (to be resumed).
void setRunStatus(RunInfo& run, bool complete, bool cancelled);

// The run's results database, locked for this call: created for a new run; with opts.resume and an existing
// file, opened, checked against the stored run (checkResumable) and its run row updated.
class RunStore {
public:
    RunStore(const std::filesystem::path& path, RunPlan& plan);
    ResultsDb& db() { return *m_db; }
    const std::set<int64_t>& done() const { return m_done; } // snippets stored before this call

private:
    std::optional<RunLock> m_lock; // corpusrun/engine.h; declared before the DB: released after its connection closed
    std::optional<ResultsDb> m_db;
    std::set<int64_t> m_done;
};

} // namespace ascviz
