// One batch run as a RunJob of the GUI's RunController (run/runcontroller.h): the core batch runner
// (ascviz::runBatch, the same code path as `ascviz-cli batch`) over the ModelService's shared model — the Batch
// page loads no model of its own. Cancel, pause and progress are the controller's RunControls. What goes in and
// comes out are core's types (BatchOptions, BatchProgress, BatchSummary).
#pragma once
#include "ascviz/batch/batch.h"
#include "ascviz/model/model.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"

#include <QMetaType>
#include <QString>

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

namespace ascviz::ui {

class JobContext;
struct RunJob;

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

// Runs `job` with `model` on the calling (worker) thread with the controller's `controls` (cancel, pause,
// progress); never throws (an error ends in BatchRunEnd::error, with core's remedy in the GUI's words).
BatchRunEnd runBatchJob(const LanguageModel& model, const BatchJob& job, JobContext& ctx, const RunControls& controls);

// `job` as the RunController's job (kind "batch"; its RunEnd's detail is the BatchRunEnd). A job whose model
// folder or precision differs from the loaded model's first loads it. A resume is refused at start when the file
// holds a complete run.
RunJob batchRunJob(const BatchJob& job);

// The run stored in `db` when it did not complete (interrupted or cancelled: what Resume continues), else
// nullopt; a complete run, a missing file or a file that is no results DB cannot be resumed.
std::optional<RunInfo> incompleteBatchRun(const std::filesystem::path& db);
inline bool batchRunIncomplete(const std::filesystem::path& db)
{
    return incompleteBatchRun(db).has_value();
}

// The one-line summary of a run that ran: "Done: 6 of 6 snippets (6 new, 0 errors, 0 windowed) — …".
QString batchSummaryText(const BatchSummary& s);

} // namespace ascviz::ui

Q_DECLARE_METATYPE(ascviz::ui::BatchRunEnd)
