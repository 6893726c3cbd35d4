#include "mainwindow.h"

#include "helpmenu.h"

#include "common/analysis.h"
#include "common/figureoptions.h"
#include "common/loadchoices.h"
#include "common/textpos.h"
#include "pages/page.h"
#include "pages/registry.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"
#include "services/resultstore.h"

#include "ascviz/base/hfcache.h"
#include "ascviz/base/resources.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ascviz::ui {

namespace {
const char* const kRecentKey = "models/recent";
constexpr int kMaxRecent = 8;

QString defaultModelPath()
{
    try {
        return toQString(defaultModelDir().string());
    } catch (const std::exception&) {
        return {};
    }
}
} // namespace

MessageBanner::MessageBanner(QWidget* parent)
    : QWidget(parent), m_label(new QLabel(this)), m_open(new QPushButton(tr("Open model folder…"), this))
{
    setAutoFillBackground(true);
    setStyleSheet(QStringLiteral(
        "ascviz--ui--MessageBanner { background:#fdecea; border:1px solid #e0a0a0; border-radius:3px; }"));
    setAttribute(Qt::WA_StyledBackground);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setStyleSheet(QStringLiteral("color:#7a1010"));
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    auto* l = new QHBoxLayout(this);
    l->setContentsMargins(8, 4, 4, 4);
    l->addWidget(m_label, 1);
    l->addWidget(m_open);
    l->addWidget(close);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    connect(m_open, &QPushButton::clicked, this, &MessageBanner::openModelRequested);
    hide();
}

void MessageBanner::showMessage(const QString& text, bool offerOpenModel)
{
    m_label->setText(text);
    m_open->setVisible(offerOpenModel);
    m_aboutTheModel = offerOpenModel;
    show();
}

QString MessageBanner::text() const
{
    return m_label->text();
}

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_jobs(new JobTracker(this)), m_models(new ModelService(m_jobs, this)),
      m_results(new ResultStore(m_jobs, this))
{
    setWindowTitle(QStringLiteral("AsC-Viz"));
    auto* central = new QWidget(this);
    auto* v = new QVBoxLayout(central);
    v->setContentsMargins(6, 6, 6, 0);
    v->setSpacing(4);
    v->addWidget(buildModelPanel());
    m_banner = new MessageBanner(central);
    v->addWidget(m_banner);

    m_tabs = new QTabWidget(central);
    const PageServices services{m_models, m_results};
    for (const PageFactory& f : pageRegistry())
        addPage(f.make(services, m_tabs));
    for (Page* p : std::as_const(m_pages))
        p->attach(this);
    v->addWidget(m_tabs, 1);
    setCentralWidget(central);

    connect(m_banner, &MessageBanner::openModelRequested, this, &MainWindow::openModelFolder);

    connect(m_models, &ModelService::loadStarted, this, [this](const QString& dir) {
        m_loadTimer.start();
        m_progress->setValue(0);
        m_progress->setFormat(tr("Loading %1… %p%").arg(QFileInfo(dir).fileName()));
        m_progress->show();
        updateModelPanel();
    });
    connect(m_models, &ModelService::loadProgress, this, [this](double f) {
        m_progress->setValue(int(std::lround(f * 1000)));
        QString eta;
        if (f > 0.02 && f < 1.0) {
            const double remaining = double(m_loadTimer.elapsed()) / 1000.0 * (1.0 - f) / f;
            eta = tr(", about %1 s left").arg(int(std::ceil(remaining)));
        }
        m_progress->setFormat(tr("Loading %1… %p%%2").arg(QFileInfo(m_models->loadingDir()).fileName(), eta));
    });
    connect(m_models, &ModelService::modelLoaded, this, [this] {
        m_progress->hide();
        m_banner->hide();
        m_loadedWeights = m_loadOptions.weights;
        if (const auto info = m_models->modelInfo()) {
            rememberRecent(toQString(info->dir.string()));
            statusBar()->showMessage(tr("Loaded %1").arg(toQString(info->name)), 8000);
        }
        updateModelPanel();
        for (Page* p : std::as_const(m_pages))
            p->onModelChanged();
        if (m_hasPendingSnippet) {
            m_hasPendingSnippet = false;
            for (Page* p : std::as_const(m_pages))
                if (p->inspectCode(m_pendingSnippet))
                    break;
        }
    });
    connect(m_models, &ModelService::loadFailed, this, &MainWindow::onLoadFailed);

    buildMenus();
    updateModelPanel();
    resize(1400, 900);
    restoreWindowState();
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateTitle);
    updateTitle();
}

