#include "pages/batch/batchpage.h"
#include "pages/cluster/clusterrunview.h"
#include "pages/galeras/galeraspanel.h"
#include "run/runbar.h"
#include "run/runcontroller.h"

#include "common/appidentity.h"
#include "common/errortext.h"
#include "common/languages.h"
#include "common/loadchoices.h"
#include "common/textpos.h"
#include "models/batchmodels.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/batchcharts.h"

#include "ascviz/base/duration.h"
#include "ascviz/base/hfcache.h"
#include "ascviz/base/resources.h"
#include "ascviz/syntax/language.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ascviz::ui {

BatchPage::BatchPage(ModelService* models, ResultStore* results, QWidget* parent)
    : QWidget(parent), m_models(models), m_results(results), m_run(new RunController(models, this))
{
    buildUi();
    if (const auto info = m_models->modelInfo())
        onModelChanged();
    connect(m_models, &ModelService::modelLoaded, this, &BatchPage::onModelChanged);
    connect(m_run, &RunController::runStarting, this, [this](const QString& kind) {
        if (kind == QLatin1String("batch"))
            onRunStarting();
    });
    connect(m_run, &RunController::finished, this, &BatchPage::onFinished);
    connect(m_results, &ResultStore::batchSetsChanged, this, [this] { syncShowBox(currentSet()); });
    connect(m_results, &ResultStore::batchSetLoaded, this, &BatchPage::onLoaded);
    updateButtons();
}

BatchPage::~BatchPage() = default; // the controller (a child) stops the run after its current item

void BatchPage::attach(PageHost* host)
{
    connect(this, &BatchPage::openSnippetRequested, this,
            [host](const QString& code, const QString& modelDir, const QString& language, const QString& aggregation) {
                host->openSnippet(code, modelDir, language, aggregation);
            });
    restoreForm(); // in the application's window (a page made alone, as tests do, starts blank)
}

void BatchPage::onModelChanged()
{
    // The run form follows the application's model (a run uses it); a run in progress keeps its own.
    const auto info = m_models->modelInfo();
    if (!info || isRunning())
        return;
    m_model->setText(toQString(info->dir.string()));
    m_dtype->setCurrentText(toQString(info->dtype));
}

