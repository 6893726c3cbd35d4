#include "modelcontroller.h"

#include "textpos.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>
#include <QSemaphore>

#include <atomic>
#include <exception>
#include <filesystem>

namespace ascviz::ui {

namespace {

const char* const kLanguage = "python";

// Runs `f(controller)` on the GUI thread if the controller still exists. The functor is posted to the
// application object so that posting is safe even while the controller is being destroyed.
template <class F>
void postToGui(const QPointer<ModelController>& guard, F f)
{
    QMetaObject::invokeMethod(
        QCoreApplication::instance(), [guard, f]() {
            if (guard)
                f(guard.data());
        },
        Qt::QueuedConnection);
}

QString describe(const std::exception& e)
{
    const QString what = toQString(e.what());
    return what.isEmpty() ? QStringLiteral("unknown error") : what;
}

// Runs `f` on a worker thread; returns the message of what it threw, or an empty string when it returned.
// Nothing crosses the thread boundary as an exception.
template <class F>
QString errorOf(F&& f)
{
    try {
        f();
        return {};
    } catch (const std::exception& e) {
        return describe(e);
    } catch (...) {
        return QStringLiteral("unknown error");
    }
}

} // namespace

struct ModelController::JobState {
    CancelFlag cancel{false};
    QSemaphore delivered; // one release per streamed token that reached the GUI thread
};

int Analysis::generatedTokens() const
{
    if (!eval)
        return 0;
    int n = 0;
    for (const auto& t : eval->scored.tokens)
        n += t.generated ? 1 : 0;
    return n;
}

ModelController::ModelController(QObject* parent) : QObject(parent)
{
    m_loadPool.setMaxThreadCount(1);
    m_modelPool.setMaxThreadCount(1);
    m_analysisPool.setMaxThreadCount(1);
    // The bundled table; a broken installation shows up as an error when the first result is analysed.
    try {
        m_categories = std::make_shared<const CategoryMap>(CategoryMap::forLanguage(kLanguage));
    } catch (const std::exception&) {
        m_categories = std::make_shared<const CategoryMap>();
    }
}

ModelController::~ModelController()
{
    if (m_jobState)
        m_jobState->cancel = true;
    m_modelPool.waitForDone();
    m_analysisPool.waitForDone();
    m_loadPool.waitForDone();
}

std::optional<ModelInfo> ModelController::modelInfo() const
{
    if (!m_model)
        return std::nullopt;
    return m_model->info();
}

void ModelController::loadModel(const QString& dir, const LoadOptions& opts)
{
    const quint64 id = ++m_loadCounter;
    m_loadJob = id;
    m_loadingDir = dir;
    Q_EMIT loadStarted(dir);

    QPointer<ModelController> guard(this);
    const std::string path = toUtf8(dir);
    m_loadPool.start([guard, id, path, opts]() {
        LoadOptions o = opts;
        auto last = std::make_shared<std::atomic<int>>(-1);
        o.progress = [guard, id, last](double f) {
            // Throttled: only changes of at least 0.1% reach the GUI.
            const int permille = int(f * 1000.0);
            if (permille == last->exchange(permille))
                return;
            postToGui(guard, [id, f](ModelController* c) {
                if (c->m_loadJob == id)
                    Q_EMIT c->loadProgress(f);
            });
        };
        std::shared_ptr<const LanguageModel> model;
        const QString error = errorOf([&] {
            const std::filesystem::path p(path);
            if (path.empty())
                throw ModelError("no model folder given");
            if (!std::filesystem::exists(p))
                throw ModelError("the folder " + path + " does not exist");
            if (!std::filesystem::is_directory(p))
                throw ModelError(path + " is not a folder; choose the folder that holds config.json");
            model = LanguageModel::load(p, o);
        });
        postToGui(guard, [id, model, error, path](ModelController* c) {
            if (c->m_loadJob != id)
                return; // superseded by a later load
            c->m_loadJob = 0;
            const QString dir = toQString(path);
            c->m_loadingDir.clear();
            if (!model) {
                Q_EMIT c->loadFailed(dir, error);
                return;
            }
            c->m_model = model;
            Q_EMIT c->modelLoaded();
        });
    });
}

std::shared_ptr<ModelController::JobState> ModelController::beginJob(std::optional<Phase> phase)
{
    // Supersede the job in flight: its cancel flag is set and its results are dropped (job id differs).
    if (m_jobState)
        m_jobState->cancel = true;
    m_jobState = std::make_shared<JobState>();
    m_job = ++m_jobCounter;
    if (phase)
        setPhase(*phase);
    Q_EMIT jobStarted(m_job);
    return m_jobState;
}

void ModelController::setPhase(Phase p)
{
    if (m_phase == p)
        return;
    m_phase = p;
    Q_EMIT phaseChanged(p);
}

void ModelController::setAggregation(Aggregation a)
{
    if (a == m_aggregation)
        return;
    m_aggregation = a;
    reanalyzeCurrent(true);
}

bool ModelController::setCategoryFile(const QString& file, QString* error)
{
    try {
        auto map = file.isEmpty() ? CategoryMap::forLanguage(kLanguage)
                                  : CategoryMap::fromFile(std::filesystem::path(toUtf8(file)));
        m_categories = std::make_shared<const CategoryMap>(std::move(map));
    } catch (const std::exception& e) {
        if (error)
            *error = describe(e);
        return false;
    }
    m_categoryFile = file;
    reanalyzeCurrent(false);
    return true;
}

void ModelController::reanalyzeCurrent(bool reaggregateOnly)
{
    // A generation/scoring in flight picks up the new settings when its analysis starts.
    if (m_phase == Phase::Generating || m_phase == Phase::Scoring || !m_current || !m_current->eval)
        return;
    const AnalysisPtr cur = m_current;
    beginJob(std::nullopt);
    startAnalysis(m_job, cur->eval, cur->eval->scored, cur->origin, cur->prompt, cur->generation, cur->cancelled,
                  reaggregateOnly);
}

quint64 ModelController::generate(const QString& prompt, const GenerationOptions& opts)
{
    if (!m_model)
        return 0;
    const auto state = beginJob(Phase::Generating);
    const quint64 job = m_job;

    QPointer<ModelController> guard(this);
    const std::shared_ptr<const LanguageModel> model = m_model;
    const std::string text = toUtf8(prompt);
    m_modelPool.start([guard, job, state, model, text, opts, prompt]() {
        auto onToken = [&](const StreamedToken& t) {
            const QString piece = toQString(t.piece);
            const double ntp = t.ntp;
            const int index = t.index;
            QMetaObject::invokeMethod(
                QCoreApplication::instance(), [guard, job, state, piece, ntp, index]() {
                    if (guard && guard->m_job == job && guard->m_phase == Phase::Generating)
                        Q_EMIT guard->tokenStreamed(job, piece, ntp, index);
                    state->delivered.release();
                },
                Qt::QueuedConnection);
            // Back-pressure: wait until the GUI has shown this token (never forever: a cancel ends it).
            while (!state->delivered.tryAcquire(1, 20)) {
                if (state->cancel.load())
                    return;
            }
        };
        ScoredText scored;
        const QString error = errorOf([&] {
            if (state->cancel.load())
                throw Cancelled();
            scored = model->generate(text, opts, onToken, &state->cancel);
        });
        const bool ok = error.isEmpty();
        const bool cancelled = state->cancel.load();
        auto result = std::make_shared<ScoredText>(std::move(scored));
        postToGui(guard, [job, ok, error, result, prompt, opts, cancelled](ModelController* c) {
            if (c->m_job != job)
                return;
            if (!ok) {
                c->setPhase(Phase::Idle);
                Q_EMIT c->jobFailed(job, error);
                return;
            }
            c->modelJobFinished(job, *result, AnalysisOrigin::Generated, prompt, opts, cancelled);
        });
    });
    return job;
}

quint64 ModelController::score(const QString& code)
{
    if (!m_model)
        return 0;
    const auto state = beginJob(Phase::Scoring);
    const quint64 job = m_job;

    QPointer<ModelController> guard(this);
    const std::shared_ptr<const LanguageModel> model = m_model;
    const std::string text = toUtf8(code);
    m_modelPool.start([guard, job, state, model, text, code]() {
        ScoredText scored;
        const QString error = errorOf([&] {
            if (state->cancel.load())
                throw Cancelled();
            scored = model->score(text);
        });
        const bool ok = error.isEmpty();
        auto result = std::make_shared<ScoredText>(std::move(scored));
        postToGui(guard, [job, ok, error, result, code](ModelController* c) {
            if (c->m_job != job)
                return;
            if (!ok) {
                c->setPhase(Phase::Idle);
                Q_EMIT c->jobFailed(job, error);
                return;
            }
            c->modelJobFinished(job, *result, AnalysisOrigin::Scored, code, GenerationOptions{}, false);
        });
    });
    return job;
}

void ModelController::modelJobFinished(quint64 job, ScoredText scored, AnalysisOrigin origin, QString prompt,
                                       GenerationOptions gen, bool cancelled)
{
    startAnalysis(job, nullptr, std::move(scored), origin, prompt, gen, cancelled, false);
}

quint64 ModelController::analyze(ScoredText scored, AnalysisOrigin origin, const QString& prompt,
                                 const GenerationOptions& gen, bool cancelled)
{
    beginJob(std::nullopt);
    return startAnalysis(m_job, nullptr, std::move(scored), origin, prompt, gen, cancelled, false);
}

void ModelController::stop()
{
    if (m_jobState && m_phase == Phase::Generating)
        m_jobState->cancel = true;
}

quint64 ModelController::startAnalysis(quint64 job, std::shared_ptr<const EvalResult> base, ScoredText scored,
                                       AnalysisOrigin origin, const QString& prompt, const GenerationOptions& gen,
                                       bool cancelled, bool reaggregateOnly)
{
    setPhase(Phase::Analyzing);
    QPointer<ModelController> guard(this);
    const Aggregation agg = m_aggregation;
    const std::shared_ptr<const CategoryMap> cats = m_categories;
    const QString categoryFile = m_categoryFile;
    auto input = std::make_shared<ScoredText>(std::move(scored));
    m_analysisPool.start([=]() {
        auto a = std::make_shared<Analysis>();
        a->origin = origin;
        a->cancelled = cancelled;
        a->prompt = prompt;
        a->categoryFile = categoryFile;
        a->generation = gen;
        const QString error = errorOf([&] {
            std::shared_ptr<EvalResult> r;
            if (reaggregateOnly && base) {
                r = std::make_shared<EvalResult>(*base);
                reaggregate(*r, agg);
            } else {
                r = std::make_shared<EvalResult>(evaluate(*input, kLanguage, agg, *cats));
            }
            a->eval = r;
            try {
                a->partial = std::make_shared<const GraphLayout>(layoutAst(*r, AstView::Partial));
                a->complete = std::make_shared<const GraphLayout>(layoutAst(*r, AstView::Complete));
            } catch (const std::exception& e) {
                a->partial.reset();
                a->complete.reset();
                a->layoutError = describe(e);
            }
        });
        postToGui(guard, [job, a, error](ModelController* c) {
            if (c->m_job != job)
                return; // superseded
            c->setPhase(Phase::Idle);
            if (!a->eval) {
                Q_EMIT c->jobFailed(job, error);
                return;
            }
            c->m_current = a;
            Q_EMIT c->analysisReady(job);
        });
    });
    return job;
}

} // namespace ascviz::ui
