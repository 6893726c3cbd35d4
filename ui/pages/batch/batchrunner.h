// One batch run as a JobTracker job: the core batch runner (ascviz::runBatch, the same code path as
// `ascviz-cli batch`) over the ModelService's shared model — the Batch page loads no model of its own.
// Cancel is the job's cancel flag; pause is a flag of the BatchController, polled by the runner between
// snippets. What goes in and comes out are core's types (BatchOptions, BatchProgress, BatchSummary).
#pragma once
#include "ascviz/batch/batch.h"
#include "ascviz/model/model.h"
#include "ascviz/results/corpus.h"

#include <QMetaType>
#include <QString>

#include <atomic>
#include <filesystem>
#include <functional>
#include <vector>

namespace ascviz::ui {

class JobContext;

struct BatchJob {
    std::filesystem::path corpus; // file or folder
    std::filesystem::path db;
    // aggregation, language (a registry id; "" = each snippet's own, else the default), limit, resume and
    // modelDir; the runner sets cancel, pause and progress.
    BatchOptions options;
    LoadOptions load; // the device and precision the run's model is loaded with
};

// How a run ended: core's summary (summary.db is the results database), the corpus entries skipped while
// reading, or the error that stopped it.
struct BatchRunEnd {
    BatchSummary summary;
    std::vector<CorpusIssue> corpusIssues;
    QString error;       // empty: the run ran (a cancelled run ran too); else the message to show
    bool started = true; // false: cancelled while its model was still loading (nothing was written)
    bool ok() const { return error.isEmpty(); }
};

// Runs `job` with `model` on the calling (worker) thread; never throws (an error ends in BatchRunEnd::error,
// with core's remedy in the GUI's words). `progress` is called on that thread, throttled (at most every
// 100 ms, plus the first, the last and pause changes).
BatchRunEnd runBatchJob(const LanguageModel& model, const BatchJob& job, JobContext& ctx,
                        const std::atomic<bool>* pause, const std::function<void(const BatchProgress&)>& progress);

// The one-line summary of a run that ran: "Done: 6 of 6 snippets (6 new, 0 errors, 0 windowed) — …".
QString batchSummaryText(const BatchSummary& s);

} // namespace ascviz::ui

Q_DECLARE_METATYPE(ascviz::BatchProgress)
Q_DECLARE_METATYPE(ascviz::ui::BatchRunEnd)
