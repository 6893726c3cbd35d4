// The one language model of the application, shared by every page. ModelService loads it off the GUI
// thread (a JobTracker job with progress), keeps it as std::shared_ptr<const LanguageModel> and hands that
// pointer to whoever runs model work: the Interactive page's scoring and generation, the Batch page's runs.
// The model is immutable after loading and safe for concurrent use (core/src/model/decoder/decoder.h: forward() is
// const and may run on several threads at once), so pages may score side by side. A long job that must
// keep the model (a batch run) holds it: while held, loading another model is refused with a message, so
// that no second model is ever loaded next to the first.
#pragma once
#include "ascviz/model/model.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>

namespace ascviz::ui {

class JobTracker;

class ModelService : public QObject {
    Q_OBJECT
public:
    // `jobs` runs the loads; when null the service makes its own tracker.
    explicit ModelService(JobTracker* jobs = nullptr, QObject* parent = nullptr);
    ~ModelService() override;

    JobTracker* jobs() const { return m_jobs; }

    std::shared_ptr<const LanguageModel> model() const { return m_model; }
    bool hasModel() const { return m_model != nullptr; }
    std::optional<ModelInfo> modelInfo() const;
    bool isLoading() const { return m_loadJob != 0; }
    QString loadingDir() const { return m_loadingDir; }
    // Models loaded successfully since the service was made (a test hook: one load = one model).
    int loadCount() const { return m_loadCount; }

    // Loads `dir` off the GUI thread and replaces the current model when done (a later load supersedes an
    // earlier one still in flight). Refused (false, loadFailed) while the model is held.
    bool loadModel(const QString& dir, const LoadOptions& opts = {});
    // Whether the loaded model is `dir` (same canonical folder) with the given device/dtype (Auto matches
    // any).
    bool isLoaded(const QString& dir, Device device = Device::Auto, Dtype dtype = Dtype::Auto) const;

    // Holding the model: returns a token; the model stays and loads are refused until every token is gone.
    std::shared_ptr<void> hold(const QString& holder);
    bool isHeld() const { return m_holds > 0; }
    QString heldBy() const { return m_holder; }

Q_SIGNALS:
    void loadStarted(const QString& dir);
    void loadProgress(double fraction);
    void modelLoaded();
    void loadFailed(const QString& dir, const QString& message);

private:
    JobTracker* m_jobs;
    std::shared_ptr<const LanguageModel> m_model;
    LoadOptions m_options; // of the loaded model
    quint64 m_loadJob = 0;
    QString m_loadingDir;
    int m_loadCount = 0;
    std::atomic<int> m_holds{0}; // a hold may be dropped on a worker thread
    QString m_holder;
    std::shared_ptr<std::atomic<bool>> m_alive = std::make_shared<std::atomic<bool>>(true);
};

} // namespace ascviz::ui