MainWindow::~MainWindow()
{
    // Pages first (they cancel their jobs), then the services they use; the tracker waits for the jobs.
    delete takeCentralWidget();
}

QWidget* MainWindow::buildModelPanel()
{
    auto* panel = new QWidget(this);
    auto* h = new QHBoxLayout(panel);
    h->setContentsMargins(2, 0, 2, 0);
    auto* title = new QLabel(tr("<b>Model</b>"), panel);
    m_modelLabel = new QLabel(panel);
    m_modelLabel->setTextFormat(Qt::RichText);
    m_modelLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress = new QProgressBar(panel);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(true);
    m_progress->setMinimumWidth(260);
    m_progress->hide();
    m_dtypeBox = new QComboBox(panel);
    addLoadOptionItems<Dtype>(m_dtypeBox, false);
    disableUnsupportedDtypes(m_dtypeBox);
    m_dtypeBox->setToolTip(tr("Compute precision. NtP follows the method in float32 (the default); half precision "
                              "is faster on a GPU and differs by up to ~1e-2 (README)."));
    connect(m_dtypeBox, &QComboBox::currentTextChanged, this, [this](const QString& dtype) {
        const auto info = m_models->modelInfo();
        if (!info || toQString(info->dtype) == dtype)
            return;
        LoadOptions o = m_loadOptions;
        o.dtype = currentLoadOption<Dtype>(m_dtypeBox);
        loadModel(toQString(info->dir.string()), o);
    });
    // Weights in memory (CPU): as LoadOptions::weights / the CLI's --weights.
    m_weightsBox = new QComboBox(panel);
    addLoadOptionItems<Weights>(m_weightsBox, true);
    m_weightsBox->setToolTip(tr("Weights in memory on the CPU. \"checkpoint\" keeps a bfloat16/float16 "
                                "checkpoint's weights in its type (half the memory; float32 arithmetic); \"auto\" "
                                "does so when a float32 copy would not fit in memory; \"float32\" always widens."));
    connect(m_weightsBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        const auto info = m_models->modelInfo();
        const Weights weights =
            ascviz::parseLoadOption<Weights>(toUtf8(m_weightsBox->itemData(index).toString())).value_or(Weights::Auto);
        if (!info || weights == m_loadOptions.weights)
            return;
        LoadOptions o = m_loadOptions;
        o.weights = weights;
        loadModel(toQString(info->dir.string()), o);
    });
    auto* open = new QPushButton(tr("Open model folder…"), panel);
    connect(open, &QPushButton::clicked, this, &MainWindow::openModelFolder);
    m_recentButton = new QToolButton(panel);
    m_recentButton->setText(tr("Recent"));
    m_recentButton->setPopupMode(QToolButton::InstantPopup);
    m_recentMenu = new QMenu(m_recentButton);
    m_recentButton->setMenu(m_recentMenu);
    h->addWidget(title);
    h->addWidget(m_modelLabel, 1);
    h->addWidget(m_progress);
    h->addWidget(new QLabel(tr("Precision"), panel));
    h->addWidget(m_dtypeBox);
    h->addWidget(new QLabel(tr("Weights"), panel));
    h->addWidget(m_weightsBox);
    h->addWidget(open);
    h->addWidget(m_recentButton);
    return panel;
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Open &model folder…"), QKeySequence(Qt::CTRL | Qt::Key_M), this, &MainWindow::openModelFolder);
    file->addAction(tr("Load the &bundled model"), this, [this] { loadModel(QStringLiteral("default")); });
    file->addMenu(m_recentMenu)->setText(tr("&Recent models"));
    m_hubMenu = file->addMenu(tr("&Hugging Face cache"));
    connect(m_hubMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildHubMenu);
    file->addSeparator();
    file->addAction(tr("&Open session…"), QKeySequence::Open, this, &MainWindow::openSession);
    m_recentFilesMenu = file->addMenu(tr("Open &Recent"));
    connect(m_recentFilesMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentFilesMenu);
    file->addAction(tr("&Save session…"), QKeySequence::Save, this, &MainWindow::saveSession);
    file->addSeparator();
    m_exportMenu = file->addMenu(tr("&Export"));
    const std::pair<ExportKind, QString> kinds[] = {
        {ExportKind::Svg, tr("Current view as &SVG…")}, {ExportKind::Png, tr("Current view as &PNG…")},
        {ExportKind::Json, tr("Result as &JSON…")},     {ExportKind::Csv, tr("Current table as &CSV…")},
        {ExportKind::Pdf, tr("Current view as P&DF…")}, {ExportKind::Html, tr("Result as interactive &HTML…")}};
    for (const auto& [kind, text] : kinds) {
        QAction* a = m_exportMenu->addAction(text, this, [this, k = kind] { exportCurrent(k); });
        m_exportActions.push_back({kind, a});
    }
    connect(m_exportMenu, &QMenu::aboutToShow, this, &MainWindow::updateExportActions);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    // Each page's own menu; its actions bring the page to the front.
    for (Page* page : std::as_const(m_pages)) {
        const QList<QAction*> actions = page->menuActions();
        if (actions.isEmpty())
            continue;
        QMenu* menu = menuBar()->addMenu(page->menuTitle());
        for (QAction* a : actions) {
            menu->addAction(a);
            connect(a, &QAction::triggered, this, [this, page] { m_tabs->setCurrentWidget(page->widget()); });
        }
    }
    addHelpMenu(menuBar(), this);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateExportActions);
    updateExportActions();
    rebuildRecentMenu();
    rebuildRecentFilesMenu();
}

