#include "pages/batch/batchpage.h"
#include "pages/cluster/clusterrunview.h"

#include "common/appidentity.h"

#include "common/languages.h"
#include "common/textpos.h"
#include "models/batchmodels.h"
#include "services/jobtracker.h"
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
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ascviz::ui {

BatchPage::BatchPage(ModelService* models, ResultStore* results, QWidget* parent)
    : QWidget(parent), m_models(models), m_results(results)
{
    qRegisterMetaType<BatchProgressInfo>();
    qRegisterMetaType<BatchOutcome>();
    buildUi();
    if (const auto info = m_models->modelInfo())
        onModelChanged();
    connect(m_models, &ModelService::modelLoaded, this, [this] {
        onModelChanged();
        if (m_waitingForModel) {
            m_waitingForModel = false;
            runJob(m_pendingJob);
        }
    });
    connect(m_models, &ModelService::loadFailed, this, [this](const QString&, const QString& message) {
        if (!m_waitingForModel)
            return;
        m_waitingForModel = false;
        BatchOutcome o;
        o.db = m_pendingJob.db;
        o.message = tr("The model could not be loaded: %1").arg(message);
        onFinished(o);
    });
    connect(m_results, &ResultStore::batchSetsChanged, this, [this] { syncShowBox(currentSet()); });
    connect(m_results, &ResultStore::batchSetLoaded, this, &BatchPage::onLoaded);
    updateButtons();
}

BatchPage::~BatchPage()
{
    // The run stops after its current snippet; the tracker (owned by the model service) waits for it.
    m_pauseFlag->store(false);
    if (m_runJob)
        m_models->jobs()->cancel(m_runJob);
}

void BatchPage::onModelChanged()
{
    // The run form follows the application's model (a run uses it); a run in progress keeps its own.
    const auto info = m_models->modelInfo();
    if (!info || m_running)
        return;
    m_model->setText(toQString(info->dir.string()));
    m_dtype->setCurrentText(toQString(info->dtype));
}

QString BatchPage::suggestDbPath() const
{
    const QString dir = userDataDir() + QStringLiteral("/results");
    QString model = m_model && !m_model->text().trimmed().isEmpty()
                        ? QString::fromStdString(modelNameFromDir(toUtf8(m_model->text().trimmed())))
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
    return m_status->text();
}
bool BatchPage::isPaused() const
{
    return m_pauseFlag->load();
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
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color:#a01818") : QString());
}

void BatchPage::start()
{
    launch(false);
}

void BatchPage::resume()
{
    if (m_running) {
        m_pauseFlag->store(false);
        updateButtons();
        return;
    }
    launch(true);
}

void BatchPage::pause()
{
    if (!m_running)
        return;
    m_pauseFlag->store(true);
    setStatus(tr("Pausing after the current snippet…"));
    updateButtons();
}

void BatchPage::cancel()
{
    if (!m_running)
        return;
    m_cancelRequested = true;
    m_pauseFlag->store(false);
    if (m_waitingForModel) { // not started yet: nothing to stop
        m_waitingForModel = false;
        BatchOutcome o;
        o.ok = true;
        o.cancelled = true;
        o.db = m_pendingJob.db;
        o.message = tr("Cancelled before the run started.");
        m_running = false;
        setStatus(o.message);
        updateButtons();
        Q_EMIT runFinished(true, o.message);
        return;
    }
    m_models->jobs()->cancel(m_runJob);
    setStatus(tr("Cancelling after the current snippet…"));
    updateButtons();
}

void BatchPage::launch(bool resume)
{
    if (m_running)
        return;
    BatchJob job;
    job.corpus = m_corpus->text().trimmed();
    job.modelDir = m_model->text().trimmed();
    job.db = m_db->text().trimmed();
    job.limit = m_limit->value();
    job.language = language();
    job.aggregation = parseAggregation(toUtf8(m_aggregation->currentText()));
    job.device = m_device->currentText();
    job.dtype = m_dtype->currentText();
    job.resume = resume;
    if (job.corpus.isEmpty() || job.modelDir.isEmpty() || job.db.isEmpty()) {
        setStatus(tr("Choose a corpus, a model folder and a results DB file."), true);
        return;
    }
    if (!resume && QFileInfo::exists(job.db)) {
        setStatus(tr("%1 already exists: press Resume to continue it, or choose another file (New name).").arg(job.db),
                  true);
        return;
    }
    if (resume && !QFileInfo::exists(job.db)) {
        setStatus(tr("%1 does not exist: nothing to resume (press Start).").arg(job.db), true);
        return;
    }
    if (resume && !storedRunIncomplete(job.db)) {
        setStatus(tr("%1 holds a complete run (or is no results DB): nothing to resume.").arg(job.db), true);
        return;
    }
    QDir().mkpath(QFileInfo(job.db).absolutePath());
    m_cancelRequested = false;
    m_pauseFlag->store(false);
    m_running = true;
    m_issues->clear();
    m_issues->hide();
    m_progress->setRange(0, 0); // busy until the first progress report
    updateButtons();
    if (!m_models->isLoaded(job.modelDir, job.device, job.dtype)) {
        // One model in memory: the run's model replaces the application's model (every page uses it).
        setStatus(tr("Loading model %1…").arg(QFileInfo(job.modelDir).fileName()));
        m_pendingJob = job;
        m_waitingForModel = true;
        LoadOptions lo;
        lo.device = toUtf8(job.device);
        lo.dtype = toUtf8(job.dtype);
        if (!m_models->loadModel(job.modelDir, lo) && m_waitingForModel) {
            m_waitingForModel = false;
            BatchOutcome o;
            o.db = job.db;
            o.message = tr("Cannot load the run's model: %1 holds the current model.").arg(m_models->heldBy());
            onFinished(o);
        }
        return;
    }
    runJob(job);
}

void BatchPage::runJob(const BatchJob& job)
{
    const std::shared_ptr<const LanguageModel> model = m_models->model();
    if (!model) {
        BatchOutcome o;
        o.db = job.db;
        o.message = tr("No model is loaded.");
        onFinished(o);
        return;
    }
    setStatus(tr("Starting…"));
    // Released on the GUI thread when the run ends (or when the job's callbacks are dropped).
    auto hold = std::make_shared<std::shared_ptr<void>>(m_models->hold(tr("A batch run")));
    auto outcome = std::make_shared<BatchOutcome>();
    const auto pause = m_pauseFlag;
    QPointer<BatchPage> guard(this);
    auto work = [model, job, pause, outcome, guard](JobContext& ctx) {
        *outcome = runBatchJob(*model, job, ctx, pause.get(), [guard](const BatchProgressInfo& p) {
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [guard, p] {
                    if (guard)
                        guard->onProgress(p);
                },
                Qt::QueuedConnection);
        });
    };
    JobTracker::Callbacks cb;
    cb.finished = [this, outcome, hold] {
        hold->reset();
        m_runJob = 0;
        onFinished(*outcome);
    };
    cb.progress = [this](double, const QString& text) {
        if (!text.isEmpty())
            setStatus(text);
    };
    m_runJob = m_models->jobs()->start(tr("Batch run %1").arg(QFileInfo(job.db).fileName()), QStringLiteral("batch"),
                                       std::move(work), this, std::move(cb));
}

