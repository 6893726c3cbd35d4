// The one mechanism for long work off the GUI thread: model loading, interactive scoring/generation and
// their analysis, batch runs, reading results databases. A job is a function run on a worker thread with a
// JobContext (progress, cancel); its outcome comes back on the GUI thread as callbacks and as signals that
// any widget (a status bar, a progress indicator) can follow. Jobs of one lane run one at a time, in order
// (e.g. Graphviz layout, which is not re-entrant); jobs of different lanes run side by side.
#pragma once
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

class QThreadPool;

namespace ascviz::ui {

// What a running job sees. Thread-safe; valid while the job's function runs.
class JobContext {
public:
    bool isCancelled() const { return m_cancel->load(); }
    // For core APIs that poll a flag (LanguageModel::generate, runBatch).
    const std::atomic<bool>* cancelFlag() const { return m_cancel.get(); }
    std::atomic<bool>* cancelFlag() { return m_cancel.get(); }
    // Reports progress in [0, 1] (negative = unknown) with an optional line of text; throttled to changes of
    // at least 0.1% or a new text.
    void setProgress(double fraction, const QString& text = {});
    quint64 id() const { return m_id; }

private:
    friend class JobTracker;
    quint64 m_id = 0;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<int>> m_lastPermille = std::make_shared<std::atomic<int>>(-2);
    std::function<void(double, const QString&)> m_report;
};

class JobTracker : public QObject {
    Q_OBJECT
public:
    // GUI-thread callbacks of one job; each is called only while `context` (given to start) still exists.
    struct Callbacks {
        std::function<void()> finished;             // the function returned (also after a cancel)
        std::function<void(const QString&)> failed; // it threw; the message
        std::function<void(double, const QString&)> progress;
    };

    explicit JobTracker(QObject* parent = nullptr);
    ~JobTracker() override; // cancels every job and waits for them

    // Runs `work` on a worker thread of `lane` (at most laneLimit(lane) jobs of a lane at once; the
    // default limit is 1). Returns the job id (never 0).
    quint64 start(const QString& title, const QString& lane, std::function<void(JobContext&)> work,
                  QObject* context = nullptr, Callbacks callbacks = {});
    void setLaneLimit(const QString& lane, int maxConcurrent);

    // Asks a job to stop: its context reports isCancelled().
    void cancel(quint64 id);
    bool isRunning(quint64 id) const { return m_jobs.contains(id); }
    int runningCount(const QString& lane = {}) const; // all lanes when empty
    QString title(quint64 id) const;
    double progress(quint64 id) const; // last reported, -1 when unknown
    // Blocks until every job has ended (for destructors and tests). GUI callbacks still queued are dropped.
    void waitForDone();

Q_SIGNALS:
    void jobStarted(quint64 id, const QString& title);
    void jobProgress(quint64 id, double fraction, const QString& text);
    void jobFinished(quint64 id, bool cancelled);
    void jobFailed(quint64 id, const QString& message);

private:
    struct Job {
        QString title, lane;
        double progress = -1;
        std::shared_ptr<std::atomic<bool>> cancel;
    };
    QThreadPool* pool(const QString& lane);
    void ended(quint64 id, const QString& error, bool failed);

    QHash<QString, QThreadPool*> m_pools;
    QHash<quint64, Job> m_jobs;
    quint64 m_counter = 0;
};

} // namespace ascviz::ui
