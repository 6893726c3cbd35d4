#include "interactivetab.h"

#include "astview.h"
#include "detailspanel.h"
#include "legendwidget.h"
#include "modelcontroller.h"
#include "pythonhighlighter.h"
#include "sequenceview.h"
#include "session.h"
#include "textpos.h"

#include "ascviz/eval/evaljson.h"
#include "ascviz/render/svg.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <fstream>

namespace ascviz::ui {

namespace {

bool writeBytes(const QString& path, const std::string& bytes, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error)
            *error = QObject::tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    if (f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size())) {
        if (error)
            *error = QObject::tr("failed writing %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

QLabel* sectionTitle(const QString& text)
{
    auto* l = new QLabel(QStringLiteral("<b>%1</b>").arg(text));
    l->setContentsMargins(2, 4, 2, 0);
    return l;
}

} // namespace

InteractiveTab::InteractiveTab(ModelController* controller, QWidget* parent) : QWidget(parent), m_controller(controller)
{
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    QWidget* controls = buildControls();
    QWidget* views = buildViews();
    m_details = new DetailsPanel(this);
    split->addWidget(controls);
    split->addWidget(views);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 6);
    split->setStretchFactor(2, 3);
    split->setSizes({380, 700, 320});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    connect(m_controller, &ModelController::jobStarted, this, &InteractiveTab::onJobStarted);
    connect(m_controller, &ModelController::tokenStreamed, this, &InteractiveTab::onToken);
    connect(m_controller, &ModelController::analysisReady, this, &InteractiveTab::onAnalysisReady);
    connect(m_controller, &ModelController::jobFailed, this, &InteractiveTab::onJobFailed);
    connect(m_controller, &ModelController::phaseChanged, this, &InteractiveTab::updateButtons);
    connect(m_controller, &ModelController::modelLoaded, this, &InteractiveTab::updateButtons);

    connect(m_sequence, &SequenceView::tokenClicked, this, [this](int t) { t < 0 ? clearSelection() : selectToken(t); });
    for (AstView* v : {m_partial, m_complete})
        connect(v, &AstView::nodeClicked, this, [this](int n) { n < 0 ? clearSelection() : selectNode(n); });
    connect(m_details, &DetailsPanel::nodeActivated, this, [this](int n) {
        selectNode(n);
        if (AstView* v = astView(currentView() == View::Complete ? ascviz::AstView::Complete : ascviz::AstView::Partial))
            v->centerOnNode(n);
    });
    connect(m_details, &DetailsPanel::tokenActivated, this, [this](int t) {
        selectToken(t);
        m_sequence->ensureHighlightVisible();
    });
    updateButtons();
}

QWidget* InteractiveTab::buildControls()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(0, 0, 4, 0);

    v->addWidget(sectionTitle(tr("Prompt")));
    m_editor = new QPlainTextEdit(w);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSizeF(std::max(10.0, mono.pointSizeF()));
    m_editor->setFont(mono);
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_editor->setTabStopDistance(4 * QFontMetricsF(mono).horizontalAdvance(QLatin1Char(' ')));
    m_editor->setPlaceholderText(tr("Type or paste Python code. Generate completes it; Score evaluates it as is."));
    new PythonHighlighter(m_editor->document());
    v->addWidget(m_editor, 1);

    auto* gen = new QGroupBox(tr("Generation"), w);
    auto* form = new QFormLayout(gen);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    m_maxTokens = new QSpinBox(gen);
    m_maxTokens->setRange(1, 4096);
    m_maxTokens->setValue(64);
    m_decoding = new QComboBox(gen);
    m_decoding->addItem(tr("Greedy"));
    m_decoding->addItem(tr("Sampling"));
    m_temperature = new QDoubleSpinBox(gen);
    m_temperature->setRange(0.05, 5.0);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(1.0);
    m_topP = new QDoubleSpinBox(gen);
    m_topP->setRange(0.01, 1.0);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(1.0);
    m_topK = new QSpinBox(gen);
    m_topK->setRange(0, 100000);
    m_topK->setSpecialValueText(tr("off"));
    m_seed = new QSpinBox(gen);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    form->addRow(tr("Max new tokens"), m_maxTokens);
    form->addRow(tr("Decoding"), m_decoding);
    form->addRow(tr("Temperature"), m_temperature);
    form->addRow(tr("Top-p"), m_topP);
    form->addRow(tr("Top-k"), m_topK);
    form->addRow(tr("Seed"), m_seed);
    v->addWidget(gen);
    auto syncSampling = [this] {
        const bool sampling = m_decoding->currentIndex() == 1;
        for (QWidget* x : std::initializer_list<QWidget*>{m_temperature, m_topP, m_topK, m_seed})
            x->setEnabled(sampling);
    };
    connect(m_decoding, &QComboBox::currentIndexChanged, this, syncSampling);
    syncSampling();