void BatchPage::onProgress(const BatchProgressInfo& p)
{
    m_progress->setRange(0, std::max(1, p.total));
    m_progress->setValue(p.done);
    QString text = tr("%1 / %2 snippets · %3 snippets/s · %4 tokens/s · ETA %5")
                       .arg(p.done)
                       .arg(p.total)
                       .arg(p.snippetsPerSecond, 0, 'f', 1)
                       .arg(p.tokensPerSecond, 0, 'f', 0)
                       .arg(toQString(formatDuration(p.etaSeconds)));
    if (p.resumed)
        text += tr(" · %1 already in the DB").arg(p.resumed);
    if (p.errors)
        text += tr(" · %1 errors").arg(p.errors);
    if (p.paused)
        text = tr("Paused at %1 / %2 — press Resume to continue").arg(p.done).arg(p.total);
    setStatus(text);
    updateButtons();
}

void BatchPage::onFinished(const BatchOutcome& o)
{
    m_running = false;
    m_pauseFlag->store(false);
    if (m_progress->maximum() == 0)
        m_progress->setRange(0, 1);
    if (!o.corpusIssues.isEmpty()) {
        m_issues->setPlainText(tr("%1 corpus entries skipped:\n").arg(o.corpusIssues.size()) +
                               o.corpusIssues.join(QLatin1Char('\n')));
        m_issues->show();
    }
    if (o.ok) {
        m_progress->setRange(0, std::max(1, o.total));
        m_progress->setValue(o.resumed + o.stored);
        setStatus(o.cancelled ? o.message + tr(" — the results DB is consistent; Resume continues it.") : o.message);
        openResults(o.db);
    } else {
        setStatus(o.message, true);
    }
    updateButtons();
    Q_EMIT runFinished(o.ok, o.message);
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
    m_compareModel->setResultSets(sets);
    buildCategoryChart(categoryChart(), sets);
    buildDistributionChart(distributionChart(), sets);
    for (auto* v : {m_statsView, m_snippetView, m_compareView})
        v->resizeColumnsToContents();
    if (set && !m_running) {
        const auto& s = set->stats;
        setStatus(tr("%1: %2 snippets, Global AsC-Eval %3 (%4)")
                      .arg(set->label)
                      .arg(s.counts.ok)
                      .arg(s.globalAscEval ? QString::number(*s.globalAscEval, 'f', 3) : tr("n/a"))
                      .arg(set->path));
    }
}

