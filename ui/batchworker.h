// The Batch tab's worker: a QObject living on its own QThread that loads the model and runs the core batch
// runner (ascviz::runBatch, the same code path as `ascviz-cli batch`). Progress and the outcome arrive as
// queued signals; no exception leaves the worker. Cancel and pause are shared atomic flags polled by the
// runner between snippets.
#pragma once
#include "ascviz/batch/batch.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>

namespace ascviz::ui {

struct BatchJob {
    QString corpus;   // file or folder
    QString modelDir;
    QString db;
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
    bool ok = false;        // no error (a cancelled run is ok)
    bool cancelled = false;
    bool complete = false;
    int stored = 0, resumed = 0, total = 0, errors = 0, windowed = 0;
    qint64 tokens = 0;
    double seconds = 0;
    QString message;        // error text, or a summary line
    QStringList corpusIssues;
};

class BatchWorker : public QObject {
    Q_OBJECT
public:
    BatchWorker(std::shared_ptr<std::atomic<bool>> cancel, std::shared_ptr<std::atomic<bool>> pause);
    ~BatchWorker() override;

    // Runs on the worker's thread (call through a queued invocation).
    void run(const BatchJob& job);

Q_SIGNALS:
    void stage(const QString& text);
    void progress(const ascviz::ui::BatchProgressInfo& p);
    void finished(const ascviz::ui::BatchOutcome& outcome);

private:
    std::shared_ptr<std::atomic<bool>> m_cancel, m_pause;
    std::unique_ptr<LanguageModel> m_model; // kept between runs of the same folder/device
    QString m_modelDir, m_device, m_dtype;
};

} // namespace ascviz::ui

Q_DECLARE_METATYPE(ascviz::ui::BatchProgressInfo)
Q_DECLARE_METATYPE(ascviz::ui::BatchOutcome)
