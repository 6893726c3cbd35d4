// The Batch page's run, without widgets: a BatchJob run as a JobTracker job over the ModelService's model
// (the one model of the application; a job whose model folder or precision differs first asks the service to
// load it, which replaces the model every page uses, and holds it while it runs), with pause, resume and
// cancel, and what it reports — core's BatchProgress while it runs, a BatchRunEnd when it ends, a status line.
// The page turns its form into a BatchJob and shows what comes back.
#pragma once
#include "pages/batch/batchrunner.h"

#include "ascviz/results/resultsdb.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>

namespace ascviz::ui {

class ModelService;

class BatchController : public QObject {
    Q_OBJECT
public:
    explicit BatchController(ModelService* models, QObject* parent = nullptr);
    ~BatchController() override; // the run stops after its current snippet

    // Starts `job` (job.options.resume: continues the interrupted run in job.db). Refused (false, with a
    // status line) while a run is going, when a new run's DB exists, or when there is nothing to resume.
    bool start(const BatchJob& job);
    void pause();   // the runner waits after the current snippet
    void unpause(); // releases a paused runner
    void cancel();  // stops after the current snippet; the DB stays resumable
    bool isRunning() const { return m_running; }
    bool isPaused() const { return m_pause->load(); }
    bool isCancelling() const { return m_cancelRequested; }

    // Whether `db` is a results database whose run did not complete (interrupted or cancelled): what Resume
    // can continue. A complete run, a missing file or a file that is no results DB cannot be resumed.
    static bool storedRunIncomplete(const std::filesystem::path& db);
    // The run stored in `db` when it did not complete (what Resume continues with), else nullopt.
    static std::optional<RunInfo> incompleteRun(const std::filesystem::path& db);

Q_SIGNALS:
    void runStarting();                                  // accepted: the page clears the last run's output
    void progressed(const ascviz::BatchProgress& p);     // on the GUI thread, throttled by the runner
    void statusChanged(const QString& text, bool error); // a line for the page's status label
    void stateChanged();                                 // running, paused or cancelling changed
    void finished(const ascviz::ui::BatchRunEnd& end);

private:
    void runJob(const BatchJob& job);
    void finish(BatchRunEnd end);
    BatchRunEnd failure(const QString& message) const;

    ModelService* m_models;
    quint64 m_runJob = 0; // the JobTracker job of the run (0 when none)
    bool m_running = false;
    bool m_cancelRequested = false;
    bool m_waitingForModel = false; // the run waits for the model it asked the service to load
    BatchJob m_pendingJob;
    std::shared_ptr<std::atomic<bool>> m_pause = std::make_shared<std::atomic<bool>>(false);
};

} // namespace ascviz::ui
