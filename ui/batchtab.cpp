#include "batchtab.h"

#include "appidentity.h"

#include "batchcharts.h"
#include "batchmodels.h"
#include "textpos.h"

#include "ascviz/base/hfcache.h"
#include "ascviz/base/resources.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <map>

namespace ascviz::ui {

namespace {

std::string toStd(const QString& s)
{
    const QByteArray b = s.toUtf8();
    return std::string(b.constData(), static_cast<std::size_t>(b.size()));
}

QString safe(const std::function<std::filesystem::path()>& f)
{
    try {
        return toQString(f().string());
    } catch (const std::exception&) {
        return {};
    }
}

QString duration(double s)
{
    if (s < 0)
        return QStringLiteral("?");
    const qint64 t = static_cast<qint64>(s + 0.5);
    if (t >= 3600)
        return QStringLiteral("%1h%2m").arg(t / 3600).arg((t / 60) % 60, 2, 10, QLatin1Char('0'));
    if (t >= 60)
        return QStringLiteral("%1m%2s").arg(t / 60).arg(t % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1s").arg(t);
}

struct Loaded {
    BatchResultPtr set;
    QString error;
};

QTableView* makeTable(QWidget* parent)
{
    auto* v = new QTableView(parent);
    v->setSortingEnabled(true);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::SingleSelection);
    v->setAlternatingRowColors(true);
    v->verticalHeader()->setVisible(false);
    v->verticalHeader()->setDefaultSectionSize(22);
    v->horizontalHeader()->setStretchLastSection(true);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    return v;
}

} // namespace

BatchTab::BatchTab(QWidget* parent) : QWidget(parent)
{
    qRegisterMetaType<BatchProgressInfo>();
    qRegisterMetaType<BatchOutcome>();
    buildUi();

    m_thread = new QThread(this);
    m_thread->setObjectName(QStringLiteral("ascviz-batch"));
    m_worker = new BatchWorker(m_cancelFlag, m_pauseFlag);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &BatchWorker::stage, this, [this](const QString& t) { setStatus(t); }, Qt::QueuedConnection);
    connect(m_worker, &BatchWorker::progress, this, &BatchTab::onProgress, Qt::QueuedConnection);
    connect(m_worker, &BatchWorker::finished, this, &BatchTab::onFinished, Qt::QueuedConnection);
    m_thread->start();
    updateButtons();
}

BatchTab::~BatchTab()
{
    m_cancelFlag->store(true);
    m_pauseFlag->store(false);
    m_thread->quit();
    m_thread->wait();
}

