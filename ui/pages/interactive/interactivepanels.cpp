#include "pages/interactive/generationbox.h"
#include "pages/interactive/interactivepage.h"
#include "views/prompteditor.h"

#include "common/languages.h"
#include "common/textpos.h"
#include "pages/interactive/interactiveengine.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/astview.h"
#include "views/detailspanel.h"
#include "views/legendwidget.h"
#include "views/sequenceview.h"
#include "views/syntaxhighlighter.h"

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
#include <QProgressBar>
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

QLabel* sectionTitle(const QString& text)
{
    auto* l = new QLabel(QStringLiteral("<b>%1</b>").arg(text));
    l->setContentsMargins(2, 4, 2, 0);
    return l;
}

} // namespace

QWidget* InteractivePage::buildControls()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(0, 0, 4, 0);

    auto* head = new QHBoxLayout();
    head->addWidget(sectionTitle(tr("Prompt")));
    head->addStretch(1);
    m_languageBox = new QComboBox(w);
    fillLanguageBox(m_languageBox);
    m_languageBox->setToolTip(tr("The language the code is parsed as (its grammar, categories and highlighting)"));
    head->addWidget(m_languageBox);
    auto* openFile = new QToolButton(w);
    openFile->setText(tr("Open…"));
    openFile->setToolTip(tr("Put a source file in the editor (its extension chooses the language)"));
    connect(openFile, &QToolButton::clicked, this, [this] {
        const QString patterns = extensionPatterns();
        const QString f = QFileDialog::getOpenFileName(
            this, tr("Open a source file"), QString(),
            (patterns.isEmpty() ? QString() : tr("Source files (%1);;").arg(patterns)) + tr("All files (*)"));
        QString error;
        if (!f.isEmpty() && !openPromptFile(f, &error))
            Q_EMIT errorOccurred(error);
    });
    head->addWidget(openFile);
    v->addLayout(head);
    m_editor = new PromptEditor(w);
    // Bounded work (docs/limits.md): pastes and drops within the editor's file limit; a dropped file is opened.
    m_editor->setMaxBytes(kMaxEditorFileBytes);
    connect(m_editor, &PromptEditor::textRefused, this, &InteractivePage::errorOccurred);
    connect(m_editor, &PromptEditor::fileDropped, this, [this](const QString& path) {
        QString error;
        if (!openPromptFile(path, &error))
            Q_EMIT errorOccurred(error);
    });
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSizeF(std::max(10.0, mono.pointSizeF()));
    m_editor->setFont(mono);
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_editor->setTabStopDistance(4 * QFontMetricsF(mono).horizontalAdvance(QLatin1Char(' ')));
    m_highlighter = new SyntaxHighlighter(m_editor->document());
    connect(m_languageBox, &QComboBox::currentIndexChanged, this, [this](int) { applyLanguage(); });
    v->addWidget(m_editor, 1);

    m_generation = new GenerationBox(w);
    v->addWidget(m_generation);

    auto* ev = new QGroupBox(tr("Evaluation"), w);
    auto* evForm = new QFormLayout(ev);
    m_aggregation = new QComboBox(ev);
    for (Aggregation a : {Aggregation::Median, Aggregation::Mean, Aggregation::Max, Aggregation::Min})
        m_aggregation->addItem(toQString(toString(a)), int(a));
    m_aggregation->setToolTip(tr("θ: how a node's aligned token NtPs become its AsC-Eval"));
    connect(m_aggregation, &QComboBox::currentIndexChanged, this,
            [this](int) { m_engine->setAggregation(Aggregation(m_aggregation->currentData().toInt())); });
    evForm->addRow(tr("Aggregation θ"), m_aggregation);
    m_scope = new QComboBox(ev);
    m_scope->addItem(tr("tokens"), int(AggregationScope::Tokens));
    m_scope->addItem(tr("children"), int(AggregationScope::Children));
    m_scope->setToolTip(tr("θ's scope: over a node's own tokens (the paper's text), or over its children's values "
                           "bottom-up (the paper's Fig. 2-C)"));
    connect(m_scope, &QComboBox::currentIndexChanged, this,
            [this](int) { m_engine->setAggregationScope(AggregationScope(m_scope->currentData().toInt())); });
    evForm->addRow(tr("θ over"), m_scope);
    auto* catRow = new QHBoxLayout();
    m_categoryLabel = new QLineEdit(ev);
    m_categoryLabel->setReadOnly(true);
    auto* catChoose = new QToolButton(ev);
    catChoose->setText(tr("…"));
    catChoose->setToolTip(tr("Choose a category file (JSON)"));
    auto* catReset = new QToolButton(ev);
    catReset->setText(tr("Bundled"));
    catReset->setToolTip(tr("Use the bundled categories of the chosen language"));
    connect(catChoose, &QToolButton::clicked, this, &InteractivePage::chooseCategoryFile);
    connect(catReset, &QToolButton::clicked, this, &InteractivePage::resetCategoryFile);
    catRow->addWidget(m_categoryLabel, 1);
    catRow->addWidget(catChoose);
    catRow->addWidget(catReset);
    evForm->addRow(tr("Categories"), catRow);
    v->addWidget(ev);
    setCategoryLabel();

    // The status line, the progress bar and notices come and go above the buttons: the editor above them (the only
    // stretching item) gives way, so Generate, Stop and Score stay where the mouse is (issue 54: Score moved from
    // y 882 to 869 to 796 as they appeared below it).
    m_status = new QLabel(w);
    m_status->setWordWrap(true);
    m_status->setStyleSheet(QStringLiteral("color:#555"));
    v->addWidget(m_status);
    m_progress = new QProgressBar(w);
    m_progress->setTextVisible(true);
    m_progress->hide();
    v->addWidget(m_progress);
    m_notice = new QLabel(w);
    m_notice->setWordWrap(true);
    m_notice->setTextFormat(Qt::PlainText);
    m_notice->setStyleSheet(
        QStringLiteral("background:#fff3cd; color:#664d03; border:1px solid #e0c36c; border-radius:3px; padding:4px"));
    m_notice->hide();
    v->addWidget(m_notice);
    auto* buttons = new QHBoxLayout();
    m_generate = new QPushButton(tr("Generate"), w);
    m_generate->setDefault(true);
    m_generate->setToolTip(tr("Complete the prompt with the model (Ctrl+Return)"));
    m_generate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_stop = new QPushButton(tr("Stop"), w);
    m_stop->setToolTip(tr("Stop the generation (what was generated so far is evaluated) or the scoring"));
    m_score = new QPushButton(tr("Score"), w);
    m_score->setToolTip(tr("Evaluate the editor's code as it is, without generating"));
    connect(m_generate, &QPushButton::clicked, this, &InteractivePage::generate);
    connect(m_stop, &QPushButton::clicked, this, &InteractivePage::stop);
    connect(m_score, &QPushButton::clicked, this, &InteractivePage::score);
    buttons->addWidget(m_generate);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_score);
    v->addLayout(buttons);
    m_editCompletion = new QPushButton(tr("Edit completion"), w);
    m_editCompletion->setToolTip(tr("Put the generated completion in the editor to change it; Score then re-scores "
                                    "it, keeping the prompt boundary"));
    m_editCompletion->setEnabled(false);
    connect(m_editCompletion, &QPushButton::clicked, this, &InteractivePage::editCompletion);
    v->addWidget(m_editCompletion);
    return w;
}

