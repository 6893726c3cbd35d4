#include "pages/interactive/interactiveengine.h"

#include "common/textpos.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/scored.h"
#include "ascviz/base/utf8.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/syntax/language.h"

#include <QCoreApplication>
#include <QPointer>
#include <QSemaphore>
#include <QStringList>

#include <atomic>

namespace ascviz::ui {

namespace {
const QString kModelLane = QStringLiteral("interactive");
const QString kAnalysisLane = QStringLiteral("analysis"); // Graphviz is not re-entrant: one at a time

QString defaultLanguageId()
{
    try {
        return toQString(LanguageRegistry::instance().defaultLanguage().id);
    } catch (const std::exception&) {
        return {};
    }
}

struct Table {
    std::shared_ptr<const CategoryMap> map;
    std::string text;
};

// The category table of `file` (empty = `language`'s bundled one), checked against the language: from `text`
// when given (a session's copy of it), else read from the file. Throws InputError.
Table readTable(const QString& file, const std::string& language, const std::string* text = nullptr)
{
    const std::filesystem::path path =
        file.isEmpty() ? LanguageRegistry::instance().get(language).categoryFile : std::filesystem::path(toUtf8(file));
    Table t;
    t.text = text ? *text : readUtf8File(path);
    const std::string where = (text ? "the session's copy of category file " : "category file ") + path.string();
    t.map = std::make_shared<const CategoryMap>(CategoryMap::fromJson(t.text, where, language));
    return t;
}

} // namespace

struct InteractiveEngine::JobState {
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

InteractiveEngine::InteractiveEngine(ModelService* models, QObject* parent) : QObject(parent), m_models(models)
{
    m_language = defaultLanguageId();
    // The bundled table; a broken installation shows up as an error when the first result is analysed.
    try {
        Table t = readTable(QString(), toUtf8(m_language));
        m_categories = std::move(t.map);
        m_categoryText = std::move(t.text);
    } catch (const std::exception&) {
        m_categories = std::make_shared<const CategoryMap>();
    }
}

InteractiveEngine::~InteractiveEngine()
{
    if (m_jobState)
        m_jobState->cancel = true;
    // Jobs hold only shared state and report through callbacks guarded by `this`; the tracker (owned by the
    // model service) waits for them.
    if (m_trackerJob)
        m_models->jobs()->cancel(m_trackerJob);
}

bool InteractiveEngine::hasModel() const
{
    return m_models->hasModel();
}

bool InteractiveEngine::setLanguage(const QString& id, QString* error, bool reparseShown)
{
    if (id == m_language)
        return true;
    try {
        const LanguageInfo& info = LanguageRegistry::instance().get(toUtf8(id));
        // A category table belongs to one grammar: keep a chosen file only when it fits the new language,
        // else go back to that language's bundled table.
        std::optional<Table> table;
        if (!m_categoryFile.isEmpty()) {
            try {
                table = readTable(m_categoryFile, info.id);
            } catch (const InputError&) {
                m_categoryFile.clear();
            }
        }
        if (!table)
            table = readTable(QString(), info.id);
        m_categories = std::move(table->map);
        m_categoryText = std::move(table->text);
        m_categoryFromSession = false;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    m_language = id;
    if (reparseShown)
        reanalyzeCurrent(false);
    return true;
}

std::shared_ptr<InteractiveEngine::JobState> InteractiveEngine::beginJob(std::optional<Phase> phase)
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

void InteractiveEngine::setPhase(Phase p)
{
    if (m_phase == p)
        return;
    m_phase = p;
    Q_EMIT phaseChanged(p);
}

void InteractiveEngine::setAggregation(Aggregation a)
{
    if (a == m_aggregation)
        return;
    m_aggregation = a;
    reanalyzeCurrent(true);
}

void InteractiveEngine::setAggregationScope(AggregationScope s)
{
    if (s == m_scope)
        return;
    m_scope = s;
    reanalyzeCurrent(true);
}

bool InteractiveEngine::setCategoryFile(const QString& file, QString* error)
{
    return useCategories(file, nullptr, error);
}

bool InteractiveEngine::setCategoryTable(const QString& file, const std::string& text, QString* error)
{
    return useCategories(file, &text, error);
}

bool InteractiveEngine::useCategories(const QString& file, const std::string* text, QString* error)
{
    try {
        Table t = readTable(file, toUtf8(m_language), text);
        m_categories = std::move(t.map);
        m_categoryText = std::move(t.text);
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    m_categoryFile = file;
    m_categoryFromSession = text != nullptr;
    // A result kept in another language than the chosen one (setLanguage without reparsing) is not parsed again
    // by a category change: the new table is of the chosen language, not of the result's.
    if (m_current && m_current->eval && m_current->eval->tree.language() != toUtf8(m_language))
        return true;
    reanalyzeCurrent(false);
    return true;
}

void InteractiveEngine::reanalyzeCurrent(bool reaggregateOnly)
{
    // A generation/scoring in flight picks up the new settings when its analysis starts.
    if (m_phase == Phase::Generating || m_phase == Phase::Scoring || !m_current || !m_current->eval)
        return;
    const AnalysisPtr cur = m_current;
    beginJob(std::nullopt);
    startAnalysis(m_job, cur->eval, cur->eval->scored, *cur, reaggregateOnly ? From::Reaggregate : From::Scores);
}

quint64 InteractiveEngine::generate(const QString& prompt, const GenerationOptions& opts)
{
    return runModelJob(Phase::Generating, prompt, opts);
}

quint64 InteractiveEngine::score(const QString& code)
{
    return runModelJob(Phase::Scoring, code, GenerationOptions{});
}

quint64 InteractiveEngine::scoreCompletion(const QString& code, std::size_t promptBytes)
{
    return runModelJob(Phase::Scoring, code, GenerationOptions{}, promptBytes);
}

quint64 InteractiveEngine::runModelJob(Phase phase, const QString& prompt, const GenerationOptions& opts,
                                       std::optional<std::size_t> boundary)
{
    const std::shared_ptr<const LanguageModel> model = m_models->model(); // shared: a reload cannot free it
    if (!model)
        return 0;
    const auto state = beginJob(phase);
    const quint64 job = m_job;
    m_lastModel = model.get();
    const bool generating = phase == Phase::Generating;
    const std::string text = toUtf8(prompt);
    auto result = std::make_shared<ScoredText>();                           // generated
    auto evaluated = std::make_shared<std::shared_ptr<const EvalResult>>(); // scored: evaluateText's
    auto cancelled = std::make_shared<bool>(false);
    QPointer<InteractiveEngine> guard(this);

    const std::size_t maxTextBytes = m_maxTextBytes;
    // The page's settings when the job starts: a scored text is evaluated with them in the job (evaluateText);
    // startAnalysis keeps that evaluation while they are still the settings.
    EvalRequest req;
    req.language = toUtf8(m_language);
    req.aggregation = m_aggregation;
    req.scope = m_scope;
    req.maxTextBytes = m_maxTextBytes;
    req.source = "the code";
    if (boundary)
        req.promptBytes = std::min(*boundary, text.size()); // the rest: the completion
    const std::shared_ptr<const CategoryMap> cats = m_categories;
    auto work = [guard, job, state, model, text, req, cats, opts, generating, result, evaluated, cancelled,
                 maxTextBytes](JobContext& ctx) mutable {
        if (state->cancel.load())
            throw Cancelled();
        if (!generating) {
            // One entry point (eval/evaluate.h): limits, the tree's limits and the prompt length before the model
            // runs, then scoring, the split at the prompt and the evaluation; the analysis only lays it out.
            req.categories = cats.get();
            ScoreOptions so;
            so.cancel = &state->cancel;
            so.progress = [&ctx, guard, job](std::size_t done, std::size_t total) {
                ctx.setProgress(total ? double(done) / double(total) : -1.0);
                QMetaObject::invokeMethod(
                    QCoreApplication::instance(),
                    [guard, job, done, total] {
                        if (guard && guard->m_job == job && guard->m_phase == Phase::Scoring)
                            Q_EMIT guard->scoringProgress(job, int(done), int(total));
                    },
                    Qt::QueuedConnection);
            };
            try {
                *evaluated = std::make_shared<const EvalResult>(evaluateText(
                    text, req, [&](const std::string& t, const SyntaxTree&) { return model->score(t, so); }));
            } catch (const Cancelled&) {
                *cancelled = true; // stopped by the user (a superseded job's result is dropped anyway)
            }
            return;
        }
        limits::checkTextSize(text.size(), maxTextBytes, "the prompt");
        auto onToken = [&](const StreamedToken& t) {
            const QString piece = toQString(t.piece);
            const double ntp = t.ntp;
            const int index = t.index;
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [guard, job, state, piece, ntp, index]() {
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
        *result = model->generate(text, opts, onToken, &state->cancel);
        *cancelled = state->cancel.load();
    };
    JobTracker::Callbacks cb;
    cb.finished = [this, job, result, evaluated, cats, prompt, opts, generating, cancelled, boundary,
                   info = model->info()] {
        if (m_job != job)
            return;
        if (!generating && *cancelled) { // a stopped scoring has nothing to analyse; the last result stays
            setPhase(Phase::Idle);
            Q_EMIT scoringStopped(job);
            return;
        }
        Analysis meta;
        meta.origin = generating ? AnalysisOrigin::Generated : AnalysisOrigin::Scored;
        const ScoredText& scored = generating ? *result : (*evaluated)->scored;
        meta.prompt = boundary ? toQString(std::string_view(scored.text).substr(0, scored.promptBytes)) : prompt;
        meta.generation = generating ? opts : GenerationOptions{};
        meta.cancelled = *cancelled;
        meta.model = info;
        if (generating)
            startAnalysis(job, nullptr, std::move(*result), meta, From::Scores);
        else
            startAnalysis(job, *evaluated, {}, meta, From::Evaluated, cats);
    };
    cb.failed = [this, job](const QString& message) {
        if (m_job != job)
            return;
        setPhase(Phase::Idle);
        Q_EMIT jobFailed(job, message);
    };
    m_trackerJob = m_models->jobs()->start(generating ? tr("Generating") : tr("Scoring"), kModelLane, std::move(work),
                                           this, std::move(cb));
    return job;
}

quint64 InteractiveEngine::analyze(ScoredText scored, AnalysisOrigin origin, const QString& prompt,
                                   const GenerationOptions& gen, bool cancelled, std::optional<ModelInfo> scoredBy)
{
    beginJob(std::nullopt);
    Analysis meta;
    meta.origin = origin;
    meta.prompt = prompt;
    meta.generation = gen;
    meta.cancelled = cancelled;
    meta.model = std::move(scoredBy);
    return startAnalysis(m_job, nullptr, std::move(scored), meta, From::Scores);
}

void InteractiveEngine::stop()
{
    if (m_jobState && (m_phase == Phase::Generating || m_phase == Phase::Scoring))
        m_jobState->cancel = true;
}

quint64 InteractiveEngine::startAnalysis(quint64 job, std::shared_ptr<const EvalResult> base, ScoredText scored,
                                         const Analysis& meta, From from,
                                         std::shared_ptr<const CategoryMap> baseCategories)
{
    setPhase(Phase::Analyzing);
    const Aggregation agg = m_aggregation;
    const AggregationScope scope = m_scope;
    const std::shared_ptr<const CategoryMap> cats = m_categories;
    const std::string language = toUtf8(m_language);
    auto input = std::make_shared<ScoredText>(std::move(scored));
    auto a = std::make_shared<Analysis>();
    a->origin = meta.origin;
    a->cancelled = meta.cancelled;
    a->prompt = meta.prompt;
    a->generation = meta.generation;
    a->model = meta.model;
    a->categoryFile = m_categoryFile;
    a->categoryTable = m_categoryText;
    a->categoryFromSession = m_categoryFromSession;
    // The scoring job's evaluation stands unless the category table or the language changed while the model
    // scored (then its scores are evaluated again); a changed θ only re-aggregates it.
    const bool keepEvaluated =
        from == From::Evaluated && base && baseCategories == cats && base->tree.language() == language;
    if (from == From::Evaluated && base && !keepEvaluated)
        *input = base->scored;
    auto work = [a, base, input, agg, scope, cats, language, from, keepEvaluated](JobContext&) {
        std::shared_ptr<const EvalResult> r;
        if (keepEvaluated) {
            if (base->aggregation == agg && base->scope == scope) {
                r = base; // evaluated by the scoring job with these settings
            } else {
                auto copy = std::make_shared<EvalResult>(*base); // θ changed while the model scored
                reaggregate(*copy, agg, scope);
                r = copy;
            }
        } else if (from == From::Reaggregate && base) {
            auto copy = std::make_shared<EvalResult>(*base);
            reaggregate(*copy, agg, scope);
            r = copy;
        } else {
            EvalRequest req; // the scoring job checked the text's limits; the tree's are checked again here
            req.language = language;
            req.aggregation = agg;
            req.categories = cats.get();
            req.scope = scope;
            r = std::make_shared<EvalResult>(evaluateScores(*input, req));
        }
        a->eval = r;
        if (r->tree.hasErrors()) {
            a->syntaxNote = toQString(describeSyntaxProblems(r->tree)).toHtmlEscaped();
            QStringList clean;
            for (const auto& id : languagesParsingCleanly(r->tree.text(), r->tree.language()))
                clean << toQString(id);
            if (!clean.isEmpty())
                a->syntaxNote +=
                    QStringLiteral("<br>") + tr("parses without errors as: %1").arg(clean.join(QStringLiteral(", ")));
        }
        try {
            a->partial = std::make_shared<const GraphLayout>(layoutAst(*r, AstView::Partial));
            a->complete = std::make_shared<const GraphLayout>(layoutAst(*r, AstView::Complete));
        } catch (const std::exception& e) {
            a->partial.reset();
            a->complete.reset();
            a->layoutError = toQString(e.what());
        }
    };
    JobTracker::Callbacks cb;
    cb.finished = [this, job, a] {
        if (m_job != job)
            return; // superseded
        setPhase(Phase::Idle);
        m_current = a;
        Q_EMIT analysisReady(job);
    };
    cb.failed = [this, job](const QString& message) {
        if (m_job != job)
            return;
        setPhase(Phase::Idle);
        Q_EMIT jobFailed(job, message);
    };
    m_models->jobs()->start(tr("Analysing"), kAnalysisLane, std::move(work), this, std::move(cb));
    return job;
}

} // namespace ascviz::ui
