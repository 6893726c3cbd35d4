#include "services/modelservice.h"

#include "common/textpos.h"
#include "services/jobtracker.h"

#include "ascviz/base/error.h"

#include <QFileInfo>

#include <filesystem>

namespace ascviz::ui {

ModelService::ModelService(JobTracker* jobs, QObject* parent)
    : QObject(parent), m_jobs(jobs ? jobs : new JobTracker(this))
{
}

ModelService::~ModelService()
{
    *m_alive = false;
}

std::optional<ModelInfo> ModelService::modelInfo() const
{
    if (!m_model)
        return std::nullopt;
    return m_model->info();
}

bool ModelService::isLoaded(const QString& dir, Device device, Dtype dtype) const
{
    if (!m_model)
        return false;
    const ModelInfo& info = m_model->info();
    const QString mine = QFileInfo(toQString(info.dir.string())).canonicalFilePath();
    if (mine.isEmpty() || mine != QFileInfo(dir).canonicalFilePath())
        return false;
    if (dtype != Dtype::Auto && loadOptionName(dtype) != info.dtype)
        return false;
    if (device != Device::Auto && !info.device.starts_with(loadOptionName(device)))
        return false;
    return true;
}

std::shared_ptr<void> ModelService::hold(const QString& holder)
{
    ++m_holds;
    m_holder = holder;
    const std::weak_ptr<std::atomic<bool>> alive = m_alive;
    return std::shared_ptr<void>(nullptr, [this, alive](void*) {
        if (const auto a = alive.lock(); a && a->load())
            --m_holds;
    });
}

bool ModelService::loadModel(const QString& dir, const LoadOptions& opts)
{
    if (isHeld()) {
        Q_EMIT loadFailed(dir, tr("%1 is using the model; wait for it to finish or cancel it before loading another "
                                  "model.")
                                   .arg(m_holder));
        return false;
    }
    if (m_loadJob)
        m_jobs->cancel(m_loadJob); // superseded: its result is dropped
    m_loadingDir = dir;
    Q_EMIT loadStarted(dir);

    struct Out {
        std::shared_ptr<const LanguageModel> model;
    };
    auto out = std::make_shared<Out>();
    const std::string path = toUtf8(dir);
    JobTracker::Callbacks cb;
    const auto current = std::make_shared<quint64>(0);
    cb.progress = [this, current](double f, const QString&) {
        if (m_loadJob == *current)
            Q_EMIT loadProgress(f);
    };
    cb.finished = [this, current, out, dir] {
        if (m_loadJob != *current)
            return;
        m_loadJob = 0;
        m_loadingDir.clear();
        if (!out->model) // cancelled before it began
            return;
        m_model = out->model;
        ++m_loadCount;
        Q_EMIT modelLoaded();
    };
    cb.failed = [this, current, dir](const QString& message) {
        if (m_loadJob != *current)
            return;
        m_loadJob = 0;
        m_loadingDir.clear();
        Q_EMIT loadFailed(dir, message);
    };
    const quint64 id = m_jobs->start(
        tr("Loading %1").arg(QFileInfo(dir).fileName()), QStringLiteral("load"),
        [path, opts, out](JobContext& ctx) {
            if (ctx.isCancelled())
                return;
            const std::filesystem::path p(path);
            if (path.empty())
                throw ModelError("no model folder given");
            if (!std::filesystem::exists(p))
                throw ModelError("the folder " + path + " does not exist");
            if (!std::filesystem::is_directory(p))
                throw ModelError(path + " is not a folder; choose the folder that holds config.json");
            LoadOptions o = opts;
            o.progress = [&ctx](double f) { ctx.setProgress(f); };
            out->model = LanguageModel::load(p, o);
        },
        this, std::move(cb));
    *current = id;
    m_loadJob = id;
    return true;
}

} // namespace ascviz::ui