QWidget* InteractivePage::buildAstPage(AstView* view)
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
    auto* fit = button(tr("Fit"), tr("Fit the tree in the view (deep levels are folded first when the labels "
                                     "would be too small to read)"));
    auto* toSelection = button(tr("Selection"), tr("Zoom to the selected node and its subtree"));
    auto* expand = button(tr("Expand all"), tr("Unfold every folded subtree (double-click a node to fold it)"));
    auto* code = button(tr("Code"), tr("Show each node's code text"));
    code->setCheckable(true);
    connect(toSelection, &QToolButton::clicked, view, &AstView::zoomToSelection);
    connect(view, &AstView::exportSubtreeRequested, this, [this, view](int node) {
        exportSubtree(view->kind() == ascviz::AstView::Partial ? View::Partial : View::Complete, node);
    });
    connect(expand, &QToolButton::clicked, view, &AstView::expandAll);
    connect(code, &QToolButton::toggled, view, &AstView::setShowCode);
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
    bar->addWidget(toSelection);
    bar->addWidget(expand);
    bar->addWidget(code);
    bar->addStretch(1);
    auto* hint = new QLabel(tr("drag to pan · click a node to see its tokens · double-click folds it"), page);
    hint->setStyleSheet(QStringLiteral("color:#777"));
    bar->addWidget(hint);
    v->addLayout(bar);
    // The path root → the selected node; a click on a step selects that node.
    auto* crumbs = new QLabel(page);
    crumbs->setObjectName(QStringLiteral("astBreadcrumb"));
    crumbs->setTextFormat(Qt::RichText);
    crumbs->setContentsMargins(4, 0, 4, 0);
    connect(view, &AstView::breadcrumbChanged, crumbs, &QLabel::setText);
    connect(crumbs, &QLabel::linkActivated, this, [this, view](const QString& link) {
        const int node = link.mid(1).toInt();
        selectNode(node);
        view->centerOnNode(node);
    });
    v->addWidget(crumbs);
    v->addWidget(view, 1);
    return page;
}

QWidget* InteractivePage::buildViews()
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
    connect(m_views, &QTabWidget::currentChanged, this,
            [this](int i) { m_legend->setMode(i == 0 ? LegendWidget::Mode::Sequence : LegendWidget::Mode::Ast); });
    updateSummary();
    return w;
}

} // namespace ascviz::ui