    auto* ev = new QGroupBox(tr("Evaluation"), w);
    auto* evForm = new QFormLayout(ev);
    m_aggregation = new QComboBox(ev);
    for (Aggregation a : {Aggregation::Median, Aggregation::Mean, Aggregation::Max, Aggregation::Min})
        m_aggregation->addItem(toQString(toString(a)), int(a));
    m_aggregation->setToolTip(tr("θ: how a node's aligned token NtPs become its AsC-Eval"));
    connect(m_aggregation, &QComboBox::currentIndexChanged, this,
            [this](int) { m_controller->setAggregation(Aggregation(m_aggregation->currentData().toInt())); });
    evForm->addRow(tr("Aggregation θ"), m_aggregation);
    auto* catRow = new QHBoxLayout();
    m_categoryLabel = new QLineEdit(ev);
    m_categoryLabel->setReadOnly(true);
    auto* catChoose = new QToolButton(ev);
    catChoose->setText(tr("…"));
    catChoose->setToolTip(tr("Choose a category file (JSON)"));
    auto* catReset = new QToolButton(ev);
    catReset->setText(tr("Bundled"));
    catReset->setToolTip(tr("Use the bundled Python categories"));
    connect(catChoose, &QToolButton::clicked, this, &InteractiveTab::chooseCategoryFile);
    connect(catReset, &QToolButton::clicked, this, &InteractiveTab::resetCategoryFile);
    catRow->addWidget(m_categoryLabel, 1);
    catRow->addWidget(catChoose);
    catRow->addWidget(catReset);
    evForm->addRow(tr("Categories"), catRow);
    v->addWidget(ev);
    setCategoryLabel();

    auto* buttons = new QHBoxLayout();
    m_generate = new QPushButton(tr("Generate"), w);
    m_generate->setDefault(true);
    m_generate->setToolTip(tr("Complete the prompt with the model (Ctrl+Return)"));
    m_generate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_stop = new QPushButton(tr("Stop"), w);
    m_stop->setToolTip(tr("Stop the generation; what was generated so far is evaluated"));
    m_score = new QPushButton(tr("Score"), w);
    m_score->setToolTip(tr("Evaluate the editor's code as it is, without generating"));
    connect(m_generate, &QPushButton::clicked, this, &InteractiveTab::generate);
    connect(m_stop, &QPushButton::clicked, this, &InteractiveTab::stop);
    connect(m_score, &QPushButton::clicked, this, &InteractiveTab::score);
    buttons->addWidget(m_generate);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_score);
    v->addLayout(buttons);
    m_status = new QLabel(w);
    m_status->setWordWrap(true);
    m_status->setStyleSheet(QStringLiteral("color:#555"));
    v->addWidget(m_status);
    return w;
}

