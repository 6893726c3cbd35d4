// The Interactive page's work: generating (streamed), scoring and analysis (evaluate + Graphviz layouts),
// each a JobTracker job over the ModelService's shared model. Results are immutable (AnalysisPtr); every
// job has an id and results of superseded jobs are dropped; state changes only on the GUI thread; no
// exception crosses a thread (errors arrive as messages). The language of the text is a registry id.
#pragma once
#include "common/analysis.h"

#include "ascviz/eval/eval.h"
#include "ascviz/model/model.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace ascviz {
struct LanguageInfo;
}

namespace ascviz::ui {

class ModelService;

class InteractiveEngine : public QObject {
    Q_OBJECT
public:
    enum class Phase { Idle, Generating, Scoring, Analyzing };
    Q_ENUM(Phase)

    explicit InteractiveEngine(ModelService* models, QObject* parent = nullptr);
    ~InteractiveEngine() override;

    ModelService* models() const { return m_models; }
    bool hasModel() const;

    // --- settings that change the numbers ------------------------------------------------------------
    // The language of the text (a registry id; the registry's default at first). Changing it loads that
    // language's bundled categories (unless a category file was chosen) and re-parses the current result.
    QString language() const { return m_language; }
    // `reparseShown` false: the result shown keeps the language it was evaluated in (a file of another language
    // was opened: its text is not the result's); the next Score or Generate uses the new one.
    bool setLanguage(const QString& id, QString* error = nullptr, bool reparseShown = true);
    Aggregation aggregation() const { return m_aggregation; }
    // Re-aggregates the current result (off the GUI thread); a running generation picks it up when done.
    void setAggregation(Aggregation a);
    // θ's scope (eval.h: over a node's own tokens, or over its children's values); re-aggregates likewise.
    AggregationScope aggregationScope() const { return m_scope; }
    void setAggregationScope(AggregationScope s);
    // Bounded work (base/limits.h): a longer text is refused by the scoring/generation job with the limit's
    // message (jobFailed), before the model runs; 0 = no limit.
    std::size_t maxTextBytes() const { return m_maxTextBytes; }
    void setMaxTextBytes(std::size_t bytes) { m_maxTextBytes = bytes; }
    QString categoryFile() const { return m_categoryFile; }
    // Loads a category table (empty = the language's bundled one) and re-evaluates the current result. On
    // a bad file returns false with a message and keeps the old table.
    bool setCategoryFile(const QString& file, QString* error = nullptr);
    // The same with the table's text given (the copy a session file keeps of `file`, for when the file changed
    // or is gone): categoryFromSession() is true until another table is loaded.
    bool setCategoryTable(const QString& file, const std::string& text, QString* error = nullptr);
    // The text of the table in use (the file's when it was loaded, or the session's copy).
    const std::string& categoryText() const { return m_categoryText; }
    bool categoryFromSession() const { return m_categoryFromSession; }

    // --- jobs --------------------------------------------------------------------------------------
    // Each returns the new job id (0 when there is no model). A new job supersedes the running one.
    quint64 generate(const QString& prompt, const GenerationOptions& opts);
    quint64 score(const QString& code);
    // Scores `code` whose first `promptBytes` UTF-8 bytes are the prompt: the tokens from there on are flagged
    // generated (an edited completion re-scored in place; the text before the boundary is Analysis::prompt).
    quint64 scoreCompletion(const QString& code, std::size_t promptBytes);
    // Evaluates an already scored text (e.g. from a session file); needs no model. `scoredBy`: the model that
    // scored it, as far as known (Analysis::model).
    quint64 analyze(ScoredText scored, AnalysisOrigin origin, const QString& prompt, const GenerationOptions& gen = {},
                    bool cancelled = false, std::optional<ModelInfo> scoredBy = std::nullopt);
    // Asks the running generation to stop; it returns the tokens generated so far, which are analysed. A
    // running scoring stops between forward passes (scoringStopped; the last result stays).
    void stop();

    Phase phase() const { return m_phase; }
    bool isBusy() const { return m_phase != Phase::Idle; }
    quint64 currentJob() const { return m_job; }
    AnalysisPtr current() const { return m_current; }
    // The model the last scoring/generation ran on (a test hook for "one model in memory").
    const LanguageModel* lastModelUsed() const { return m_lastModel; }

Q_SIGNALS:
    void phaseChanged(ascviz::ui::InteractiveEngine::Phase phase);
    void jobStarted(quint64 job);
    // One generated token of the running job (GUI thread). The worker waits for this to be delivered
    // before it computes the next token, so a stop() from a slot of this signal takes effect at once.
    void tokenStreamed(quint64 job, const QString& piece, double ntp, int index);
    void analysisReady(quint64 job);
    // Scoring a long text: `done` of `total` context windows scored (after each forward pass).
    void scoringProgress(quint64 job, int done, int total);
    void scoringStopped(quint64 job);
    void jobFailed(quint64 job, const QString& message);

private:
    struct JobState;
    void setPhase(Phase p);
    std::shared_ptr<JobState> beginJob(std::optional<Phase> phase);
    quint64 runModelJob(Phase phase, const QString& prompt, const GenerationOptions& gen,
                        std::optional<std::size_t> boundary = std::nullopt);
    // What startAnalysis starts from: scores to evaluate (evaluateScores), `base` to re-aggregate, or `base` as the
    // scoring job evaluated it (evaluateText) with `baseCategories` and its own aggregation and scope, kept when
    // the settings are still those (else re-aggregated, or evaluated again when the category table changed).
    enum class From { Scores, Reaggregate, Evaluated };
    // Evaluates (From) with the current settings and lays the ASTs out into a copy of `meta` (its origin, prompt,
    // generation settings and model; the rest is filled in).
    quint64 startAnalysis(quint64 job, std::shared_ptr<const EvalResult> base, ScoredText scored, const Analysis& meta,
                          From from, std::shared_ptr<const CategoryMap> baseCategories = nullptr);
    bool useCategories(const QString& file, const std::string* text, QString* error);
    void reanalyzeCurrent(bool reaggregateOnly);

    ModelService* m_models;
    QString m_language;
    Aggregation m_aggregation = Aggregation::Median;
    AggregationScope m_scope = AggregationScope::Tokens;
    std::size_t m_maxTextBytes = limits::kDefaultMaxTextBytes;
    QString m_categoryFile;
    std::shared_ptr<const CategoryMap> m_categories;
    std::string m_categoryText;
    bool m_categoryFromSession = false;

    quint64 m_jobCounter = 0;
    quint64 m_job = 0;
    quint64 m_trackerJob = 0; // the JobTracker id of the running model job
    std::shared_ptr<JobState> m_jobState;
    Phase m_phase = Phase::Idle;
    AnalysisPtr m_current;
    const LanguageModel* m_lastModel = nullptr;
};

} // namespace ascviz::ui
