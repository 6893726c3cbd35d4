#pragma once
#include "common/batchresults.h"
#include "pages/batch/batchrunner.h"
#include "pages/page.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace ascviz::ui {

class RunBar;
class RunController;
struct RunEnd;
class ModelService;
class ResultStore;
class StatsTableModel;
class StatsFilterProxy;
class ComparisonTableModel;
class SnippetTableModel;
class ClusterRunView;
class GalerasRunPanel;

// The Batch page: corpus-level AsC-Eval runs, results tables, charts, model comparison. Widgets and wiring
// only: a run is the page's RunController's (run/runcontroller.h: one run at a time, Batch or Galeras, a
// JobTracker job over the ModelService's one model, which it holds while it runs); the page turns its form into
// a BatchJob, the Galeras tab its own form into a Galeras job, and both show the run in a RunBar.
// Results databases live in the shared ResultStore: the charts and the comparison table show all of them,
// the statistics and snippet tables the one chosen in "Show".
class BatchPage : public QWidget, public Page {
    Q_OBJECT
public:
    BatchPage(ModelService* models, ResultStore* results, QWidget* parent = nullptr);
    ~BatchPage() override;

    // --- the run form (what the widgets hold)
    void setCorpusPath(const QString& path);
    void setModelDir(const QString& dir);
    void setDbPath(const QString& path);
    void setLimit(int limit);                // 0 = all
    void setPrecision(const QString& dtype); // float32 (default), float16, bfloat16
    void setLanguage(const QString& id);     // a registry id
    // θ and its scope (tokens | children, eval.h's AggregationScope), stored with the run like the CLI's
    // --aggregation / --aggregation-scope.
    void setAggregation(const QString& name);
    void setAggregationScope(const QString& scope);
    QComboBox* aggregationBox() const { return m_aggregation; }
    QComboBox* aggregationScopeBox() const { return m_scope; }
    // The form's fields (corpus, model folder, limit, language, θ, θ scope, device, precision) are remembered
    // in QSettings ("batch/…") when a run starts and restored when the window attaches the page; the results file is
    // not (a new run needs a new file).
    void saveForm() const;
    void restoreForm();
    QString language() const;
    QComboBox* languageBox() const { return m_language; }
    QString corpusPath() const;
    QString modelDir() const;
    QString dbPath() const;

    // --- actions (the buttons)
    void start();  // a new run into dbPath() (refused when the file exists)
    void pause();  // the runner waits after the current snippet
    void resume(); // un-pauses, or continues an interrupted run in dbPath()
    void cancel(); // stops after the current snippet; the DB stays resumable
    bool isRunning() const;
    bool isPaused() const;
    RunController* controller() const { return m_run; }
    GalerasRunPanel* galerasPanel() const { return m_galeras; }
    // A new results file for the current model: <user data>/AsC-Viz/results/<model>-<date-time>.db.
    QString suggestDbPath() const;
    // Whether Resume is enabled: while paused, or when dbPath() holds a run that did not complete.
    bool canResume() const;

    // Adds (or reloads) a results DB, read off the GUI thread; resultsLoaded() tells when it is in.
    void openResults(const QString& path);
    void removeResults(int index);
    // Watches a Slurm run folder (ascviz-cli slurm submit) in a window of its own, live; its merged
    // results open here. False with a message when DIR is not a run folder.
    bool openClusterRun(const QString& dir, QString* error = nullptr);
    ClusterRunView* clusterRunView() const { return m_clusterView; } // null until a run folder was opened
    const std::vector<BatchResultPtr>& resultSets() const;
    int currentSet() const;
    void setCurrentSet(int index);

    // --- views (for tests and exports)
    StatsTableModel* statsModel() const { return m_statsModel; }
    QComboBox* statsLanguageBox() const { return m_statsLanguage; }
    StatsFilterProxy* statsProxy() const { return m_statsProxy; }
    ComparisonTableModel* comparisonModel() const { return m_compareModel; }
    SnippetTableModel* snippetModel() const { return m_snippetModel; }
    QTableView* snippetView() const { return m_snippetView; }
    QChart* categoryChart() const;
    QChart* distributionChart() const;
    QChartView* categoryChartView() const { return m_categoryView; }
    QChartView* distributionChartView() const { return m_distributionView; }
    QTabWidget* resultTabs() const { return m_resultTabs; }
    QProgressBar* progressBar() const;
    QString statusText() const;
    // The warning over the results tabs when the open sets differ in more than the model ("" when none).
    QString comparisonWarning() const;
    QString flagLegend() const; // the statistics table's legend (thresholds and the minimum count)

