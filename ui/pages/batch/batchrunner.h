// One batch run as a JobTracker job: the core batch runner (ascviz::runBatch, the same code path as
// `ascviz-cli batch`) over the ModelService's shared model — the Batch page loads no model of its own.
// Cancel is the job's cancel flag; pause is a flag of the page, polled by the runner between snippets.
#pragma once
#include "ascviz/batch/batch.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>

namespace ascviz::ui {

class JobContext;

struct BatchJob {
    QString corpus; // file or folder
    QString modelDir;
    QString db;
    QString language; // a registry id (the registry's default when empty)
    int limit = 0;
    Aggregation aggregation = Aggregation::Median;
    bool resume = false;
    QString device = QStringLiteral("auto");
    QString dtype = QStringLiteral("float32"); // compute precision (method.md §1: float32 unless chosen)
};

struct BatchProgressInfo {
    int done = 0, total = 0, resumed = 0, errors = 0;
    qint64 tokens = 0;
    double snippetsPerSecond = 0, tokensPerSecond = 0, etaSeconds = -1;
    bool paused = false;
    QString currentId;
};

struct BatchOutcome {
    QString db;
    QString modelDir;
    bool ok = false; // no error (a cancelled run is ok)
    bool cancelled = false;
    bool complete = false;
    int stored = 0, resumed = 0, total = 0, errors = 0, windowed = 0;
    qint64 tokens = 0;
    double seconds = 0;
    QString message; // error text, or a summary line
    QStringList corpusIssues;
};

// Runs `job` with `model` on the calling (worker) thread; never throws. `progress` is called on that
// thread, throttled (at most every 100 ms, plus the first, the last and pause changes).
BatchOutcome runBatchJob(const LanguageModel& model, const BatchJob& job, JobContext& ctx,
                         const std::atomic<bool>* pause, const std::function<void(const BatchProgressInfo&)>& progress);

} // namespace ascviz::ui

Q_DECLARE_METATYPE(ascviz::ui::BatchProgressInfo)
Q_DECLARE_METATYPE(ascviz::ui::BatchOutcome)