QString BatchPage::suggestDbPath() const
{
    const QString dir = userDataDir() + QStringLiteral("/results");
    QString model = m_model && !m_model->text().trimmed().isEmpty()
                        ? toQString(modelNameFromDir(toUtf8(m_model->text().trimmed())))
                        : QString();
    model.replace(QLatin1Char('/'), QLatin1Char('_'));
    return dir + QStringLiteral("/%1-%2.db")
                     .arg(model.isEmpty() ? QStringLiteral("run") : model,
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
}

void BatchPage::setCorpusPath(const QString& p)
{
    m_corpus->setText(p);
}
void BatchPage::setModelDir(const QString& d)
{
    m_model->setText(d);
}
void BatchPage::setDbPath(const QString& p)
{
    m_db->setText(p);
}
void BatchPage::setLimit(int limit)
{
    m_limit->setValue(limit);
}
void BatchPage::setPrecision(const QString& dtype)
{
    m_dtype->setCurrentText(dtype);
}
void BatchPage::setLanguage(const QString& id)
{
    selectLanguage(m_language, id);
}
QString BatchPage::language() const
{
    return m_language->currentData().toString();
}
const std::vector<BatchResultPtr>& BatchPage::resultSets() const
{
    return m_results->batchSets();
}
QString BatchPage::corpusPath() const
{
    return m_corpus->text();
}
QString BatchPage::modelDir() const
{
    return m_model->text();
}
QString BatchPage::dbPath() const
{
    return m_db->text();
}
QString BatchPage::statusText() const
{
    return m_bar->statusText();
}
QProgressBar* BatchPage::progressBar() const
{
    return m_bar->progressBar();
}
QString BatchPage::comparisonWarning() const
{
    return m_compareWarning->text();
}
QString BatchPage::flagLegend() const
{
    return m_flagLegend->text();
}
bool BatchPage::isRunning() const
{
    return m_run->isRunning() && m_run->kind() == QLatin1String("batch");
}
bool BatchPage::isPaused() const
{
    return isRunning() && m_run->isPaused();
}
QChart* BatchPage::categoryChart() const
{
    return m_categoryView->chart();
}
QChart* BatchPage::distributionChart() const
{
    return m_distributionView->chart();
}

void BatchPage::setStatus(const QString& text, bool error)
{
    m_bar->setStatus(text, error);
}

void BatchPage::start()
{
    launch(false);
}

void BatchPage::resume()
{
    if (isRunning()) {
        m_run->unpause();
        return;
    }
    fillFromStoredRun(); // the stored run's settings, not the form's: Resume continues that run
    launch(true);
}

void BatchPage::pause()
{
    if (isRunning())
        m_run->pause();
}

void BatchPage::cancel()
{
    if (isRunning())
        m_run->cancel();
}

void BatchPage::stopRunningWork()
{
    m_run->cancel(); // whatever its kind
}

void BatchPage::launch(bool resume)
{
    const QString corpus = m_corpus->text().trimmed(), modelDir = m_model->text().trimmed(),
                  db = m_db->text().trimmed();
    if (corpus.isEmpty() || modelDir.isEmpty() || db.isEmpty()) {
        setStatus(tr("Choose a corpus, a model folder and a results DB file."), true);
        return;
    }
    if (!resume && QFileInfo::exists(db) && !batchRunIncomplete(toUtf8(db))) {
        // A finished run: nothing to resume, so the page does not offer it.
        setStatus(
            tr("%1 already exists and holds a finished run; choose another results file (New name) to start a new one.")
                .arg(db),
            true);
        return;
    }
    BatchJob job;
    job.corpus = toUtf8(corpus);
    job.db = toUtf8(db);
    job.options.modelDir = toUtf8(modelDir);
    job.options.limit = m_limit->value();
    job.options.language = toUtf8(language());
    job.options.aggregation = parseAggregation(toUtf8(m_aggregation->currentText()));
    job.options.aggregationScope = parseAggregationScope(toUtf8(m_scope->currentData().toString()));
    job.options.resume = resume;
    job.load.device = currentLoadOption<Device>(m_device);
    job.load.dtype = currentLoadOption<Dtype>(m_dtype);
    saveForm();
    m_run->start(batchRunJob(job));
}

void BatchPage::onRunStarting()
{
    m_issues->clear();
    m_issues->hide();
}

void BatchPage::onFinished(const RunEnd& run)
{
    updateButtons();
    if (run.kind != QLatin1String("batch"))
        return;
    BatchRunEnd end;
    if (const auto* b = std::any_cast<BatchRunEnd>(&run.detail))
        end = *b;
    else {
        end.summary.db = run.db;
        end.error = run.error;
        end.started = run.started;
        end.summary.cancelled = run.cancelled;
    }
    if (!end.started) {
        const QString message = tr("Cancelled before the run started.");
        setStatus(message);
        Q_EMIT runFinished(true, message);
        return;
    }
    if (!end.corpusIssues.empty()) {
        QStringList issues;
        for (const auto& i : end.corpusIssues)
            issues << toQString(i.location + ": " + i.message);
        m_issues->setPlainText(tr("%1 corpus entries skipped:\n").arg(issues.size()) + issues.join(QLatin1Char('\n')));
        m_issues->show();
    }
    const BatchSummary& s = end.summary;
    const QString message = end.ok() ? batchSummaryText(s) : end.error;
    if (end.ok()) {
        setStatus(s.cancelled ? message + tr(" — the results DB is consistent; Resume continues it.") : message);
        openResults(toQString(s.db.string()));
    } else {
        setStatus(message, true);
    }
    Q_EMIT runFinished(end.ok(), message);
}

void BatchPage::openResults(const QString& path)
{
    m_results->openBatchSet(path);
}

bool BatchPage::openClusterRun(const QString& dir, QString* error)
{
    if (!m_clusterView) {
        m_clusterWindow = new QWidget(this, Qt::Window);
        m_clusterWindow->setWindowTitle(tr("Cluster run"));
        m_clusterView = new ClusterRunView(m_clusterWindow);
        auto* layout = new QVBoxLayout(m_clusterWindow);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_clusterView);
        m_clusterWindow->resize(640, 420);
        connect(m_clusterView, &ClusterRunView::openResultsRequested, this, &BatchPage::openResults);
    }
    if (!m_clusterView->openRunFolder(dir, error))
        return false;
    m_clusterWindow->setWindowTitle(tr("Cluster run — %1").arg(dir));
    m_clusterWindow->show();
    m_clusterWindow->raise();
    return true;
}