QWidget* InteractiveTab::buildAstPage(AstView* view)
{
    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    auto* bar = new QHBoxLayout();
    auto button = [page](const QString& text, const QString& tip) {
        auto* b = new QToolButton(page);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    auto* zoomOut = button(QStringLiteral("−"), tr("Zoom out (Ctrl+wheel)"));
    auto* zoomIn = button(QStringLiteral("+"), tr("Zoom in (Ctrl+wheel)"));
    auto* fit = button(tr("Fit"), tr("Fit the tree in the view"));
    auto* one = button(tr("100%"), tr("Actual size"));
    auto* zoomLabel = new QLabel(page);
    zoomLabel->setMinimumWidth(48);
    connect(zoomOut, &QToolButton::clicked, view, &AstView::zoomOut);
    connect(zoomIn, &QToolButton::clicked, view, &AstView::zoomIn);
    connect(fit, &QToolButton::clicked, view, &AstView::zoomToFit);
    connect(one, &QToolButton::clicked, view, &AstView::resetZoom);
    connect(view, &AstView::zoomChanged, zoomLabel,
            [zoomLabel](double z) { zoomLabel->setText(QStringLiteral("%1%").arg(int(std::lround(z * 100)))); });
    bar->addWidget(zoomOut);
    bar->addWidget(zoomIn);
    bar->addWidget(fit);
    bar->addWidget(one);
    bar->addWidget(zoomLabel);
    bar->addStretch(1);
    auto* hint = new QLabel(tr("drag to pan · click a node to see its tokens"), page);
    hint->setStyleSheet(QStringLiteral("color:#777"));
    bar->addWidget(hint);
    v->addLayout(bar);
    v->addWidget(view, 1);
    return page;
}

QWidget* InteractiveTab::buildViews()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(4, 0, 4, 0);
    m_summary = new QLabel(w);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setContentsMargins(2, 4, 2, 2);
    v->addWidget(m_summary);

    m_views = new QTabWidget(w);
    m_views->setDocumentMode(true);
    m_sequence = new SequenceView(w);
    m_partial = new AstView(ascviz::AstView::Partial, w);
    m_complete = new AstView(ascviz::AstView::Complete, w);
    m_views->addTab(m_sequence, tr("Sequence"));
    m_views->addTab(buildAstPage(m_partial), tr("AST partial"));
    m_views->addTab(buildAstPage(m_complete), tr("AST complete"));
    m_views->setTabToolTip(0, tr("S1: tokens coloured by next-token probability"));
    m_views->setTabToolTip(1, tr("S2: non-terminal nodes coloured by AsC-Eval"));
    m_views->setTabToolTip(2, tr("S3: every node coloured by AsC-Eval"));
    v->addWidget(m_views, 1);
    m_legend = new LegendWidget(LegendWidget::Mode::Sequence, w);
    v->addWidget(m_legend);
    connect(m_views, &QTabWidget::currentChanged, this, [this](int i) {
        m_legend->setMode(i == 0 ? LegendWidget::Mode::Sequence : LegendWidget::Mode::Ast);
    });
    updateSummary();
    return w;
}

AstView* InteractiveTab::astView(ascviz::AstView v) const { return v == ascviz::AstView::Partial ? m_partial : m_complete; }

GenerationOptions InteractiveTab::generationOptions() const
{
    GenerationOptions g;
    g.maxNewTokens = m_maxTokens->value();
    g.greedy = m_decoding->currentIndex() == 0;
    g.temperature = m_temperature->value();
    g.topP = m_topP->value();
    g.topK = m_topK->value();
    g.seed = uint64_t(m_seed->value());
    return g;
}

void InteractiveTab::setGenerationOptions(const GenerationOptions& g)
{
    m_maxTokens->setValue(g.maxNewTokens);
    m_decoding->setCurrentIndex(g.greedy ? 0 : 1);
    m_temperature->setValue(g.temperature);
    m_topP->setValue(g.topP);
    m_topK->setValue(g.topK);
    m_seed->setValue(int(std::min<uint64_t>(g.seed, uint64_t(std::numeric_limits<int>::max()))));
}

void InteractiveTab::setPrompt(const QString& text) { m_editor->setPlainText(text); }
QString InteractiveTab::prompt() const { return m_editor->toPlainText(); }

InteractiveTab::View InteractiveTab::currentView() const { return View(m_views->currentIndex()); }
void InteractiveTab::showView(View v) { m_views->setCurrentIndex(int(v)); }

bool InteractiveTab::parseView(const QString& name, View* out)
{
    if (name == QLatin1String("sequence"))
        *out = View::Sequence;
    else if (name == QLatin1String("partial"))
        *out = View::Partial;
    else if (name == QLatin1String("complete"))
        *out = View::Complete;
    else
        return false;
    return true;
}

QString InteractiveTab::viewName(View v)
{
    switch (v) {
    case View::Sequence: return QStringLiteral("sequence");
    case View::Partial: return QStringLiteral("partial");
    case View::Complete: return QStringLiteral("complete");
    }
    return QStringLiteral("sequence");
}

