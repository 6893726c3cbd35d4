#include "pages/batch/batchcontroller.h"

#include "common/errortext.h"
#include "common/textpos.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"

#include "ascviz/results/resultsdb.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>

namespace ascviz::ui {

BatchController::BatchController(ModelService* models, QObject* parent) : QObject(parent), m_models(models)
{
    qRegisterMetaType<BatchProgress>();
    qRegisterMetaType<BatchRunEnd>();
    connect(m_models, &ModelService::modelLoaded, this, [this] {
        if (!m_waitingForModel)
            return;
        m_waitingForModel = false;
        runJob(m_pendingJob);
    });
    connect(m_models, &ModelService::loadFailed, this, [this](const QString&, const QString& message) {
        if (!m_waitingForModel)
            return;
        m_waitingForModel = false;
        finish(failure(tr("The model could not be loaded: %1").arg(message)));
    });
}

BatchController::~BatchController()
{
    // The run stops after its current snippet; the tracker (owned by the model service) waits for it.
    m_pause->store(false);
    if (m_runJob)
        m_models->jobs()->cancel(m_runJob);
}

bool BatchController::storedRunIncomplete(const std::filesystem::path& db)
{
    return incompleteRun(db).has_value();
}

std::optional<RunInfo> BatchController::incompleteRun(const std::filesystem::path& db)
{
    std::error_code ec;
    if (db.empty() || !std::filesystem::exists(db, ec))
        return std::nullopt;
    try {
        RunInfo run = ResultsDb::open(db).runInfo();
        if (run.status != RunStatus::Complete)
            return run;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

bool BatchController::start(const BatchJob& job)
{
    if (m_running)
        return false;
    const QString db = toQString(job.db.string());
    std::error_code ec;
    const bool exists = std::filesystem::exists(job.db, ec);
    QString refusal;
    if (!job.options.resume && exists)
        refusal = tr("%1 already exists; %2.").arg(db, remedyForGui(Remedy::Resume | Remedy::NewOutput));
    else if (job.options.resume && !exists)
        refusal = tr("%1 does not exist: nothing to resume (press Start).").arg(db);
    else if (job.options.resume && !storedRunIncomplete(job.db))
        refusal = tr("%1 holds a complete run (or is no results DB): nothing to resume.").arg(db);
    if (!refusal.isEmpty()) {
        Q_EMIT statusChanged(refusal, true);
        return false;
    }
    if (job.db.has_parent_path())
        std::filesystem::create_directories(job.db.parent_path(), ec);
    m_cancelRequested = false;
    m_pause->store(false);
    m_running = true;
    Q_EMIT runStarting();
    Q_EMIT stateChanged();
    const QString modelDir = toQString(job.options.modelDir);
    if (!m_models->isLoaded(modelDir, toQString(job.load.device), toQString(job.load.dtype))) {
        // One model in memory: the run's model replaces the application's model (every page uses it).
        Q_EMIT statusChanged(tr("Loading model %1…").arg(QFileInfo(modelDir).fileName()), false);
        m_pendingJob = job;
        m_waitingForModel = true;
        if (!m_models->loadModel(modelDir, job.load) && m_waitingForModel) {
            m_waitingForModel = false;
            finish(failure(tr("Cannot load the run's model: %1 holds the current model.").arg(m_models->heldBy())));
        }
        return true;
    }
    runJob(job);
    return true;
}

void BatchController::pause()
{
    if (!m_running)
        return;
    m_pause->store(true);
    Q_EMIT statusChanged(tr("Pausing after the current snippet…"), false);
    Q_EMIT stateChanged();
}

void BatchController::unpause()
{
    if (!m_running)
        return;
    m_pause->store(false);
    Q_EMIT stateChanged();
}

void BatchController::cancel()
{
    if (!m_running)
        return;
    m_cancelRequested = true;
    m_pause->store(false);
    if (m_waitingForModel) { // not started yet: nothing to stop
        m_waitingForModel = false;
        BatchRunEnd end;
        end.summary.db = m_pendingJob.db;
        end.summary.cancelled = true;
        end.started = false;
        finish(std::move(end));
        return;
    }
    m_models->jobs()->cancel(m_runJob);
    Q_EMIT statusChanged(tr("Cancelling after the current snippet…"), false);
    Q_EMIT stateChanged();
}

BatchRunEnd BatchController::failure(const QString& message) const
{
    BatchRunEnd end;
    end.summary.db = m_pendingJob.db;
    end.error = message;
    return end;
}

void BatchController::runJob(const BatchJob& job)
{
    m_pendingJob = job;
    const std::shared_ptr<const LanguageModel> model = m_models->model();
    if (!model) {
        finish(failure(tr("No model is loaded.")));
        return;
    }
    Q_EMIT statusChanged(tr("Starting…"), false);
    // Released on the GUI thread when the run ends (or when the job's callbacks are dropped).
    auto hold = std::make_shared<std::shared_ptr<void>>(m_models->hold(tr("A batch run")));
    auto end = std::make_shared<BatchRunEnd>();
    const auto pause = m_pause;
    QPointer<BatchController> guard(this);
    auto work = [model, job, pause, end, guard](JobContext& ctx) {
        *end = runBatchJob(*model, job, ctx, pause.get(), [guard](const BatchProgress& p) {
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [guard, p] {
                    if (guard)
                        Q_EMIT guard->progressed(p);
                },
                Qt::QueuedConnection);
        });
    };
    JobTracker::Callbacks cb;
    cb.finished = [this, end, hold] {
        hold->reset();
        m_runJob = 0;
        finish(std::move(*end));
    };
    cb.progress = [this](double, const QString& text) {
        if (!text.isEmpty())
            Q_EMIT statusChanged(text, false);
    };
    m_runJob = m_models->jobs()->start(tr("Batch run %1").arg(toQString(job.db.filename().string())),
                                       QStringLiteral("batch"), std::move(work), this, std::move(cb));
}

void BatchController::finish(BatchRunEnd end)
{
    m_running = false;
    m_pause->store(false);
    Q_EMIT stateChanged();
    Q_EMIT finished(end);
}

} // namespace ascviz::ui