    bool exportChartSvg(QChartView* view, const QString& file, QString* error = nullptr);
    // Writes the table shown in the current results tab (through its proxy) as CSV.
    bool exportCurrentTableCsv(const QString& file, QString* error = nullptr);

    // Emits openSnippetRequested for row `row` of the snippet table's source model.
    void openSnippet(int row);

    // --- Page
    QString title() const override { return tr("Batch"); }
    QWidget* widget() override { return this; }
    QList<QAction*> menuActions() override;
    bool canExport(ExportKind kind) const override;
    QString suggestedExportName(ExportKind kind) const override;
    bool exportTo(ExportKind kind, const QString& path, QString* error) override;
    bool exportsFigure(ExportKind kind) const override;
    void setFigureOptions(const FigureExportOptions& options) override;
    void onModelChanged() override;
    void attach(PageHost* host) override;
    // The controller's run, whatever its kind (Batch or Galeras).
    QString runningWork() const override;
    void stopRunningWork() override;

    // When dbPath() holds a run that did not complete: puts its corpus, model folder, θ, its scope, language, precision
    // and limit in the form (what Resume continues with) and says so; false when there is no such run. Resume and
    // choosing such a file call it.
    bool fillFromStoredRun();

Q_SIGNALS:
    // The user asked to inspect one snippet of a results database in the Interactive tab: its code, the run's
    // model, the snippet's language and the run's θ (its name), so that it shows the numbers of the table.
    void openSnippetRequested(const QString& code, const QString& modelDir, const QString& language = {},
                              const QString& aggregation = {});
    // A run ended (ok = no error; a cancelled run is ok).
    void runFinished(bool ok, const QString& message);
    // A results DB was read (after a run, or openResults); ok = false with a message on failure.
    void resultsLoaded(const QString& path, bool ok, const QString& message);

private:
    void buildUi();
    void launch(bool resume);
    void onRunStarting();
    void onFinished(const RunEnd& end);
    void onLoaded(const QString& path, bool ok, const QString& error, int index);
    void syncShowBox(int current);
    void refreshViews();
    void updateButtons();
    void setStatus(const QString& text, bool error = false);

    // run form
    QLineEdit* m_corpus = nullptr;
    QLineEdit* m_model = nullptr;
    QLineEdit* m_db = nullptr;
    QSpinBox* m_limit = nullptr;
    QComboBox* m_language = nullptr;
    QComboBox* m_aggregation = nullptr;
    QComboBox* m_scope = nullptr;
    std::unique_ptr<FigureExportOptions> m_figureOptions; // the chart exports' style (File › Export's dialog)
    QComboBox* m_device = nullptr;
    QComboBox* m_dtype = nullptr;
    RunBar* m_bar = nullptr; // Start, Pause, Cancel, Resume, progress and the status line
    QPlainTextEdit* m_issues = nullptr;
    QLabel* m_compareWarning = nullptr; // the settings the open sets differ in (ResultStore::comparisonWarning)
    QLabel* m_flagLegend = nullptr;
    // results
    QComboBox* m_show = nullptr;
    QComboBox* m_kinds = nullptr;
    QComboBox* m_statsLanguage = nullptr; // all / one language's statistics
    QLineEdit* m_filter = nullptr;
    QTabWidget* m_resultTabs = nullptr;
    GalerasRunPanel* m_galeras = nullptr; // the Galeras tab (pages/galeras)
    QTableView* m_statsView = nullptr;
    QTableView* m_compareView = nullptr;
    QTableView* m_snippetView = nullptr;
    QChartView* m_categoryView = nullptr;
    QChartView* m_distributionView = nullptr;
    StatsTableModel* m_statsModel = nullptr;
    StatsFilterProxy* m_statsProxy = nullptr;
    ComparisonTableModel* m_compareModel = nullptr;
    SnippetTableModel* m_snippetModel = nullptr;
    QSortFilterProxyModel* m_snippetProxy = nullptr;
    QSortFilterProxyModel* m_compareProxy = nullptr;
    QWidget* m_clusterWindow = nullptr;
    ClusterRunView* m_clusterView = nullptr;

    ModelService* m_models;
    ResultStore* m_results;
    RunController* m_run;
};

} // namespace ascviz::ui
