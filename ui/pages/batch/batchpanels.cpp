#include "pages/batch/batchpage.h"
#include "pages/galeras/galeraspanel.h"
#include "run/runbar.h"

#include "common/analysis.h"
#include "common/appidentity.h"
#include "common/figureoptions.h"

#include "common/languages.h"
#include "common/loadchoices.h"
#include "common/textpos.h"
#include "models/batchmodels.h"
#include "views/batchcharts.h"
#include "views/tableview.h"

#include "ascviz/base/hfcache.h"
#include "ascviz/base/resources.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace ascviz::ui {

namespace {

QString safe(const std::function<std::filesystem::path()>& f)
{
    try {
        return toQString(f().string());
    } catch (const std::exception&) {
        return {};
    }
}

} // namespace

void BatchPage::buildUi()
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
    row(m_corpus, tr("Corpus"), tr("JSON Lines / CSV file or a folder of %1 files").arg(extensionList()),
        {{tr("File…"),
          [this] {
              const QString f =
                  QFileDialog::getOpenFileName(this, tr("Corpus file"), QFileInfo(m_corpus->text()).path(),
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
         {tr("Sample"), [this] { m_corpus->setText(sampleCorpusFor(language())); }}});
    row(m_model, tr("Model"), tr("Hugging Face model folder"),
        {{tr("Folder…"),
          [this] {
              const QString d = QFileDialog::getExistingDirectory(this, tr("Model folder"), m_model->text());
              if (!d.isEmpty())
                  m_model->setText(d);
          }},
         {tr("Bundled"), [this] { m_model->setText(safe([] { return defaultModelDir(); })); }}});
    row(m_db, tr("Results DB"), tr("SQLite file written by the run"),
        {{tr("Save as…"),
          [this] {
              const QString f = QFileDialog::getSaveFileName(this, tr("Results database"), m_db->text(),
                                                             tr("Results (*.db *.sqlite);;All files (*)"), nullptr,
                                                             QFileDialog::DontConfirmOverwrite);
              if (f.isEmpty())
                  return;
              m_db->setText(f);
              fillFromStoredRun();
          }},
         {tr("New name"), [this] { m_db->setText(suggestDbPath()); }}});
    auto* opts = new QHBoxLayout;
    m_limit = new QSpinBox(runBox);
    m_limit->setRange(0, 10'000'000);
    m_limit->setSpecialValueText(tr("all"));
    m_limit->setToolTip(tr("Evaluate only the first N snippets (0 = all)"));
    m_language = new QComboBox(runBox);
    fillLanguageBox(m_language);
    m_language->insertItem(0, tr("Per snippet"), QString());
    m_language->setCurrentIndex(0);
    m_language->setToolTip(tr("The language of the corpus snippets (parsed with its grammar and categories). Per "
                              "snippet: a snippet's \"language\" field, a folder file's extension, else %1")
                               .arg(defaultLanguageId()));
    opts->addWidget(new QLabel(tr("Language"), runBox));
    opts->addWidget(m_language);
    opts->addSpacing(12);
    m_aggregation = new QComboBox(runBox);
    m_aggregation->addItems(
        {QStringLiteral("median"), QStringLiteral("mean"), QStringLiteral("max"), QStringLiteral("min")});
    m_aggregation->setToolTip(tr("Aggregation θ of a node's token NtP values"));
    m_scope = new QComboBox(runBox);
    m_scope->addItem(tr("tokens"), QStringLiteral("tokens"));
    m_scope->addItem(tr("children"), QStringLiteral("children"));
    m_scope->setToolTip(tr("θ's scope: over a node's own tokens (the paper's text), or over its children's values "
                           "bottom-up (the paper's Fig. 2-C); stored with the run"));
    m_device = new QComboBox(runBox);
    addLoadOptionItems<Device>(m_device, true);
    opts->addWidget(new QLabel(tr("Limit"), runBox));
    opts->addWidget(m_limit);
    opts->addSpacing(12);
    opts->addWidget(new QLabel(tr("Aggregation"), runBox));
    opts->addWidget(m_aggregation);
    opts->addWidget(new QLabel(tr("over"), runBox));
    opts->addWidget(m_scope);
    opts->addSpacing(12);
    opts->addWidget(new QLabel(tr("Device"), runBox));
    opts->addWidget(m_device);
    m_dtype = new QComboBox(runBox);
    addLoadOptionItems<Dtype>(m_dtype, false);
    disableUnsupportedDtypes(m_dtype);
    m_dtype->setToolTip(tr("Compute precision: float32 follows the method; half precision is faster on a GPU"));
    opts->addSpacing(12);
    opts->addWidget(new QLabel(tr("Precision"), runBox));
    opts->addWidget(m_dtype);
    opts->addStretch(1);
    form->addRow(QString(), opts);

    m_bar = new RunBar(m_run, QStringLiteral("batch"), tr("Start"), runBox);
    m_bar->setStartToolTip(tr("Evaluate the corpus into a new results database"));
    m_bar->setCanResume([this] { return batchRunIncomplete(toUtf8(m_db->text().trimmed())); });
    connect(m_bar, &RunBar::startRequested, this, &BatchPage::start);
    connect(m_bar, &RunBar::resumeRequested, this, &BatchPage::resume);
    connect(m_bar, &RunBar::buttonsUpdated, this, &BatchPage::updateButtons);
    connect(m_db, &QLineEdit::textChanged, m_bar, &RunBar::updateButtons);
    connect(m_db, &QLineEdit::editingFinished, this, &BatchPage::fillFromStoredRun);
    m_issues = new QPlainTextEdit(runBox);
    m_issues->setReadOnly(true);
    m_issues->setMaximumHeight(60);
    m_issues->setPlaceholderText(tr("Skipped corpus entries are listed here"));
    m_issues->hide();

    auto* runLayout = new QVBoxLayout(runBox);
    runLayout->addLayout(form);
    runLayout->addWidget(m_bar);
    runLayout->addWidget(m_issues);

    // ---- results bar
    auto* resBar = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open results…"), this);
    open->setToolTip(tr("Open one or more results databases to compare models"));
    connect(open, &QPushButton::clicked, this, [this] {
        const QStringList files =
            QFileDialog::getOpenFileNames(this, tr("Open results databases"), QFileInfo(m_db->text()).path(),
                                          tr("Results (*.db *.sqlite);;All files (*)"));
        for (const auto& f : files)
            openResults(f);
    });
    auto* openCluster = new QPushButton(tr("Open cluster run…"), this);
    openCluster->setToolTip(tr("Watch a Slurm run folder (ascviz-cli slurm submit): per-shard progress, live"));
    connect(openCluster, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a Slurm run folder"));
        QString err;
        if (!dir.isEmpty() && !openClusterRun(dir, &err))
            setStatus(err, true);
    });
    m_show = new QComboBox(this);
    m_show->setMinimumContentsLength(24);
    m_show->setToolTip(tr("The results shown in the statistics and snippet tables"));
    connect(m_show, &QComboBox::currentIndexChanged, this, [this](int) { refreshViews(); });
    auto* remove = new QPushButton(tr("Close"), this);
    connect(remove, &QPushButton::clicked, this, [this] { removeResults(currentSet()); });
    auto* exportChart = new QPushButton(tr("Export chart SVG/PDF…"), this);
    exportChart->setObjectName(QStringLiteral("exportChart"));
    connect(exportChart, &QPushButton::clicked, this, [this] {
        // The chart of the tab shown; a tab without one (Statistics, Compare, Snippets, Galeras) exports nothing
        // (issue 54: the Galeras tab's Export chart silently wrote the categories chart). The button is disabled
        // there too.
        QWidget* shown = m_resultTabs->currentWidget();
        if (shown != m_categoryView && shown != m_distributionView) {
            setStatus(tr("This tab has no chart: Export chart writes the Categories chart or the Distribution tab's "
                         "chart."),
                      true);
            return;
        }
        QChartView* view = shown == m_distributionView ? m_distributionView : m_categoryView;
        FigureOptionsDialog options(this);
        options.setOptions(savedFigureExportOptions());
        if (options.exec() != QDialog::Accepted)
            return;
        saveFigureExportOptions(options.options());
        setFigureOptions(options.options());
        const QString f =
            QFileDialog::getSaveFileName(this, tr("Export chart"), QString(), tr("SVG (*.svg);;PDF (*.pdf)"));
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
    resBar->addWidget(openCluster);
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
    m_statsLanguage = new QComboBox(statsPage);
    m_statsLanguage->setToolTip(tr("Statistics of every snippet, or of one language's snippets under its own table"));
    filterRow->addWidget(m_statsLanguage);
    m_filter = new QLineEdit(statsPage);
    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    filterRow->addWidget(m_kinds);
    filterRow->addWidget(m_filter, 1);
    m_statsModel = new StatsTableModel(this);
    m_statsProxy = new StatsFilterProxy(this);
    m_statsProxy->setSourceModel(m_statsModel);
    m_statsView = makeResultTable(statsPage);
    m_statsView->setModel(m_statsProxy);
    m_statsView->sortByColumn(StatsTableModel::Median, Qt::DescendingOrder);
    connect(m_kinds, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_statsProxy->setKinds(static_cast<StatsFilterProxy::Kinds>(i)); });
    connect(m_filter, &QLineEdit::textChanged, m_statsProxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_statsLanguage, &QComboBox::currentIndexChanged, this, [this](int) {
        m_statsModel->setLanguage(m_statsLanguage->currentData().toString());
        m_statsView->resizeColumnsToContents();
    });
    statsLayout->addLayout(filterRow);
    statsLayout->addWidget(m_statsView);
    m_flagLegend = new QLabel(statsPage);
    m_flagLegend->setWordWrap(true);
    statsLayout->addWidget(m_flagLegend);
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
    m_compareView = makeResultTable(m_resultTabs);
    m_compareView->setModel(m_compareProxy);
    m_compareView->setSortingEnabled(false); // keep Table I's order: global, categories, concepts
    m_compareView->horizontalHeader()->setStretchLastSection(false);
    m_resultTabs->addTab(m_compareView, tr("Compare models"));
    // snippets
    m_snippetModel = new SnippetTableModel(this);
    m_snippetProxy = new QSortFilterProxyModel(this);
    m_snippetProxy->setSourceModel(m_snippetModel);
    m_snippetProxy->setSortRole(Qt::UserRole);
    m_snippetView = makeResultTable(m_resultTabs);
    m_snippetView->setModel(m_snippetProxy);
    m_snippetView->sortByColumn(SnippetTableModel::Index, Qt::AscendingOrder);
    m_snippetView->setToolTip(tr("Click a snippet to open it in the Interactive tab"));
    connect(m_snippetView, &QTableView::clicked, this,
            [this](const QModelIndex& i) { openSnippet(m_snippetProxy->mapToSource(i).row()); });
    m_resultTabs->addTab(m_snippetView, tr("Snippets"));
    // Galeras (docs/galeras.md): prompt treatments, generation runs and their effects, with the same model.
    m_galeras = new GalerasRunPanel(m_run, m_resultTabs);
    m_resultTabs->addTab(m_galeras, tr("Galeras"));
    const auto chartShown = [this, exportChart] {
        QWidget* w = m_resultTabs->currentWidget();
        exportChart->setEnabled(w == m_categoryView || w == m_distributionView);
    };
    connect(m_resultTabs, &QTabWidget::currentChanged, this, chartShown);
    chartShown();

    auto* top = new QVBoxLayout(this);
    top->addWidget(runBox);
    top->addLayout(resBar);
    m_compareWarning = new QLabel(this);
    m_compareWarning->setWordWrap(true);
    m_compareWarning->setStyleSheet(QStringLiteral("color:#8a5a00"));
    m_compareWarning->hide();
    top->addWidget(m_compareWarning);
    top->addWidget(m_resultTabs, 1);

    m_corpus->setText(sampleCorpusFor(language()));
    m_model->setText(safe([] { return defaultModelDir(); }));
    m_db->setText(suggestDbPath());
    refreshViews();
}

} // namespace ascviz::ui