void BatchPage::onLoaded(const QString& path, bool ok, const QString& error, int index)
{
    if (!ok) {
        setStatus(tr("Cannot open %1: %2").arg(path, error), true);
        Q_EMIT resultsLoaded(path, false, error);
        return;
    }
    syncShowBox(index);
    Q_EMIT resultsLoaded(path, true, QString());
}

void BatchPage::syncShowBox(int current)
{
    const auto& sets = m_results->batchSets();
    {
        const QSignalBlocker block(m_show);
        m_show->clear();
        for (const auto& s : sets)
            m_show->addItem(s->label, s->path);
        m_show->setCurrentIndex(std::min(current, static_cast<int>(sets.size()) - 1));
    }
    refreshViews();
}

void BatchPage::removeResults(int index)
{
    m_results->removeBatchSet(index);
}

int BatchPage::currentSet() const
{
    return m_show->currentIndex();
}

void BatchPage::setCurrentSet(int index)
{
    m_show->setCurrentIndex(index);
}

void BatchPage::refreshViews()
{
    const int cur = currentSet();
    const auto& sets = m_results->batchSets();
    const BatchResultPtr set =
        cur >= 0 && cur < static_cast<int>(sets.size()) ? sets[static_cast<std::size_t>(cur)] : nullptr;
    {
        // The language chooser of the statistics table: every snippet, then each language of the run.
        const QString keep = m_statsLanguage->currentData().toString();
        const QSignalBlocker block(m_statsLanguage);
        m_statsLanguage->clear();
        m_statsLanguage->addItem(tr("All languages"), QString());
        if (set)
            for (const auto& l : set->stats.languages) {
                const LanguageInfo* info = findLanguage(toQString(l.language));
                m_statsLanguage->addItem(
                    QStringLiteral("%1 (%2)").arg(info ? toQString(info->name) : toQString(l.language)).arg(l.snippets),
                    toQString(l.language));
            }
        const int at = m_statsLanguage->findData(keep);
        m_statsLanguage->setCurrentIndex(at < 0 ? 0 : at);
        m_statsLanguage->setEnabled(set && set->stats.languages.size() > 1);
        m_statsModel->setLanguage(m_statsLanguage->currentData().toString());
    }
    m_statsModel->setResultSet(set);
    m_snippetModel->setResultSet(set);
    // ★ only among runs whose values mean the same: same corpus, same θ and θ scope.
    bool comparable = !m_results->comparison().differentCorpus;
    for (const auto& d : m_results->comparison().differing)
        if (d.name == "θ" || d.name == "θ scope")
            comparable = false;
    m_compareModel->setResultSets(sets, comparable);
    m_compareWarning->setText(m_results->comparisonWarning());
    m_compareWarning->setVisible(!m_compareWarning->text().isEmpty());
    m_flagLegend->setText(
        tr("Threshold: confident ≥ 0.6, between 0.5 and 0.6, erroneous < 0.5; too few: fewer than %1 values "
           "(no flag either way)")
            .arg(set ? set->stats.minN : kDefaultMinN));
    buildCategoryChart(categoryChart(), sets);
    buildDistributionChart(distributionChart(), sets);
    for (auto* v : {m_statsView, m_snippetView, m_compareView})
        v->resizeColumnsToContents();
    if (set && !isRunning()) {
        const auto& s = set->stats;
        // A stopped run says so (the "Cancelled at …" line of its end is replaced by this one once it loads).
        const QString state =
            s.run.status == RunStatus::Cancelled
                ? tr(" — cancelled (%1 of %2 planned); Resume continues it").arg(s.counts.snippets).arg(s.run.planned)
            : s.run.status == RunStatus::Running ? tr(" — not complete (still running, or interrupted)")
                                                 : QString();
        setStatus(tr("%1: %2 snippets, Global AsC-Eval %3 (%4)%5")
                      .arg(set->label)
                      .arg(s.counts.ok)
                      .arg(s.globalAscEval ? QString::number(*s.globalAscEval, 'f', 3) : tr("n/a"))
                      .arg(set->path, state));
    }
}

