// runBatch's scoring/storing pipeline (batch.h). Internal to the batch room.
//
// Producer/consumer: a scoring thread scores the pending snippets group by group (opts.batchSize texts per
// scoreBatch call) while the runner's thread parses, aligns, aggregates and stores them one by one in corpus
// order (one transaction per snippet), driven by the corpus-run engine's loop (corpusrun/engine.h). At most kAhead
// scored groups wait, so memory stays bounded and a cancel or crash loses at most the groups scored but not stored
// (they are not in the DB and are redone on resume). The two overlap when the model leaves a core free (a GPU, or fewer
// CPU threads than cores); when its threads use every core, the runner's thread scores and stores in turn (no second
// thread): on 2 cores with 2 threads, overlapping made the batch ~15 % slower (the parser's thread stalls the model's
// parallel matrix products), and handing each group to a scoring thread that waited for its turn made the 600-function
// batch 43 % slower in wall time than scoring on the runner's thread.
#pragma once
#include "runplan.h"

#include "ascviz/corpusrun/engine.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ascviz {

// Scored texts of pending[begin, end), each parsed first within the tree limits.
struct ScoredGroup {
    std::size_t begin = 0, end = 0; // positions in `pending`
    std::vector<std::optional<ScoredText>> texts;
    std::vector<std::optional<SyntaxTree>> trees;
    double seconds = 0; // parsing and scoring time of the group
};

// Parses and scores groups of the pending snippets; const, so the scoring thread may call it.
class GroupScorer {
public:
    GroupScorer(const LanguageModel& model, const Corpus& corpus, const BatchOptions& opts,
                const std::vector<int>& pending);
    std::size_t groupSize() const { return m_group; }
    // Parses and scores pending[g, g + groupSize()). A text past a limit (size, tree nodes or depth) is never
    // scored: the writer's evaluateEntry refuses it with the limit's message. A failing batch leaves every
    // text unscored, so that the writer scores them one by one and errors stay per snippet.
    ScoredGroup score(std::size_t g) const;

private:
    const LanguageModel& m_model;
    const Corpus& m_corpus;
    const BatchOptions& m_opts;
    const std::vector<int>& m_pending;
    std::size_t m_group;
};

// The scored groups in order: scored on the caller's thread in turn, or (overlap) by a scoring thread that
// runs at most kAhead groups ahead. The scoring thread is stopped and joined however the caller leaves.
class GroupSource {
public:
    GroupSource(const GroupScorer& scorer, std::size_t pending, bool overlap, ProgressClock& clock,
                const RunControls& controls);
    ~GroupSource();
    GroupSource(const GroupSource&) = delete;
    GroupSource& operator=(const GroupSource&) = delete;

    // The next group; nullopt when there is none left, or when a cancel came while paused before scoring on
    // this thread (then cancelled() is true). Rethrows the scoring thread's error once its groups are taken.
    std::optional<ScoredGroup> next();
    bool cancelled() const { return m_cancelled; }

private:
    static constexpr std::size_t kAhead = 2;
    void produce();

    const GroupScorer& m_scorer;
    std::size_t m_pending;
    bool m_overlap;
    ProgressClock& m_clock;
    const RunControls& m_controls;
    std::size_t m_nextGroup = 0;
    bool m_cancelled = false;
    std::mutex m_mu;
    std::condition_variable m_cv;
    std::deque<ScoredGroup> m_ready;
    bool m_producerDone = false;
    std::atomic<bool> m_stop{false}; // also read by the scoring thread while it waits out a pause
    std::exception_ptr m_error;
    std::thread m_producer;
};

// Evaluates and stores the snippets of scored groups, one transaction each, counting the windowed ones into
// the summary (the engine counts the rest: corpusrun/engine.h).
class SnippetWriter {
public:
    SnippetWriter(const LanguageModel& model, const Corpus& corpus, const RunPlan& plan,
                  const std::vector<int>& pending, ResultsDb& db, BatchSummary& sum);
    // Evaluates and stores pending[k], which `group` holds, in one transaction.
    ItemOutcome store(ScoredGroup& group, std::size_t k);

private:
    const LanguageModel& m_model;
    const Corpus& m_corpus;
    const RunPlan& m_plan;
    const std::vector<int>& m_pending;
    ResultsDb& m_db;
    BatchSummary& m_sum;
};

// Prompt marking (batch.h): tokens at or after a prompt that is a byte prefix of the code are generated.
void markPrompt(ScoredText& s, const CorpusEntry& e, std::string* note);

} // namespace ascviz