void InteractiveTab::updateButtons()
{
    const auto phase = m_controller->phase();
    const bool running = phase == ModelController::Phase::Generating || phase == ModelController::Phase::Scoring;
    const bool model = m_controller->hasModel();
    m_generate->setEnabled(model && !running);
    m_score->setEnabled(model && !running);
    m_stop->setEnabled(phase == ModelController::Phase::Generating);
    switch (phase) {
    case ModelController::Phase::Generating:
        m_status->setText(tr("Generating… %n token(s)", nullptr, m_streamed));
        break;
    case ModelController::Phase::Scoring: m_status->setText(tr("Scoring…")); break;
    case ModelController::Phase::Analyzing: m_status->setText(tr("Parsing, aligning and laying out…")); break;
    case ModelController::Phase::Idle:
        if (!model)
            m_status->setText(m_controller->isLoading() ? tr("Waiting for the model to load…")
                                                        : tr("No model loaded: open a model folder."));
        else if (m_status->text().endsWith(QChar(0x2026)) || m_status->text().startsWith(tr("No model")) ||
                 m_status->text().startsWith(tr("Waiting")))
            m_status->clear();
        break;
    }
}

void InteractiveTab::generate()
{
    if (!m_controller->hasModel()) {
        Q_EMIT errorOccurred(tr("No model is loaded. Open a model folder first."));
        return;
    }
    m_controller->generate(prompt(), generationOptions());
}

void InteractiveTab::score()
{
    if (!m_controller->hasModel()) {
        Q_EMIT errorOccurred(tr("No model is loaded. Open a model folder first."));
        return;
    }
    if (prompt().isEmpty()) {
        Q_EMIT errorOccurred(tr("The editor is empty: there is nothing to score."));
        return;
    }
    m_controller->score(prompt());
}

void InteractiveTab::stop() { m_controller->stop(); }

void InteractiveTab::scoreCode(const QString& code)
{
    setPrompt(code);
    score();
}

void InteractiveTab::onJobStarted(quint64)
{
    m_streamed = 0;
    if (m_controller->phase() == ModelController::Phase::Generating) {
        clearSelection();
        m_sequence->beginStreaming(prompt());
        showView(View::Sequence);
    }
    updateButtons();
}

void InteractiveTab::onToken(quint64, const QString& piece, double, int index)
{
    m_streamed = index + 1;
    m_sequence->appendStreamed(piece);
    updateButtons();
}

void InteractiveTab::onJobFailed(quint64, const QString& message)
{
    m_status->setText(tr("Failed: %1").arg(message));
    if (m_shown)
        m_sequence->setAnalysis(m_shown); // leave streaming mode; the last result stays
    Q_EMIT errorOccurred(message);
    updateButtons();
}

void InteractiveTab::onAnalysisReady(quint64)
{
    const AnalysisPtr a = m_controller->current();
    const bool sameText = m_shown && a && m_shown->eval->scored.text == a->eval->scored.text;
    m_shown = a;
    if (!sameText) {
        m_selectedNode = -1;
        m_selectedToken = -1;
    }
    m_sequence->setAnalysis(a);
    m_partial->setAnalysis(a);
    m_complete->setAnalysis(a);
    applySelection();
    updateSummary();
    if (!m_pendingView.isEmpty()) {
        View v;
        if (parseView(m_pendingView, &v))
            showView(v);
        m_pendingView.clear();
    }
    QString status = resultStatus(*a);
    if (!a->layoutError.isEmpty())
        status += QLatin1Char(' ') + tr("AST layout failed: %1").arg(a->layoutError);
    m_status->setText(status);
    updateButtons();
    Q_EMIT statusMessage(status);
    Q_EMIT resultShown();
}