bool BatchPage::canResume() const
{
    return m_resume->isEnabled();
}

// Whether `db` is a results database whose run is not complete (interrupted or cancelled): what Resume
// can continue. A complete run, a missing file or a file that is no results DB cannot be resumed.
bool BatchPage::storedRunIncomplete(const QString& db)
{
    if (db.isEmpty() || !QFileInfo::exists(db))
        return false;
    try {
        return ResultsDb::open(toUtf8(db)).runInfo().status != RunStatus::Complete;
    } catch (const std::exception&) {
        return false;
    }
}

void BatchPage::updateButtons()
{
    const bool paused = m_pauseFlag->load();
    m_start->setEnabled(!m_running);
    m_pause->setEnabled(m_running && !paused && !m_cancelRequested);
    m_cancel->setEnabled(m_running && !m_cancelRequested);
    m_resume->setEnabled(m_running ? paused : storedRunIncomplete(m_db->text().trimmed()));
    for (QWidget* w : std::initializer_list<QWidget*>{m_corpus, m_model, m_db, m_limit, m_language, m_aggregation,
                                                      m_device, m_dtype})
        w->setEnabled(!m_running);
}

bool BatchPage::exportChartSvg(QChartView* view, const QString& file, QString* error)
{
    return exportWidgetSvg(view, file, view->chart()->title(), error);
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
        Q_EMIT openSnippetRequested(toQString(db.snippetCode(s->index)), set->modelDir, toQString(s->language));
    } catch (const std::exception& e) {
        setStatus(tr("Cannot read the snippet: %1").arg(toQString(e.what())), true);
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
    return chart ? kind == ExportKind::Svg : kind == ExportKind::Csv;
}

QString BatchPage::suggestedExportName(ExportKind kind) const
{
    return (kind == ExportKind::Svg ? QStringLiteral("chart") : QStringLiteral("table")) + QLatin1Char('.') +
           exportKindName(kind);
}

bool BatchPage::exportTo(ExportKind kind, const QString& path, QString* error)
{
    if (kind == ExportKind::Svg)
        return exportChartSvg(m_resultTabs->currentWidget() == m_distributionView ? m_distributionView : m_categoryView,
                              path, error);
    if (kind == ExportKind::Csv)
        return exportCurrentTableCsv(path, error);
    if (error)
        *error = tr("The Batch page exports charts as SVG and tables as CSV.");
    return false;
}

} // namespace ascviz::ui