void BatchTab::buildUi()
{
    // ---- run form
    auto* runBox = new QGroupBox(tr("Run"), this);
    auto* form = new QFormLayout;
    auto row = [&](QLineEdit*& edit, const QString& label, const QString& placeholder,
                   std::initializer_list<std::pair<QString, std::function<void()>>> buttons) {
        edit = new QLineEdit(runBox);
        edit->setPlaceholderText(placeholder);
        auto* h = new QHBoxLayout;
        h->addWidget(edit, 1);
        for (const auto& [text, fn] : buttons) {
            auto* b = new QToolButton(runBox);
            b->setText(text);
            connect(b, &QToolButton::clicked, this, fn);
            h->addWidget(b);
        }
        form->addRow(label, h);
    };
    row(m_corpus, tr("Corpus"), tr("JSON Lines / CSV file or a folder of .py files"),
        {{tr("File…"),
          [this] {
              const QString f = QFileDialog::getOpenFileName(this, tr("Corpus file"), QFileInfo(m_corpus->text()).path(),
                                                             tr("Corpus (*.jsonl *.ndjson *.json *.csv);;All files (*)"));
              if (!f.isEmpty())
                  m_corpus->setText(f);
          }},
         {tr("Folder…"),
          [this] {
              const QString d = QFileDialog::getExistingDirectory(this, tr("Folder of source files"), m_corpus->text());
              if (!d.isEmpty())
                  m_corpus->setText(d);
          }},
         {tr("Sample"), [this] { m_corpus->setText(safe([] { return sampleCorpus(); })); }}});
    row(m_model, tr("Model"), tr("Hugging Face model folder"),
        {{tr("Folder…"),
          [this] {
              const QString d = QFileDialog::getExistingDirectory(this, tr("Model folder"), m_model->text());
              if (!d.isEmpty())
                  m_model->setText(d);
          }},
         {tr("Bundled"), [this] { m_model->setText(safe([] { return defaultModelDir(); })); }}});
    row(m_db, tr("Results DB"), tr("SQLite file written by the run"),
        {{tr("Save as…"), [this] {
              const QString f = QFileDialog::getSaveFileName(this, tr("Results database"), m_db->text(),
                                                             tr("Results (*.db *.sqlite);;All files (*)"), nullptr,
                                                             QFileDialog::DontConfirmOverwrite);
              if (!f.isEmpty())
                  m_db->setText(f);
          }},
         {tr("New name"), [this] { m_db->setText(suggestDbPath()); }}});
    auto* opts = new QHBoxLayout;
    m_limit = new QSpinBox(runBox);
    m_limit->setRange(0, 10'000'000);
    m_limit->setSpecialValueText(tr("all"));
    m_limit->setToolTip(tr("Evaluate only the first N snippets (0 = all)"));
    m_aggregation = new QComboBox(runBox);
    m_aggregation->addItems({QStringLiteral("median"), QStringLiteral("mean"), QStringLiteral("max"), QStringLiteral("min")});
    m_aggregation->setToolTip(tr("Aggregation θ of a node's token NtP values"));
    m_device = new QComboBox(runBox);
    m_device->addItems({QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")});
    opts->addWidget(new QLabel(tr("Limit"), runBox));
    opts->addWidget(m_limit);
    opts->addSpacing(12);
    opts->addWidget(new QLabel(tr("Aggregation"), runBox));
    opts->addWidget(m_aggregation);
    opts->addSpacing(12);
    opts->addWidget(new QLabel(tr("Device"), runBox));
    opts->addWidget(m_device);
    m_dtype = new QComboBox(runBox);
    m_dtype->addItems({QStringLiteral("float32"), QStringLiteral("float16"), QStringLiteral("bfloat16")});
    m_dtype->setToolTip(tr("Compute precision: float32 follows the method; half precision is faster on a GPU"));
    opts->addSpacing(12);
    opts->addWidget(new QLabel(tr("Precision"), runBox));
    opts->addWidget(m_dtype);
    opts->addStretch(1);
    form->addRow(QString(), opts);

    auto* controls = new QHBoxLayout;
    m_start = new QPushButton(tr("Start"), runBox);
    m_pause = new QPushButton(tr("Pause"), runBox);
    m_cancel = new QPushButton(tr("Cancel"), runBox);
    m_resume = new QPushButton(tr("Resume"), runBox);
    m_start->setToolTip(tr("Evaluate the corpus into a new results database"));
    m_resume->setToolTip(tr("Continue a paused run, or an interrupted run stored in the results DB"));
    m_progress = new QProgressBar(runBox);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("%v / %m"));
    m_status = new QLabel(runBox);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    for (auto* b : {m_start, m_pause, m_cancel, m_resume})
        controls->addWidget(b);
    controls->addWidget(m_progress, 1);
    connect(m_start, &QPushButton::clicked, this, &BatchTab::start);
    connect(m_pause, &QPushButton::clicked, this, &BatchTab::pause);
    connect(m_cancel, &QPushButton::clicked, this, &BatchTab::cancel);
    connect(m_resume, &QPushButton::clicked, this, &BatchTab::resume);
    connect(m_db, &QLineEdit::textChanged, this, &BatchTab::updateButtons);
    m_issues = new QPlainTextEdit(runBox);
    m_issues->setReadOnly(true);
    m_issues->setMaximumHeight(60);
    m_issues->setPlaceholderText(tr("Skipped corpus entries are listed here"));
    m_issues->hide();

    auto* runLayout = new QVBoxLayout(runBox);
    runLayout->addLayout(form);
    runLayout->addLayout(controls);
    runLayout->addWidget(m_status);
    runLayout->addWidget(m_issues);

    // ---- results bar
    auto* resBar = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open results…"), this);
    open->setToolTip(tr("Open one or more results databases to compare models"));
    connect(open, &QPushButton::clicked, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open results databases"), QFileInfo(m_db->text()).path(),
                                                                tr("Results (*.db *.sqlite);;All files (*)"));
        for (const auto& f : files)
            openResults(f);
    });
    m_show = new QComboBox(this);
    m_show->setMinimumContentsLength(24);
    m_show->setToolTip(tr("The results shown in the statistics and snippet tables"));
    connect(m_show, &QComboBox::currentIndexChanged, this, [this](int) { refreshViews(); });
    auto* remove = new QPushButton(tr("Close"), this);
    connect(remove, &QPushButton::clicked, this, [this] { removeResults(currentSet()); });
    auto* exportChart = new QPushButton(tr("Export chart SVG…"), this);
    connect(exportChart, &QPushButton::clicked, this, [this] {
        QChartView* view = m_resultTabs->currentWidget() == m_distributionView ? m_distributionView : m_categoryView;
        const QString f = QFileDialog::getSaveFileName(this, tr("Export chart"), QString(), tr("SVG (*.svg)"));
        QString err;
        if (!f.isEmpty() && !exportChartSvg(view, f, &err))
            setStatus(err, true);
    });
    auto* exportTable = new QPushButton(tr("Export table CSV…"), this);
    connect(exportTable, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, tr("Export table"), QString(), tr("CSV (*.csv)"));
        QString err;
        if (!f.isEmpty() && !exportCurrentTableCsv(f, &err))
            setStatus(err, true);
    });
    resBar->addWidget(open);
    resBar->addWidget(new QLabel(tr("Show"), this));
    resBar->addWidget(m_show, 1);
    resBar->addWidget(remove);
    resBar->addStretch(1);
    resBar->addWidget(exportChart);
    resBar->addWidget(exportTable);

    // ---- results tabs
    m_resultTabs = new QTabWidget(this);
    // statistics
    auto* statsPage = new QWidget(m_resultTabs);
    auto* statsLayout = new QVBoxLayout(statsPage);
    auto* filterRow = new QHBoxLayout;
    m_kinds = new QComboBox(statsPage);
    m_kinds->addItems({tr("Categories and concepts"), tr("Categories"), tr("Concepts")});
    m_filter = new QLineEdit(statsPage);
    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    filterRow->addWidget(m_kinds);
    filterRow->addWidget(m_filter, 1);
    m_statsModel = new StatsTableModel(this);
    m_statsProxy = new StatsFilterProxy(this);
    m_statsProxy->setSourceModel(m_statsModel);
    m_statsView = makeTable(statsPage);
    m_statsView->setModel(m_statsProxy);
    m_statsView->sortByColumn(StatsTableModel::Median, Qt::DescendingOrder);
    connect(m_kinds, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_statsProxy->setKinds(static_cast<StatsFilterProxy::Kinds>(i)); });
    connect(m_filter, &QLineEdit::textChanged, m_statsProxy, &QSortFilterProxyModel::setFilterFixedString);
    statsLayout->addLayout(filterRow);
    statsLayout->addWidget(m_statsView);
    m_resultTabs->addTab(statsPage, tr("Statistics"));
    // charts
    m_categoryView = new QChartView(new QChart, m_resultTabs);
    m_categoryView->setRenderHint(QPainter::Antialiasing);
    m_resultTabs->addTab(m_categoryView, tr("Categories chart"));
    m_distributionView = new QChartView(new QChart, m_resultTabs);
    m_distributionView->setRenderHint(QPainter::Antialiasing);
    m_resultTabs->addTab(m_distributionView, tr("Distribution"));
    // comparison
    m_compareModel = new ComparisonTableModel(this);
    m_compareProxy = new QSortFilterProxyModel(this);
    m_compareProxy->setSourceModel(m_compareModel);
    m_compareProxy->setSortRole(Qt::UserRole);
    m_compareView = makeTable(m_resultTabs);
    m_compareView->setModel(m_compareProxy);
    m_compareView->setSortingEnabled(false); // keep Table I's order: global, categories, concepts
    m_compareView->horizontalHeader()->setStretchLastSection(false);
    m_resultTabs->addTab(m_compareView, tr("Compare models"));
    // snippets
    m_snippetModel = new SnippetTableModel(this);
    m_snippetProxy = new QSortFilterProxyModel(this);
    m_snippetProxy->setSourceModel(m_snippetModel);
    m_snippetProxy->setSortRole(Qt::UserRole);
    m_snippetView = makeTable(m_resultTabs);
    m_snippetView->setModel(m_snippetProxy);
    m_snippetView->sortByColumn(SnippetTableModel::Index, Qt::AscendingOrder);
    m_snippetView->setToolTip(tr("Click a snippet to open it in the Interactive tab"));
    connect(m_snippetView, &QTableView::clicked, this,
            [this](const QModelIndex& i) { openSnippet(m_snippetProxy->mapToSource(i).row()); });
    m_resultTabs->addTab(m_snippetView, tr("Snippets"));

    auto* top = new QVBoxLayout(this);
    top->addWidget(runBox);
    top->addLayout(resBar);
    top->addWidget(m_resultTabs, 1);

    m_corpus->setText(safe([] { return sampleCorpus(); }));
    m_model->setText(safe([] { return defaultModelDir(); }));
    m_db->setText(suggestDbPath());
    refreshViews();
}