void MainWindow::loadModel(const QString& dirOrDefault, const LoadOptions& optsIn)
{
    LoadOptions opts = optsIn;
    if (opts.dtype == Dtype::Auto)
        opts.dtype = currentLoadOption<Dtype>(m_dtypeBox);
    m_loadOptions = opts;
    {
        const QSignalBlocker block(m_dtypeBox);
        setCurrentLoadOption(m_dtypeBox, opts.dtype);
        const QSignalBlocker blockWeights(m_weightsBox);
        setCurrentLoadOption(m_weightsBox, opts.weights);
    }
    QString dir = dirOrDefault;
    if (dir == QLatin1String("default")) {
        dir = defaultModelPath();
        if (dir.isEmpty()) {
            showError(tr("The bundled model was not found (no resources folder). Open a model folder instead."));
            return;
        }
    } else if (!QFileInfo(dir).isDir() && looksLikeRepoId(toUtf8(dir))) {
        // ORG/NAME: a model in the local Hugging Face cache.
        try {
            dir = toQString(resolveModelDir(toUtf8(dir)).string());
        } catch (const std::exception& e) {
            showError(toQString(e.what()));
            return;
        }
    }
    m_models->loadModel(QDir::cleanPath(dir), opts);
}

void MainWindow::openModelFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a Hugging Face model folder"));
    if (!dir.isEmpty())
        loadModel(dir);
}