QString InteractiveTab::resultStatus(const Analysis& a)
{
    const int n = a.generatedTokens();
    if (a.origin != AnalysisOrigin::Generated)
        return tr("Scored %n token(s).", nullptr, int(a.eval->scored.tokens.size()));
    if (a.cancelled)
        return tr("Stopped after %n generated token(s).", nullptr, n);
    switch (a.eval->scored.stop) {
    case StopReason::Eos:
        if (n == 0)
            return tr("Nothing generated: the model's first choice was end-of-text (the prompt reads as finished). "
                      "Try sampling, or a prompt that ends mid-statement.");
        return tr("Generated %n token(s); the model then chose the end-of-text token.", nullptr, n);
    case StopReason::Context:
        return tr("Generated %n token(s); stopped because the model's context is full.", nullptr, n);
    case StopReason::Length:
        return tr("Generated %n token(s) (the maximum asked for).", nullptr, n);
    case StopReason::Cancelled:
        return tr("Stopped after %n generated token(s).", nullptr, n);
    case StopReason::None:
        break;
    }
    return tr("Generated %n token(s).", nullptr, n);
}

void InteractiveTab::updateSummary()
{
    if (!m_shown || !m_shown->eval) {
        m_summary->setText(tr("<span style='color:#666'>No result yet.</span>"));
        return;
    }
    const EvalResult& r = *m_shown->eval;
    const QColor c = ascQColor(r.features.ascEval);
    const double ce = r.scored.crossEntropy();
    const int generated = m_shown->generatedTokens();
    QString s = tr("AsC-Eval <span style='background-color:%1; color:%2'>&nbsp;%3&nbsp;</span>")
                    .arg(c.name(), textColorOn(c).name(), formatValue(r.features.ascEval));
    s += QStringLiteral(" &nbsp;·&nbsp; ") + tr("CE %1").arg(std::isnan(ce) ? QStringLiteral("n/a") : QString::number(ce, 'f', 3));
    s += QStringLiteral(" &nbsp;·&nbsp; ") + tr("%1 tokens (%2 generated)").arg(r.scored.tokens.size()).arg(generated);
    s += QStringLiteral(" &nbsp;·&nbsp; ") + tr("%1 AST nodes, %2 levels").arg(r.features.astNodes).arg(r.features.astLevels);
    s += QStringLiteral(" &nbsp;·&nbsp; θ = %1").arg(toQString(toString(r.aggregation)));
    if (!r.scored.model.empty())
        s += QStringLiteral(" &nbsp;·&nbsp; <i>%1</i>").arg(toQString(r.scored.model).toHtmlEscaped());
    m_summary->setText(s);
}

void InteractiveTab::selectNode(int node)
{
    if (!m_shown || node < 0 || std::size_t(node) >= m_shown->eval->tree.nodes().size()) {
        clearSelection();
        return;
    }
    m_selectedNode = node;
    m_selectedToken = -1;
    applySelection();
}

void InteractiveTab::selectToken(int token)
{
    if (!m_shown || token < 0 || std::size_t(token) >= m_shown->eval->scored.tokens.size()) {
        clearSelection();
        return;
    }
    m_selectedToken = token;
    m_selectedNode = -1;
    applySelection();
}

void InteractiveTab::clearSelection()
{
    m_selectedNode = -1;
    m_selectedToken = -1;
    applySelection();
}

void InteractiveTab::applySelection()
{
    if (!m_shown) {
        m_sequence->setHighlightedTokens({});
        m_partial->setHighlightedNodes({});
        m_complete->setHighlightedNodes({});
        m_details->showSummary(nullptr);
        return;
    }
    const EvalResult& r = *m_shown->eval;
    if (m_selectedNode >= 0) {
        const auto& toks = r.nodes[std::size_t(m_selectedNode)].tokens;
        m_sequence->setHighlightedTokens(QVector<int>(toks.begin(), toks.end()));
        m_partial->setHighlightedNodes({m_selectedNode});
        m_complete->setHighlightedNodes({m_selectedNode});
        m_details->showNode(m_shown, m_selectedNode);
    } else if (m_selectedToken >= 0) {
        m_sequence->setHighlightedTokens({m_selectedToken});
        const auto& nodes = r.nodesOfToken[std::size_t(m_selectedToken)];
        const QVector<int> ns(nodes.begin(), nodes.end());
        m_partial->setHighlightedNodes(ns);
        m_complete->setHighlightedNodes(ns);
        m_details->showToken(m_shown, m_selectedToken);
    } else {
        m_sequence->setHighlightedTokens({});
        m_partial->setHighlightedNodes({});
        m_complete->setHighlightedNodes({});
        m_details->showSummary(m_shown);
    }
}

