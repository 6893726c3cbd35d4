#include "run/runcontroller.h"

#include "common/errortext.h"
#include "common/textpos.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"

#include "ascviz/base/duration.h"
#include "ascviz/base/error.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPointer>

namespace ascviz::ui {

QString runProgressText(const RunProgress& p, const QString& itemsName)
{
    if (p.paused)
        return RunController::tr("Paused at %1 / %2 — press Resume to continue").arg(p.done).arg(p.total);
    QString text = RunController::tr("%1 / %2 %3 · %4 %3/s · %5 tokens/s · ETA %6")
                       .arg(p.done)
                       .arg(p.total)
                       .arg(itemsName)
                       .arg(p.snippetsPerSecond, 0, 'f', 1)
                       .arg(p.tokensPerSecond, 0, 'f', 0)
                       .arg(toQString(formatDuration(p.etaSeconds)));
    if (p.resumed)
        text += RunController::tr(" · %1 already stored").arg(p.resumed);
    if (p.errors)
        text += RunController::tr(" · %1 errors").arg(p.errors);
    return text;
}

RunController::RunController(ModelService* models, QObject* parent) : QObject(parent), m_models(models)
{
    qRegisterMetaType<RunProgress>();
    qRegisterMetaType<RunEnd>();
    connect(m_models, &ModelService::modelLoaded, this, [this] {
        if (!m_waitingForModel)
            return;
        m_waitingForModel = false;
        runJob();
    });
    connect(m_models, &ModelService::loadFailed, this, [this](const QString&, const QString& message) {
        if (!m_waitingForModel)
            return;
        m_waitingForModel = false;
        finish(failure(tr("The model could not be loaded: %1").arg(message)));
    });
}

RunController::~RunController()
{
    // The run stops after its current item; the tracker (owned by the model service) waits for it.
    m_pause->store(false);
    if (m_jobId)
        m_models->jobs()->cancel(m_jobId);
}

bool RunController::start(RunJob job)
{
    QString refusal;
    const QString db = toQString(job.db.string());
    std::error_code ec;
    const bool exists = !job.db.empty() && std::filesystem::exists(job.db, ec);
    if (m_running)
        refusal = tr("%1 is going; one run at a time: stop it (Cancel) or wait for it to end before starting %2.")
                      .arg(m_job.what.left(1).toUpper() + m_job.what.mid(1), job.what);
    else if (job.db.empty())
        refusal = tr("Choose a file for the run's results.");
    else if (!job.resume && exists)
        refusal = tr("%1 already exists; %2.").arg(db, remedyForGui(Remedy::Resume | Remedy::NewOutput));
    else if (job.resume && !exists)
        refusal = tr("%1 does not exist: nothing to resume (press Start).").arg(db);
    else if (!job.refusal.isEmpty())
        refusal = job.refusal;
    else if (job.modelDir.isEmpty() && !m_models->model())
        refusal = job.noModelText.isEmpty() ? tr("Load a model first (Model › Load).") : job.noModelText;
    if (!refusal.isEmpty()) {
        Q_EMIT statusChanged(job.kind, refusal, true);
        return false;
    }
    if (job.db.has_parent_path())
        std::filesystem::create_directories(job.db.parent_path(), ec);
    m_job = std::move(job);
    m_last = RunProgress{};
    m_cancelRequested = false;
    m_pause->store(false);
    m_running = true;
    Q_EMIT runStarting(m_job.kind);
    Q_EMIT stateChanged();
    if (!m_job.modelDir.isEmpty() && !m_models->isLoaded(m_job.modelDir, m_job.load.device, m_job.load.dtype)) {
        // One model in memory: the run's model replaces the application's model (every page uses it).
        Q_EMIT statusChanged(m_job.kind, tr("Loading model %1…").arg(QFileInfo(m_job.modelDir).fileName()), false);
        m_waitingForModel = true;
        if (!m_models->loadModel(m_job.modelDir, m_job.load) && m_waitingForModel) {
            m_waitingForModel = false;
            finish(failure(tr("Cannot load the run's model: %1 holds the current model.").arg(m_models->heldBy())));
        }
        return true;
    }
    runJob();
    return true;
}

void RunController::pause()
{
    if (!m_running || m_cancelRequested)
        return;
    m_pause->store(true);
    Q_EMIT statusChanged(m_job.kind, tr("Pausing after the current item…"), false);
    Q_EMIT stateChanged();
}

void RunController::unpause()
{
    if (!m_running)
        return;
    m_pause->store(false);
    Q_EMIT stateChanged();
}

void RunController::cancel()
{
    if (!m_running)
        return;
    m_cancelRequested = true;
    m_pause->store(false);
    if (m_waitingForModel) { // not started yet: nothing to stop
        m_waitingForModel = false;
        RunEnd end;
        end.kind = m_job.kind;
        end.db = m_job.db;
        end.cancelled = true;
        end.started = false;
        finish(std::move(end));
        return;
    }
    m_models->jobs()->cancel(m_jobId);
    Q_EMIT statusChanged(m_job.kind, tr("Stopping after the current item…"), false);
    Q_EMIT stateChanged();
}

RunEnd RunController::failure(const QString& message) const
{
    RunEnd end;
    end.kind = m_job.kind;
    end.db = m_job.db;
    end.error = message;
    return end;
}

void RunController::runJob()
{
    const std::shared_ptr<const LanguageModel> model = m_models->model();
    if (!model) {
        finish(failure(tr("No model is loaded.")));
        return;
    }
    Q_EMIT statusChanged(m_job.kind, tr("Starting…"), false);
    // Released on the GUI thread when the run ends (or when the job's callbacks are dropped).
    auto hold = std::make_shared<std::shared_ptr<void>>(m_models->hold(m_job.what));
    auto end = std::make_shared<RunEnd>();
    const auto pause = m_pause;
    const QString kind = m_job.kind;
    const auto work = m_job.work;
    QPointer<RunController> guard(this);
    auto run = [model, work, pause, end, guard, kind, db = m_job.db](JobContext& ctx) {
        QElapsedTimer throttle;
        throttle.start();
        bool lastPaused = false;
        RunControls controls;
        controls.cancel = ctx.cancelFlag();
        controls.pause = pause.get();
        // At most every 100 ms, plus the first report, the last and pause changes.
        controls.progress = [&](const RunProgress& p) {
            if (p.done != p.resumed && p.done < p.total && p.paused == lastPaused && throttle.elapsed() < 100)
                return;
            throttle.restart();
            lastPaused = p.paused;
            ctx.setProgress(p.total > 0 ? double(p.done) / p.total : -1);
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [guard, kind, p] {
                    if (guard) {
                        guard->m_last = p;
                        Q_EMIT guard->progressed(kind, p);
                    }
                },
                Qt::QueuedConnection);
        };
        try {
            *end = work(*model, controls, ctx);
        } catch (const std::exception& e) {
            end->error = errorMessage(e);
        }
        end->kind = kind;
        end->db = db;
    };
    JobTracker::Callbacks cb;
    cb.finished = [this, end, hold] {
        hold->reset();
        m_jobId = 0;
        finish(std::move(*end));
    };
    cb.progress = [this](double, const QString& text) {
        if (!text.isEmpty())
            Q_EMIT statusChanged(m_job.kind, text, false);
    };
    m_jobId = m_models->jobs()->start(m_job.what.left(1).toUpper() + m_job.what.mid(1), m_job.kind, std::move(run),
                                      this, std::move(cb));
}

void RunController::finish(RunEnd end)
{
    m_running = false;
    m_cancelRequested = false;
    m_pause->store(false);
    Q_EMIT stateChanged();
    Q_EMIT finished(end);
}

} // namespace ascviz::ui