void MainWindow::onLoadFailed(const QString& dir, const QString& message)
{
    m_progress->hide();
    if (const auto info = m_models->modelInfo()) { // the precision shown is the loaded model's
        const QSignalBlocker block(m_dtypeBox);
        m_dtypeBox->setCurrentText(toQString(info->dtype));
        const QSignalBlocker blockWeights(m_weightsBox); // and its weights setting
        setCurrentLoadOption(m_weightsBox, m_loadedWeights);
        m_loadOptions.weights = m_loadedWeights;
    }
    QString text = tr("<b>Could not load the model</b> from <code>%1</code>: %2")
                       .arg(dir.toHtmlEscaped(), message.toHtmlEscaped());
    if (m_models->hasModel())
        text +=
            QStringLiteral("<br>") + tr("Still using %1.").arg(toQString(m_models->modelInfo()->name).toHtmlEscaped());
    else
        text += QStringLiteral("<br>") + tr("Choose a folder with config.json, the weights and tokenizer.json.");
    m_banner->showMessage(text, true);
    statusBar()->showMessage(tr("Loading the model failed"), 8000);
    m_hasPendingSnippet = false;
    updateModelPanel();
}

void MainWindow::updateModelPanel()
{
    const auto info = m_models->modelInfo();
    if (!info) {
        m_modelLabel->setText(m_models->isLoading() ? tr("<span style='color:#666'>loading…</span>")
                                                    : tr("<span style='color:#666'>none loaded</span>"));
        return;
    }
    QStringList parts;
    parts << QStringLiteral("<b>%1</b>").arg(toQString(info->name).toHtmlEscaped());
    parts << toQString(info->architecture).toHtmlEscaped();
    parts << tr("%1 parameters").arg(formatParameters(info->parameters));
    // Layers and context go in the tooltip: the panel's row also holds the precision and weights choices.
    QStringList more;
    if (info->layers > 0)
        more << tr("%1 layers").arg(info->layers);
    if (info->contextLength > 0)
        more << tr("context %1").arg(info->contextLength);
    parts << toQString(info->device).toHtmlEscaped();
    parts << toQString(info->dtype).toHtmlEscaped();
    if (!info->weights.empty() && info->weights != info->dtype)
        parts << tr("%1 weights").arg(toQString(info->weights).toHtmlEscaped());
    m_modelLabel->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
    more << toQString(info->dir.string());
    m_modelLabel->setToolTip(more.join(QStringLiteral("\n")));
}

QString MainWindow::modelText() const
{
    return m_modelLabel->text();
}
bool MainWindow::isBannerVisible() const
{
    return !m_banner->isHidden();
}
QString MainWindow::bannerText() const
{
    return m_banner->text();
}

QStringList MainWindow::recentModels() const
{
    return QSettings().value(QLatin1String(kRecentKey)).toStringList();
}

void MainWindow::rememberRecent(const QString& dir)
{
    pushRecent(QLatin1String(kRecentKey), dir, kMaxRecent);
    rebuildRecentMenu();
}

void MainWindow::rebuildHubMenu()
{
    m_hubMenu->clear();
    const std::filesystem::path cache = hfHubCacheDir();
    for (const CachedModel& m : listCachedModels(cache)) {
        const QString id = toQString(m.repoId);
        QAction* a = m_hubMenu->addAction(id);
        a->setToolTip(toQString(m.snapshot.string()));
        a->setStatusTip(toQString(m.snapshot.string()));
        connect(a, &QAction::triggered, this, [this, id] { loadModel(id); });
    }
    if (m_hubMenu->isEmpty()) {
        QAction* none = m_hubMenu->addAction(tr("No models in %1").arg(toQString(cache.string())));
        none->setEnabled(false);
    }
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList list = recentModels();
    for (const QString& dir : list) {
        QAction* a = m_recentMenu->addAction(QFileInfo(dir).fileName());
        a->setToolTip(dir);
        a->setStatusTip(dir);
        connect(a, &QAction::triggered, this, [this, dir] { loadModel(dir); });
    }
    if (list.isEmpty())
        m_recentMenu->addAction(tr("(none yet)"))->setEnabled(false);
    m_recentButton->setEnabled(!list.isEmpty());
}

void MainWindow::showError(const QString& message)
{
    m_banner->showMessage(message.toHtmlEscaped(), false);
}

void MainWindow::showStatus(const QString& message)
{
    statusBar()->showMessage(message, 8000);
}

void MainWindow::addPage(Page* page)
{
    m_pages << page;
    m_tabs->addTab(page->widget(), page->title());
}