void InteractiveTab::setCategoryLabel()
{
    const QString f = m_controller->categoryFile();
    m_categoryLabel->setText(f.isEmpty() ? tr("bundled (python)") : QFileInfo(f).fileName());
    m_categoryLabel->setToolTip(f.isEmpty() ? tr("The bundled Python category table") : f);
}

void InteractiveTab::chooseCategoryFile()
{
    const QString f = QFileDialog::getOpenFileName(this, tr("Category file"), QString(), tr("JSON (*.json);;All files (*)"));
    if (f.isEmpty())
        return;
    QString error;
    if (!m_controller->setCategoryFile(f, &error))
        Q_EMIT errorOccurred(tr("Could not use the category file: %1").arg(error));
    setCategoryLabel();
}

void InteractiveTab::resetCategoryFile()
{
    QString error;
    if (!m_controller->setCategoryFile(QString(), &error))
        Q_EMIT errorOccurred(error);
    setCategoryLabel();
}

bool InteractiveTab::exportSvg(const QString& path, View v, QString* error) const
{
    if (!m_shown) {
        if (error)
            *error = tr("There is no result to export yet.");
        return false;
    }
    try {
        const std::string svg = v == View::Sequence ? renderSequenceSvg(*m_shown->eval)
                                                    : renderAstSvg(*m_shown->eval, v == View::Partial ? ascviz::AstView::Partial
                                                                                                      : ascviz::AstView::Complete);
        return writeBytes(path, svg, error);
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

bool InteractiveTab::exportPng(const QString& path, View v, QString* error) const
{
    if (!m_shown) {
        if (error)
            *error = tr("There is no result to export yet.");
        return false;
    }
    const QImage img = v == View::Sequence ? m_sequence->renderImage(2.0)
                                           : astView(v == View::Partial ? ascviz::AstView::Partial : ascviz::AstView::Complete)->renderImage(2.0);
    if (img.isNull() || !img.save(path, "PNG")) {
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

bool InteractiveTab::exportJson(const QString& path, QString* error) const
{
    if (!m_shown) {
        if (error)
            *error = tr("There is no result to export yet.");
        return false;
    }
    const std::string text = evalResultJson(*m_shown->eval).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    return writeBytes(path, text, error);
}

bool InteractiveTab::saveSession(const QString& path, QString* error) const
{
    if (!m_shown) {
        if (error)
            *error = tr("There is no result to save yet.");
        return false;
    }
    SessionData s;
    s.prompt = m_shown->prompt;
    s.aggregation = m_shown->eval->aggregation;
    s.categoryFile = m_shown->categoryFile;
    s.generation = m_shown->generation;
    s.view = viewName(currentView());
    s.origin = m_shown->origin;
    s.cancelled = m_shown->cancelled;
    s.scored = m_shown->eval->scored;
    s.modelName = toQString(m_shown->eval->scored.model);
    if (const auto info = m_controller->modelInfo(); info && info->name == m_shown->eval->scored.model) {
        s.modelDir = toQString(info->dir.string());
        s.architecture = toQString(info->architecture);
    }
    try {
        writeSessionFile(path, s);
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    return true;
}

bool InteractiveTab::openSession(const QString& path, QString* error)
{
    SessionData s;
    try {
        s = readSessionFile(path);
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    setPrompt(s.prompt);
    setGenerationOptions(s.generation);
    QString catError;
    if (!m_controller->setCategoryFile(s.categoryFile, &catError)) {
        m_controller->setCategoryFile(QString());
        Q_EMIT errorOccurred(tr("The session's category file could not be used (%1); the bundled table is used instead.")
                                 .arg(catError));
    }
    setCategoryLabel();
    {
        const QSignalBlocker block(m_aggregation);
        m_aggregation->setCurrentIndex(m_aggregation->findData(int(s.aggregation)));
    }
    m_controller->setAggregation(s.aggregation);
    m_pendingView = s.view;
    m_controller->analyze(std::move(s.scored), s.origin, s.prompt, s.generation, s.cancelled);
    return true;
}

} // namespace ascviz::ui
