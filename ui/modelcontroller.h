// The QObject façade that runs every long job of the Interactive tab off the GUI thread: loading a model,
// generating (streamed), scoring, and analysis (evaluate + Graphviz layouts). Results are immutable
// (AnalysisPtr); every job has an id and results of superseded jobs are dropped; state changes only on the
// GUI thread; no exception crosses a thread (errors arrive as messages).
#pragma once
#include "analysis.h"

#include "ascviz/eval/eval.h"
#include "ascviz/model/model.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <memory>
#include <optional>

namespace ascviz::ui {

class ModelController : public QObject {
    Q_OBJECT
public:
    enum class Phase { Idle, Generating, Scoring, Analyzing };
    Q_ENUM(Phase)

    explicit ModelController(QObject* parent = nullptr);
    ~ModelController() override;

    // --- model -------------------------------------------------------------------------------------
    // Loads a model folder in the background; the current model stays usable until the new one is in.
    void loadModel(const QString& dir, const LoadOptions& opts = {});
    bool isLoading() const { return m_loadJob != 0; }
    bool hasModel() const { return bool(m_model); }
    // Info of the loaded model (nullopt when none).
    std::optional<ModelInfo> modelInfo() const;
    QString loadingDir() const { return m_loadingDir; }

    // --- settings that change the numbers ------------------------------------------------------------
    Aggregation aggregation() const { return m_aggregation; }
    // Re-aggregates the current result (off the GUI thread); a running generation picks it up when done.
    void setAggregation(Aggregation a);
    QString categoryFile() const { return m_categoryFile; }
    // Loads a category table (empty = bundled) and re-evaluates the current result. On a bad file returns
    // false with a message and keeps the old table.
    bool setCategoryFile(const QString& file, QString* error = nullptr);

    // --- jobs --------------------------------------------------------------------------------------
    // Each returns the new job id (0 when there is no model). A new job supersedes the running one.
    quint64 generate(const QString& prompt, const GenerationOptions& opts);
    quint64 score(const QString& code);
    // Evaluates an already scored text (e.g. from a session file); needs no model.
    quint64 analyze(ScoredText scored, AnalysisOrigin origin, const QString& prompt, const GenerationOptions& gen = {},
                    bool cancelled = false);
    // Asks the running generation to stop; it returns the tokens generated so far, which are analysed.
    void stop();

    Phase phase() const { return m_phase; }
    bool isBusy() const { return m_phase != Phase::Idle; }
    quint64 currentJob() const { return m_job; }
    AnalysisPtr current() const { return m_current; }

Q_SIGNALS:
    void loadStarted(const QString& dir);
    void loadProgress(double fraction);
    void modelLoaded();
    void loadFailed(const QString& dir, const QString& message);

    void phaseChanged(ascviz::ui::ModelController::Phase phase);
    void jobStarted(quint64 job);
    // One generated token of the running job (GUI thread). The worker waits for this to be delivered
    // before it computes the next token, so a stop() from a slot of this signal takes effect at once.
    void tokenStreamed(quint64 job, const QString& piece, double ntp, int index);
    void analysisReady(quint64 job);
    void jobFailed(quint64 job, const QString& message);

private:
    struct JobState;
    void setPhase(Phase p);
    // Starts a new job (superseding the one in flight), optionally entering `phase`, and emits jobStarted.
    std::shared_ptr<JobState> beginJob(std::optional<Phase> phase);
    quint64 startAnalysis(quint64 job, std::shared_ptr<const EvalResult> base, ScoredText scored, AnalysisOrigin origin,
                          const QString& prompt, const GenerationOptions& gen, bool cancelled, bool reaggregateOnly);
    void modelJobFinished(quint64 job, ScoredText scored, AnalysisOrigin origin, QString prompt, GenerationOptions gen,
                          bool cancelled);
    void reanalyzeCurrent(bool reaggregateOnly);

    QThreadPool m_loadPool;     // loading models
    QThreadPool m_modelPool;    // generate / score, one at a time
    QThreadPool m_analysisPool; // evaluate + Graphviz, one at a time (Graphviz is not re-entrant)

    std::shared_ptr<const LanguageModel> m_model;
    quint64 m_loadJob = 0;
    quint64 m_loadCounter = 0;
    QString m_loadingDir;

    Aggregation m_aggregation = Aggregation::Median;
    QString m_categoryFile;
    std::shared_ptr<const CategoryMap> m_categories;

    quint64 m_jobCounter = 0;
    quint64 m_job = 0;
    std::shared_ptr<JobState> m_jobState;
    Phase m_phase = Phase::Idle;
    AnalysisPtr m_current;
};

} // namespace ascviz::ui