Page* MainWindow::currentPage() const
{
    for (Page* p : m_pages)
        if (p->widget() == m_tabs->currentWidget())
            return p;
    return nullptr;
}

Page* MainWindow::sessionPage() const
{
    if (Page* cur = currentPage(); cur && cur->hasSession())
        return cur;
    for (Page* p : m_pages)
        if (p->hasSession())
            return p;
    return nullptr;
}

QAction* MainWindow::exportAction(ExportKind kind) const
{
    for (const auto& [k, a] : m_exportActions)
        if (k == kind)
            return a;
    return nullptr;
}

void MainWindow::updateExportActions()
{
    Page* page = currentPage();
    for (const auto& [kind, action] : std::as_const(m_exportActions))
        action->setEnabled(page && page->canExport(kind));
}

void MainWindow::openSession()
{
    Page* page = sessionPage();
    if (!page)
        return;
    const QString f = QFileDialog::getOpenFileName(this, tr("Open session"), QString(),
                                                   tr("AsC-Viz session (*.ascviz);;All files (*)"));
    if (f.isEmpty() || !confirmReplaceResult(page, f))
        return;
    QString error;
    if (!page->restoreSession(f, &error)) {
        showError(tr("Could not open the session: %1").arg(error));
    } else {
        m_tabs->setCurrentWidget(page->widget());
        documentChanged(f);
    }
}

bool MainWindow::saveSessionAs()
{
    Page* page = sessionPage();
    if (!page)
        return false;
    QString f = QFileDialog::getSaveFileName(this, tr("Save session"), QStringLiteral("session.ascviz"),
                                             tr("AsC-Viz session (*.ascviz)"));
    if (f.isEmpty())
        return false;
    if (!f.endsWith(QLatin1String(".ascviz")))
        f += QLatin1String(".ascviz");
    QString error;
    if (!page->saveSession(f, &error)) {
        showError(tr("Could not save the session: %1").arg(error));
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(f), 8000);
    documentChanged(f);
    return true;
}

void MainWindow::exportCurrent(ExportKind kind)
{
    Page* page = currentPage();
    if (!page || !page->canExport(kind)) {
        showError(tr("There is nothing to export here yet."));
        return;
    }
    if (page->exportsFigure(kind)) {
        FigureOptionsDialog options(this);
        options.setOptions(savedFigureExportOptions());
        if (options.exec() != QDialog::Accepted)
            return;
        saveFigureExportOptions(options.options());
        page->setFigureOptions(options.options());
    }
    const QString ext = exportKindName(kind);
    QString f = QFileDialog::getSaveFileName(this, tr("Export"), page->suggestedExportName(kind),
                                             tr("%1 (*.%2)").arg(ext.toUpper(), ext));
    if (f.isEmpty())
        return;
    QString error;
    if (!page->exportTo(kind, f, &error))
        showError(tr("Export failed: %1").arg(error));
    else
        statusBar()->showMessage(tr("Exported %1").arg(f), 8000);
}

void MainWindow::openSnippet(const QString& code, const QString& modelDir, const QString& language,
                             const QString& aggregation)
{
    // The first page that inspects code (the Interactive page) shows it.
    Page* target = nullptr;
    for (Page* p : std::as_const(m_pages))
        if (p->canInspectCode())
            target = target ? target : p;
    if (!target)
        return;
    m_tabs->setCurrentWidget(target->widget());
    target->setCodeLanguage(language);
    target->setCodeAggregation(aggregation);
    const auto info = m_models->modelInfo();
    const bool sameModel =
        modelDir.isEmpty() || (info && QFileInfo(toQString(info->dir.string())).canonicalFilePath() ==
                                           QFileInfo(modelDir).canonicalFilePath());
    if (sameModel && info) {
        target->inspectCode(code);
        return;
    }
    // Load the snippet's model first; score when it is in.
    target->setCode(code);
    m_pendingSnippet = code;
    m_hasPendingSnippet = true;
    loadModel(modelDir.isEmpty() ? QStringLiteral("default") : modelDir);
}

} // namespace ascviz::ui
