// The GUI's one run controller: every corpus run the GUI starts (a Batch run, a Galeras run, and any later kind)
// goes through it, so progress, Pause, Stop, Resume, errors and the close-during-run prompt work the same for
// all. A run is a RunJob: its kind, its words, its results file and a function that runs core's runItems-based
// runner (runBatch, runGaleras) with the RunControls the controller gives it — the cancel flag (Stop: the
// engine's safe stop after the current item, nothing lost, the file stays resumable), the pause flag and the
// engine's progress (items done of planned, rate, ETA), reported here on the GUI thread. The work runs as a
// JobTracker job over the ModelService's one model, which the run holds while it runs (a job naming another
// model folder first asks the service to load it). One run at a time: a second start is refused with a message
// naming the run that is going. Views (the Batch page's form, the Galeras panel) show a RunBar over it.
#pragma once
#include "ascviz/corpusrun/engine.h"
#include "ascviz/model/model.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <any>
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>

namespace ascviz::ui {

class JobContext;
class ModelService;

// How a run ended. `detail` holds the kind's own summary (BatchRunEnd, GalerasRunSummary) for its view.
struct RunEnd {
    QString kind;
    std::filesystem::path db;
    QString error;       // empty: the run ran (a stopped run ran too); else the message to show
    bool started = true; // false: stopped while its model was still loading (nothing was written)
    bool cancelled = false;
    int done = 0;  // items stored, resumed ones included
    int total = 0; // items planned
    std::any detail;
    bool ok() const { return error.isEmpty(); }
};

struct RunJob {
    QString kind;      // "batch", "galeras": the JobTracker lane, and what views filter on
    QString what;      // the run in words, for runningWork and refusals: "a batch run into r.db"
    QString itemsName; // the items in words for the progress line: "snippets", "rows"
    std::filesystem::path db;
    bool resume = false; // continue the run stored in `db` (it must exist); else `db` must not exist
    QString modelDir;    // the model the run needs ("" = the loaded model, which must be there)
    LoadOptions load;    // its device and precision
    QString noModelText; // the refusal when modelDir is "" and no model is loaded
    QString refusal;     // set by the job's maker: why it cannot start ("" = it can), said as the refusal
    // Runs on the worker thread; throws for an error (shown in the GUI's words). The controls' cancel, pause
    // and progress are the controller's.
    std::function<RunEnd(const LanguageModel& model, const RunControls& controls, JobContext& ctx)> work;
};

class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(ModelService* models, QObject* parent = nullptr);
    ~RunController() override; // a run stops after its current item

    // Starts `job`. Refused (false, with statusChanged(job.kind, message, true)) while a run is going, when a
    // new run's file exists, or when a resumed run's file does not.
    bool start(RunJob job);
    void pause();   // the run waits after its current item
    void unpause(); // releases a paused run
    void cancel();  // Stop: after the current item; the file stays resumable
    bool isRunning() const { return m_running; }
    bool isPaused() const { return m_running && m_pause->load(); }
    bool isCancelling() const { return m_running && m_cancelRequested; }
    QString kind() const { return m_job.kind; } // of the run going, or of the last one
    QString itemsName() const { return m_job.itemsName; }
    // The run going, in words ("" when none): what closing the window would stop.
    QString runningWork() const { return m_running ? m_job.what : QString(); }
    const RunProgress& lastProgress() const { return m_last; }

Q_SIGNALS:
    void runStarting(const QString& kind);                                    // accepted
    void progressed(const QString& kind, const ascviz::RunProgress& p);       // GUI thread, throttled
    void statusChanged(const QString& kind, const QString& text, bool error); // a line for the kind's view
    void stateChanged();                                                      // running, paused or stopping
    void finished(const ascviz::ui::RunEnd& end);

private:
    void runJob();
    void finish(RunEnd end);
    RunEnd failure(const QString& message) const;

    ModelService* m_models;
    RunJob m_job;
    RunProgress m_last;
    quint64 m_jobId = 0; // the JobTracker job of the run (0 when none)
    bool m_running = false;
    bool m_cancelRequested = false;
    bool m_waitingForModel = false;
    std::shared_ptr<std::atomic<bool>> m_pause = std::make_shared<std::atomic<bool>>(false);
};

// The progress line of a run: "3 / 12 snippets · 1.5 snippets/s · 40 tokens/s · ETA 6 s", or the paused line.
QString runProgressText(const RunProgress& p, const QString& itemsName);

} // namespace ascviz::ui

Q_DECLARE_METATYPE(ascviz::RunProgress)
Q_DECLARE_METATYPE(ascviz::ui::RunEnd)