QString BatchTab::suggestDbPath() const
{
    const QString dir = userDataDir() + QStringLiteral("/results");
    QString model = m_model && !m_model->text().trimmed().isEmpty()
                        ? QString::fromStdString(modelNameFromDir(toStd(m_model->text().trimmed())))
                        : QString();
    model.replace(QLatin1Char('/'), QLatin1Char('_'));
    return dir + QStringLiteral("/%1-%2.db")
                     .arg(model.isEmpty() ? QStringLiteral("run") : model,
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
}

void BatchTab::setCorpusPath(const QString& p) { m_corpus->setText(p); }
void BatchTab::setModelDir(const QString& d) { m_model->setText(d); }
void BatchTab::setDbPath(const QString& p) { m_db->setText(p); }
void BatchTab::setLimit(int limit) { m_limit->setValue(limit); }
void BatchTab::setPrecision(const QString& dtype) { m_dtype->setCurrentText(dtype); }
QString BatchTab::corpusPath() const { return m_corpus->text(); }
QString BatchTab::modelDir() const { return m_model->text(); }
QString BatchTab::dbPath() const { return m_db->text(); }
QString BatchTab::statusText() const { return m_status->text(); }
bool BatchTab::isPaused() const { return m_pauseFlag->load(); }
QChart* BatchTab::categoryChart() const { return m_categoryView->chart(); }
QChart* BatchTab::distributionChart() const { return m_distributionView->chart(); }

void BatchTab::setStatus(const QString& text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color:#a01818") : QString());
}

void BatchTab::start() { launch(false); }

void BatchTab::resume()
{
    if (m_running) {
        m_pauseFlag->store(false);
        updateButtons();
        return;
    }
    launch(true);
}

void BatchTab::pause()
{
    if (!m_running)
        return;
    m_pauseFlag->store(true);
    setStatus(tr("Pausing after the current snippet…"));
    updateButtons();
}

void BatchTab::cancel()
{
    if (!m_running)
        return;
    m_cancelFlag->store(true);
    m_pauseFlag->store(false);
    setStatus(tr("Cancelling after the current snippet…"));
    updateButtons();
}

void BatchTab::launch(bool resume)
{
    if (m_running)
        return;
    BatchJob job;
    job.corpus = m_corpus->text().trimmed();
    job.modelDir = m_model->text().trimmed();
    job.db = m_db->text().trimmed();
    job.limit = m_limit->value();
    job.aggregation = parseAggregation(toStd(m_aggregation->currentText()));
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
    m_cancelFlag->store(false);
    m_pauseFlag->store(false);
    m_running = true;
    m_issues->clear();
    m_issues->hide();
    m_progress->setRange(0, 0); // busy until the first progress report
    setStatus(tr("Starting…"));
    updateButtons();
    QPointer<BatchWorker> w = m_worker;
    QMetaObject::invokeMethod(
        m_worker, [w, job] { if (w) w->run(job); }, Qt::QueuedConnection);
}

void BatchTab::onProgress(const BatchProgressInfo& p)
{
    m_progress->setRange(0, std::max(1, p.total));
    m_progress->setValue(p.done);
    QString text = tr("%1 / %2 snippets · %3 snippets/s · %4 tokens/s · ETA %5")
                       .arg(p.done)
                       .arg(p.total)
                       .arg(p.snippetsPerSecond, 0, 'f', 1)
                       .arg(p.tokensPerSecond, 0, 'f', 0)
                       .arg(duration(p.etaSeconds));
    if (p.resumed)
        text += tr(" · %1 already in the DB").arg(p.resumed);
    if (p.errors)
        text += tr(" · %1 errors").arg(p.errors);
    if (p.paused)
        text = tr("Paused at %1 / %2 — press Resume to continue").arg(p.done).arg(p.total);
    setStatus(text);
    updateButtons();
}

void BatchTab::onFinished(const BatchOutcome& o)
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

void BatchTab::openResults(const QString& path)
{
    const QString canon = QFileInfo(path).absoluteFilePath();
    if (!m_order.contains(canon))
        m_order << canon; // sets are shown in the order they were asked for, whatever order loads finish in
    ++m_loadsInFlight;
    auto* watcher = new QFutureWatcher<Loaded>(this);
    connect(watcher, &QFutureWatcher<Loaded>::finished, this, [this, watcher, path] {
        const Loaded l = watcher->result();
        watcher->deleteLater();
        --m_loadsInFlight;
        onLoaded(path, l.set, l.error);
    });
    watcher->setFuture(QtConcurrent::run([path] {
        Loaded l;
        try {
            l.set = loadResultSet(path);
        } catch (const std::exception& e) {
            l.error = toQString(e.what());
        }
        return l;
    }));
}

void BatchTab::onLoaded(const QString& path, BatchResultPtr set, const QString& error)
{
    if (!set) {
        m_order.removeAll(QFileInfo(path).absoluteFilePath());
        setStatus(tr("Cannot open %1: %2").arg(path, error), true);
        Q_EMIT resultsLoaded(path, false, error);
        return;
    }
    const QString canon = QFileInfo(path).absoluteFilePath();
    int index = -1;
    for (std::size_t k = 0; k < m_sets.size(); ++k)
        if (QFileInfo(m_sets[k]->path).absoluteFilePath() == canon)
            index = static_cast<int>(k);
    if (index >= 0) {
        m_sets[static_cast<std::size_t>(index)] = set;
    } else {
        const auto rank = [this](const BatchResultPtr& s) { return m_order.indexOf(QFileInfo(s->path).absoluteFilePath()); };
        const int mine = m_order.indexOf(canon);
        auto it = m_sets.begin();
        while (it != m_sets.end() && rank(*it) < mine)
            ++it;
        index = static_cast<int>(it - m_sets.begin());
        m_sets.insert(it, set);
    }
    // Unique labels: the model name, plus the file name where two sets share it.
    std::map<QString, int> uses;
    for (const auto& s : m_sets)
        ++uses[toQString(s->stats.run.modelName)];
    for (auto& s : m_sets) {
        const QString name = toQString(s->stats.run.modelName);
        const QString want = uses[name] > 1 ? QStringLiteral("%1 (%2)").arg(name, QFileInfo(s->path).fileName()) : name;
        if (s->label != want) {
            auto copy = std::make_shared<BatchResultSet>(*s);
            copy->label = want;
            s = copy;
        }
    }
    {
        const QSignalBlocker block(m_show);
        m_show->clear();
        for (const auto& s : m_sets)
            m_show->addItem(s->label, s->path);
        m_show->setCurrentIndex(index);
    }
    refreshViews();
    Q_EMIT resultsLoaded(path, true, QString());
}

void BatchTab::removeResults(int index)
{
    if (index < 0 || index >= static_cast<int>(m_sets.size()))
        return;
    m_order.removeAll(QFileInfo(m_sets[static_cast<std::size_t>(index)]->path).absoluteFilePath());
    m_sets.erase(m_sets.begin() + index);
    {
        const QSignalBlocker block(m_show);
        m_show->removeItem(index);
    }
    refreshViews();
}

int BatchTab::currentSet() const { return m_show->currentIndex(); }

void BatchTab::setCurrentSet(int index) { m_show->setCurrentIndex(index); }

void BatchTab::refreshViews()
{
    const int cur = currentSet();
    const BatchResultPtr set = cur >= 0 && cur < static_cast<int>(m_sets.size()) ? m_sets[static_cast<std::size_t>(cur)]
                                                                                  : nullptr;
    m_statsModel->setResultSet(set);
    m_snippetModel->setResultSet(set);
    m_compareModel->setResultSets(m_sets);
    buildCategoryChart(categoryChart(), m_sets);
    buildDistributionChart(distributionChart(), m_sets);
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

bool BatchTab::canResume() const { return m_resume->isEnabled(); }

// Whether `db` is a results database whose run is not complete (interrupted or cancelled): what Resume
// can continue. A complete run, a missing file or a file that is no results DB cannot be resumed.
bool BatchTab::storedRunIncomplete(const QString& db)
{
    if (db.isEmpty() || !QFileInfo::exists(db))
        return false;
    try {
        return ResultsDb::open(toStd(db)).runInfo().status != "complete";
    } catch (const std::exception&) {
        return false;
    }
}

void BatchTab::updateButtons()
{
    const bool paused = m_pauseFlag->load();
    m_start->setEnabled(!m_running);
    m_pause->setEnabled(m_running && !paused && !m_cancelFlag->load());
    m_cancel->setEnabled(m_running && !m_cancelFlag->load());
    m_resume->setEnabled(m_running ? paused : storedRunIncomplete(m_db->text().trimmed()));
    for (QWidget* w : std::initializer_list<QWidget*>{m_corpus, m_model, m_db, m_limit, m_aggregation, m_device, m_dtype})
        w->setEnabled(!m_running);
}

bool BatchTab::exportChartSvg(QChartView* view, const QString& file, QString* error)
{
    return exportWidgetSvg(view, file, view->chart()->title(), error);
}

bool BatchTab::exportCurrentTableCsv(const QString& file, QString* error)
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

void BatchTab::openSnippet(int row)
{
    const SnippetRow* s = m_snippetModel->snippet(row);
    const auto set = m_snippetModel->resultSet();
    if (!s || !set)
        return;
    try {
        const auto db = ResultsDb::open(toStd(set->path));
        Q_EMIT openSnippetRequested(toQString(db.snippetCode(s->index)), set->modelDir);
    } catch (const std::exception& e) {
        setStatus(tr("Cannot read the snippet: %1").arg(toQString(e.what())), true);
    }
}

} // namespace ascviz::ui
