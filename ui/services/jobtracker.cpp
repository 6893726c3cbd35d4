#include "services/jobtracker.h"

#include "common/errortext.h"

#include <QThreadPool>

#include <cmath>
#include <exception>

namespace ascviz::ui {

void JobContext::setProgress(double fraction, const QString& text)
{
    const int permille = fraction < 0 ? -1 : int(std::lround(std::min(1.0, fraction) * 1000.0));
    if (text.isEmpty() && permille == m_lastPermille->exchange(permille))
        return;
    m_lastPermille->store(permille);
    if (m_report)
        m_report(fraction, text);
}

JobTracker::JobTracker(QObject* parent) : QObject(parent)
{
}

JobTracker::~JobTracker()
{
    for (auto& j : m_jobs)
        j.cancel->store(true);
    waitForDone();
}

QThreadPool* JobTracker::pool(const QString& lane)
{
    QThreadPool*& p = m_pools[lane];
    if (!p) {
        p = new QThreadPool(this);
        p->setMaxThreadCount(1);
        p->setObjectName(QStringLiteral("ascviz-%1").arg(lane));
    }
    return p;
}

void JobTracker::setLaneLimit(const QString& lane, int maxConcurrent)
{
    pool(lane)->setMaxThreadCount(std::max(1, maxConcurrent));
}

quint64 JobTracker::start(const QString& title, const QString& lane, std::function<void(JobContext&)> work,
                          QObject* context, Callbacks callbacks)
{
    const quint64 id = ++m_counter;
    Job job;
    job.title = title;
    job.lane = lane;
    auto ctx = std::make_shared<JobContext>();
    ctx->m_id = id;
    job.cancel = ctx->m_cancel;
    m_jobs.insert(id, job);

    const QPointer<QObject> guard(context);
    const bool hasContext = context != nullptr;
    auto cb = std::make_shared<const Callbacks>(std::move(callbacks));
    auto alive = [guard, hasContext] { return !hasContext || guard; };
    ctx->m_report = [this, id, cb, alive](double f, const QString& text) {
        QMetaObject::invokeMethod(
            this,
            [this, id, f, text, cb, alive] {
                auto it = m_jobs.find(id);
                if (it == m_jobs.end())
                    return;
                it->progress = f;
                Q_EMIT jobProgress(id, f, text);
                if (cb->progress && alive())
                    cb->progress(f, text);
            },
            Qt::QueuedConnection);
    };
    Q_EMIT jobStarted(id, title);
    pool(lane)->start([this, id, ctx, work = std::move(work), cb, alive]() {
        QString error;
        bool failed = false;
        try {
            work(*ctx);
        } catch (const std::exception& e) {
            failed = true;
            error = errorMessage(e); // what() and the remedy in the GUI's words
            if (error.isEmpty())
                error = QStringLiteral("unknown error");
        } catch (...) {
            failed = true;
            error = QStringLiteral("unknown error");
        }
        QMetaObject::invokeMethod(
            this,
            [this, id, error, failed, cb, alive] {
                ended(id, error, failed);
                if (!alive())
                    return;
                if (failed) {
                    if (cb->failed)
                        cb->failed(error);
                } else if (cb->finished) {
                    cb->finished();
                }
            },
            Qt::QueuedConnection);
    });
    return id;
}

void JobTracker::ended(quint64 id, const QString& error, bool failed)
{
    const Job job = m_jobs.take(id);
    if (failed)
        Q_EMIT jobFailed(id, error);
    else
        Q_EMIT jobFinished(id, job.cancel && job.cancel->load());
}

void JobTracker::cancel(quint64 id)
{
    if (auto it = m_jobs.find(id); it != m_jobs.end())
        it->cancel->store(true);
}

int JobTracker::runningCount(const QString& lane) const
{
    int n = 0;
    for (const auto& j : m_jobs)
        n += lane.isEmpty() || j.lane == lane ? 1 : 0;
    return n;
}

QString JobTracker::title(quint64 id) const
{
    return m_jobs.value(id).title;
}
double JobTracker::progress(quint64 id) const
{
    return m_jobs.contains(id) ? m_jobs.value(id).progress : -1.0;
}

void JobTracker::waitForDone()
{
    for (QThreadPool* p : std::as_const(m_pools))
        p->waitForDone();
}

} // namespace ascviz::ui