bool BatchPage::canResume() const
{
    return m_bar->canResume();
}

void BatchPage::updateButtons()
{
    // The RunBar enables its own buttons (buttonsUpdated calls this); the form is locked while a run is going.
    const bool running = m_run->isRunning();
    for (QWidget* w : std::initializer_list<QWidget*>{m_corpus, m_model, m_db, m_limit, m_language, m_aggregation,
                                                      m_device, m_dtype})
        w->setEnabled(!running);
}

bool BatchPage::exportChartSvg(QChartView* view, const QString& file, QString* error)
{
    // The paper figure (figure room, vector, 85 mm), not a grab of the on-screen chart.
    return exportBatchFigure(view == m_distributionView ? BatchChart::Distribution : BatchChart::Categories,
                             m_results->batchSets(), file, m_results->comparisonWarning(), error,
                             m_figureOptions ? *m_figureOptions : FigureExportOptions{});
}

bool BatchPage::exportCurrentTableCsv(const QString& file, QString* error)
{
    QWidget* w = m_resultTabs->currentWidget();
    const QAbstractItemModel* model = nullptr;
    if (w == m_compareView)
        model = m_compareProxy;
    else if (w == m_snippetView)
        model = m_snippetProxy;
    else
        model = m_statsProxy;
    return writeModelCsv(model, file, error);
}

void BatchPage::openSnippet(int row)
{
    const SnippetRow* s = m_snippetModel->snippet(row);
    const auto set = m_snippetModel->resultSet();
    if (!s || !set)
        return;
    try {
        const auto db = ResultsDb::open(toUtf8(set->path));
        Q_EMIT openSnippetRequested(toQString(db.snippetCode(s->index)), set->modelDir, toQString(s->language),
                                    toQString(toString(db.runInfo().aggregation)));
    } catch (const std::exception& e) {
        setStatus(tr("Cannot read the snippet: %1").arg(errorMessage(e)), true);
    }
}

// ---------------------------------------------------------------- Page

QList<QAction*> BatchPage::menuActions()
{
    return {};
}

bool BatchPage::canExport(ExportKind kind) const
{
    if (m_results->batchSets().empty())
        return false;
    QWidget* w = m_resultTabs->currentWidget();
    const bool chart = w == m_categoryView || w == m_distributionView;
    return chart ? kind == ExportKind::Svg || kind == ExportKind::Pdf : kind == ExportKind::Csv;
}

bool BatchPage::exportsFigure(ExportKind kind) const
{
    return kind == ExportKind::Svg || kind == ExportKind::Pdf;
}

void BatchPage::setFigureOptions(const FigureExportOptions& options)
{
    m_figureOptions = std::make_unique<FigureExportOptions>(options);
}

QString BatchPage::suggestedExportName(ExportKind kind) const
{
    return (kind == ExportKind::Csv ? QStringLiteral("table") : QStringLiteral("chart")) + QLatin1Char('.') +
           exportKindName(kind);
}

bool BatchPage::exportTo(ExportKind kind, const QString& path, QString* error)
{
    if (kind == ExportKind::Svg || kind == ExportKind::Pdf)
        return exportChartSvg(m_resultTabs->currentWidget() == m_distributionView ? m_distributionView : m_categoryView,
                              path, error);
    if (kind == ExportKind::Csv)
        return exportCurrentTableCsv(path, error);
    if (error)
        *error = tr("The Batch page exports charts as SVG or PDF and tables as CSV.");
    return false;
}

} // namespace ascviz::ui
