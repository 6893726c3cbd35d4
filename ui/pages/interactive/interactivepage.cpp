#include "pages/interactive/interactivepage.h"

#include "common/languages.h"
#include "common/textpos.h"
#include "pages/interactive/generationbox.h"
#include "pages/interactive/insidepanel.h"
#include "pages/interactive/interactiveengine.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/astview.h"
#include "views/detailspanel.h"
#include "views/legendwidget.h"
#include "views/prompteditor.h"
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

InteractivePage::InteractivePage(ModelService* models, ResultStore* results, QWidget* parent)
    : QWidget(parent), m_state(new InteractiveState(this)), m_engine(new InteractiveEngine(models, this)),
      m_results(results)
{
    // The page draws first, then the page's own signals go to whoever follows it (the Inside panel and the
    // Experts view follow m_state, connected after these).
    connect(m_state, &InteractiveState::selectionChanged, this, &InteractivePage::drawSelection);
    connect(m_state, &InteractiveState::selectionChanged, this, &InteractivePage::selectionChanged);
    connect(m_state, &InteractiveState::displayedChanged, this, &InteractivePage::drawDisplayed);
    connect(m_state, &InteractiveState::resultShown, this, &InteractivePage::resultShown);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    QWidget* controls = buildControls();
    QWidget* views = buildViews();
    m_details = new DetailsPanel(this);
    split->addWidget(controls);
    split->addWidget(views);
    auto* right = new QTabWidget(this); // the details, and inside the model (layer lens, attribution)
    right->addTab(m_details, tr("Details"));
    right->addTab(new InsidePanel(this, models, right), tr("Inside")); // through ResultCanvas
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 6);
    split->setStretchFactor(2, 3);
    split->setSizes({380, 700, 320});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    linkEditor();
    connect(m_engine, &InteractiveEngine::jobStarted, this, &InteractivePage::onJobStarted);
    connect(m_engine, &InteractiveEngine::tokenStreamed, this, &InteractivePage::onToken);
    connect(m_engine, &InteractiveEngine::analysisReady, this, &InteractivePage::onAnalysisReady);
    connect(m_engine, &InteractiveEngine::jobFailed, this, &InteractivePage::onJobFailed);
    connect(m_engine, &InteractiveEngine::scoringProgress, this, &InteractivePage::onScoringProgress);
    connect(m_engine, &InteractiveEngine::scoringStopped, this, &InteractivePage::onScoringStopped);
    connect(m_engine, &InteractiveEngine::phaseChanged, this, &InteractivePage::updateButtons);
    connect(models, &ModelService::modelLoaded, this, &InteractivePage::updateButtons);
    connect(models, &ModelService::modelLoaded, this, &InteractivePage::updateNotice);
    connect(models, &ModelService::loadStarted, this, &InteractivePage::updateButtons);
    connect(models, &ModelService::loadFailed, this, &InteractivePage::updateButtons);

    connect(m_sequence, &SequenceView::tokenClicked, this,
            [this](int t) { t < 0 ? clearSelection() : selectToken(t); });
    for (AstView* v : {m_partial, m_complete})
        connect(v, &AstView::nodeClicked, this, [this](int n) { n < 0 ? clearSelection() : selectNode(n); });
    connect(m_details, &DetailsPanel::nodeActivated, this, [this](int n) {
        selectNode(n);
        if (AstView* v =
                astView(currentView() == View::Complete ? ascviz::AstView::Complete : ascviz::AstView::Partial))
            v->centerOnNode(n);
    });
    connect(m_details, &DetailsPanel::tokenActivated, this, [this](int t) {
        selectToken(t);
        m_sequence->ensureHighlightVisible();
    });
    applyLanguage();
    updateButtons();
}

AstView* InteractivePage::astView(ascviz::AstView v) const
{
    return v == ascviz::AstView::Partial ? m_partial : m_complete;
}

QSpinBox* InteractivePage::maxNewTokensBox() const
{
    return m_generation->maxNewTokensBox();
}

QComboBox* InteractivePage::decodingBox() const
{
    return m_generation->decodingBox();
}

GenerationOptions InteractivePage::generationOptions() const
{
    return m_generation->options();
}

void InteractivePage::setGenerationOptions(const GenerationOptions& g)
{
    m_generation->setOptions(g);
}

bool InteractivePage::setPrompt(const QString& text)
{
    // Bounded work (docs/limits.md): the editor's limit for any text put there (a session, --prompt-file).
    const qint64 bytes = text.toUtf8().size();
    if (bytes > kMaxEditorFileBytes) {
        Q_EMIT errorOccurred(PromptEditor::refusal(bytes, kMaxEditorFileBytes));
        return false;
    }
    m_link.boundary.reset(); // a new text: no completion being edited
    m_link.settingText = true;
    m_editor->setPlainText(text);
    m_link.settingText = false;
    return true;
}

QPlainTextEdit* InteractivePage::editor() const
{
    return m_editor;
}
QString InteractivePage::prompt() const
{
    return m_editor->toPlainText();
}

InteractivePage::View InteractivePage::currentView() const
{
    return View(m_views->currentIndex());
}
void InteractivePage::showView(View v)
{
    m_views->setCurrentIndex(int(v));
}

void InteractivePage::setAggregation(Aggregation a)
{
    m_aggregation->setCurrentIndex(m_aggregation->findData(int(a)));
}

void InteractivePage::watchResults(QObject* context, std::function<void()> shown,
                                   std::function<void(const QString&)> failed)
{
    connect(this, &InteractivePage::resultShown, context, std::move(shown));
    connect(m_engine, &InteractiveEngine::jobFailed, context,
            [failed = std::move(failed)](quint64, const QString& message) { failed(message); });
}

void InteractivePage::attach(PageHost* host)
{
    m_host = host;
    connect(this, &InteractivePage::errorOccurred, this, [host](const QString& m) { host->showError(m); });
    connect(this, &InteractivePage::statusMessage, this, [host](const QString& m) { host->showStatus(m); });
}

void InteractivePage::updateButtons()
{
    const auto phase = m_engine->phase();
    const bool running = phase == InteractiveEngine::Phase::Generating || phase == InteractiveEngine::Phase::Scoring;
    const bool model = m_engine->models()->hasModel();
    m_generate->setEnabled(model && !running);
    m_score->setEnabled(model && !running);
    m_editCompletion->setEnabled(!running && shown() && shown()->generatedTokens() > 0);
    if (!running)
        m_stopping = false;
    m_stop->setEnabled(running && !m_stopping);
    if (phase != InteractiveEngine::Phase::Scoring)
        m_progress->hide();
    switch (phase) {
    case InteractiveEngine::Phase::Generating:
        m_status->setText(m_stopping ? tr("Stopping… %n token(s) so far", nullptr, m_streamed)
                                     : tr("Generating… %n token(s)", nullptr, m_streamed));
        break;
    case InteractiveEngine::Phase::Scoring:
        // Scoring stops between windows: the window being scored finishes first (a few seconds on a long text).
        m_status->setText(m_stopping ? tr("Stopping… after the window being scored") : tr("Scoring…"));
        break;
    case InteractiveEngine::Phase::Analyzing:
        m_status->setText(tr("Parsing, aligning and laying out…"));
        break;
    case InteractiveEngine::Phase::Idle:
        if (!model)
            m_status->setText(m_engine->models()->isLoading() ? tr("Waiting for the model to load…")
                                                              : tr("No model loaded: open a model folder."));
        else if (m_status->text().endsWith(QChar(0x2026)) || m_status->text().startsWith(tr("No model")) ||
                 m_status->text().startsWith(tr("Waiting")))
            m_status->clear();
        break;
    }
}

void InteractivePage::generate()
{
    if (!m_engine->models()->hasModel()) {
        Q_EMIT errorOccurred(tr("No model is loaded. Open a model folder first."));
        return;
    }
    m_link.boundary.reset();
    m_engine->generate(prompt(), generationOptions());
}

void InteractivePage::score()
{
    if (!m_engine->models()->hasModel()) {
        Q_EMIT errorOccurred(tr("No model is loaded. Open a model folder first."));
        return;
    }
    if (prompt().isEmpty()) {
        Q_EMIT errorOccurred(tr("The editor is empty: there is nothing to score."));
        return;
    }
    if (const qint64 boundary = completionBoundary(); boundary >= 0)
        m_engine->scoreCompletion(prompt(), std::size_t(boundary));
    else
        m_engine->score(prompt());
}

void InteractivePage::stop()
{
    const auto phase = m_engine->phase();
    if (phase == InteractiveEngine::Phase::Generating || phase == InteractiveEngine::Phase::Scoring)
        m_stopping = true; // Stop greys out and the status says so until the job has stopped
    m_engine->stop();
    updateButtons();
}

void InteractivePage::scoreCode(const QString& code)
{
    setPrompt(code);
    score();
}

void InteractivePage::onJobStarted(quint64)
{
    m_streamed = 0;
    const auto phase = m_engine->phase();
    if (phase == InteractiveEngine::Phase::Generating || phase == InteractiveEngine::Phase::Scoring) {
        m_session.notes.clear(); // the next result is the loaded model's, not the session's
        m_session.checkAscEval = false;
    }
    if (phase == InteractiveEngine::Phase::Generating || phase == InteractiveEngine::Phase::Scoring) {
        m_stopping = false;
        // The summary line is of the result on screen until the new one is shown: say so.
        if (shown())
            m_summary->setText(phase == InteractiveEngine::Phase::Generating
                                   ? tr("<span style='color:#666'>Generating a new result…</span>")
                                   : tr("<span style='color:#666'>Scoring a new result…</span>"));
    }
    if (phase == InteractiveEngine::Phase::Generating) {
        clearSelection();
        // The details and the legend are of the result being made, not the one before (issue 54).
        m_details->showPending(tr("Generating… the new result's details appear when it is scored."));
        clearScale(); // an attribution's or a layer's scale belongs to the result before
        m_legend->setValueTitle({});
        m_sequence->beginStreaming(prompt());
        showView(View::Sequence);
    }
    updateButtons();
}

void InteractivePage::onToken(quint64, const QString& piece, double, int index)
{
    m_streamed = index + 1;
    m_sequence->appendStreamed(piece);
    updateButtons();
}

void InteractivePage::onScoringProgress(quint64, int done, int total)
{
    if (total <= 1)
        return; // one forward pass: nothing to show
    m_progress->setRange(0, total);
    m_progress->setValue(done);
    m_progress->setFormat(tr("%v of %m windows (%p%)"));
    m_progress->show();
    updateButtons();
}

void InteractivePage::onScoringStopped(quint64)
{
    m_progress->hide();
    m_status->setText(tr("Scoring stopped; the views keep the last result."));
    updateSummary();
    updateButtons();
}

void InteractivePage::onJobFailed(quint64, const QString& message)
{
    m_status->setText(tr("Failed: %1").arg(message));
    updateSummary();
    if (shown())
        m_sequence->setAnalysis(shown()); // leave streaming mode; the last result stays
    Q_EMIT errorOccurred(message);
    updateButtons();
}

void InteractivePage::onAnalysisReady(quint64)
{
    const AnalysisPtr a = m_engine->current();
    m_state->setResult(a); // the selection stays on the same text
    m_legend->setValueTitle({});
    m_document.resultUnsaved = !m_session.checkAscEval; // a session's own result is saved; any other is not
    m_link.codeColours.clear();                         // colours of the previous result
    m_sequence->setAnalysis(a);
    m_partial->setAnalysis(a);
    m_complete->setAnalysis(a);
    applySelection();
    updateSummary();
    if (m_results)
        m_results->setInteractiveResult(a);
    if (!m_session.pendingView.isEmpty()) {
        View v;
        if (parseResultView(m_session.pendingView, &v))
            showView(v);
        m_session.pendingView.clear();
    }
    if (m_session.checkAscEval) {
        m_session.checkAscEval = false;
        const std::optional<double> now = a->eval->features.ascEval;
        if (m_session.ascEval && (!now || std::abs(*now - *m_session.ascEval) > 1e-12 * std::abs(*m_session.ascEval)))
            m_session.notes << tr("AsC-Eval from the saved scores is %1, the session saved %2: the grammar, the "
                                  "category table or the text differs from the one it was saved with.")
                                   .arg(formatValue(now), formatValue(m_session.ascEval));
    }
    QString status = resultStatus(*a);
    if (!a->layoutError.isEmpty())
        status += QLatin1Char(' ') + tr("AST layout failed: %1").arg(a->layoutError);
    m_status->setText(status);
    updateNotice();
    updateButtons();
    if (m_host)
        m_host->documentChanged();
    Q_EMIT statusMessage(status);
    m_state->announceResult(); // resultShown
}

QString InteractivePage::resultStatus(const Analysis& a)
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

QString InteractivePage::modelNote(const Analysis& a) const
{
    if (!a.model)
        return {};
    const ModelInfo& by = *a.model;
    auto describe = [](const ModelInfo& m) {
        const QString s = toQString(m.name.empty() ? std::string("an unnamed model") : m.name);
        return m.dtype.empty() ? s : tr("%1 in %2").arg(s, toQString(m.dtype));
    };
    const auto now = m_engine->models()->modelInfo();
    if (!now)
        return tr("Scored with %1; no model is loaded. The numbers shown are those scores.").arg(describe(by));
    // The same weights in another folder are the same model: the fingerprint decides when both have one.
    const bool fingerprints = !by.fingerprint.empty() && !now->fingerprint.empty();
    const bool sameWeights = fingerprints ? by.fingerprint == now->fingerprint : by.name == now->name;
    const bool sameDtype = by.dtype.empty() || by.dtype == now->dtype;
    if (!sameWeights || !sameDtype) {
        // What differs, in words (no fingerprints in a message): the weights, the dtype, or both.
        QStringList differs;
        if (!sameWeights)
            differs << (by.name == now->name ? tr("other weights under the same name") : tr("another model"));
        if (!sameDtype)
            differs << tr("another dtype");
        return tr("The loaded model differs from the one that scored this result (%1): scored with %2, the loaded "
                  "model is %3. The numbers shown are those scores, not the loaded model's; Score re-scores with it.")
            .arg(differs.join(tr(" and ")), describe(by), describe(*now));
    }
    if (!fingerprints)
        return tr("This result does not record its model's fingerprint: the loaded model %1 cannot be checked to be "
                  "the one that scored it.")
            .arg(describe(*now));
    return {};
}

void InteractivePage::updateNotice()
{
    QStringList lines = m_session.notes;
    if (shown())
        if (const QString m = modelNote(*shown()); !m.isEmpty())
            lines << m;
    if (shown() && shown()->eval && shown()->eval->tree.language() != toUtf8(language())) {
        const LanguageInfo* was = findLanguage(toQString(shown()->eval->tree.language()));
        const LanguageInfo* now = findLanguage(language());
        const auto name = [](const LanguageInfo* l, const QString& id) { return l ? toQString(l->name) : id; };
        lines << tr("The result shown was evaluated as %1; the language chosen now is %2. Score evaluates the "
                    "editor's text as %2.")
                     .arg(name(was, toQString(shown()->eval->tree.language())), name(now, language()));
    }
    m_notice->setText(lines.join(QLatin1Char('\n')));
    m_notice->setVisible(!lines.isEmpty());
}

void InteractivePage::showDerived(AnalysisPtr derived, const QString& what)
{
    m_state->showDerived(std::move(derived), what); // drawDisplayed
}

void InteractivePage::drawDisplayed()
{
    m_legend->setValueTitle(m_state->derivedDescription());
    const AnalysisPtr a = displayed();
    m_sequence->setAnalysis(a);
    m_partial->setAnalysis(a);
    m_complete->setAnalysis(a);
    applySelection(); // the views dropped their highlight; the details show the derived values
    updateSummary();
}

void InteractivePage::setSpanColours(const QColor& rest, const std::vector<SpanColour>& spans, bool inEditor)
{
    m_sequence->setOverlay(rest, spans);
    if (inEditor)
        setCodeColours(spans);
}

void InteractivePage::clearSpanColours()
{
    setCodeColours({});
    m_sequence->clearOverlay();
}

void InteractivePage::paintNodes(const NodePaint& paint)
{
    for (AstView* view : {m_partial, m_complete})
        for (AstNodeItem* item : view->nodeItems()) {
            const NodeLook look = paint(item->node());
            item->setBrush(look.fill);
            item->setToolTip(look.tip);
            item->setValueText(look.value);
        }
}

void InteractivePage::highlightNodes(const QVector<int>& nodes)
{
    m_partial->setHighlightedNodes(nodes);
    m_complete->setHighlightedNodes(nodes);
}

void InteractivePage::redrawNodes()
{
    m_partial->setAnalysis(displayed());
    m_complete->setAnalysis(displayed());
}

void InteractivePage::setSignedScale(const QString& title, std::function<QColor(double)> color, double maxAbs,
                                     const QColor& none, const QString& noneLabel)
{
    m_legend->setSignedScale(title, std::move(color), maxAbs, none, noneLabel);
}

void InteractivePage::setRangeScale(const QString& title, std::function<QColor(double)> color, double lo, double hi,
                                    const QColor& none, const QString& noneLabel)
{
    m_legend->setRangeScale(title, std::move(color), lo, hi, none, noneLabel);
}

void InteractivePage::clearScale()
{
    m_legend->clearSignedScale();
}

void InteractivePage::updateSummary()
{
    const AnalysisPtr shown = displayed();
    if (!shown || !shown->eval) {
        m_summary->setText(tr("<span style='color:#666'>No result yet.</span>"));
        return;
    }
    const EvalResult& r = *shown->eval;
    const QColor c = ascQColor(r.features.ascEval);
    const double ce = r.scored.crossEntropy();
    const int generated = shown->generatedTokens();
    QString s = m_state->derived() ? tr("<b>%1</b> &nbsp;·&nbsp; ").arg(m_state->derivedDescription().toHtmlEscaped())
                                   : QString();
    s += tr("AsC-Eval <span style='background-color:%1; color:%2'>&nbsp;%3&nbsp;</span>")
             .arg(c.name(), textColorOn(c).name(), formatValue(r.features.ascEval));
    s += QStringLiteral(" &nbsp;·&nbsp; ") +
         tr("CE %1").arg(std::isnan(ce) ? QStringLiteral("n/a") : QString::number(ce, 'f', 3));
    s += QStringLiteral(" &nbsp;·&nbsp; ") + tr("%1 tokens (%2 generated)").arg(r.scored.tokens.size()).arg(generated);
    s += QStringLiteral(" &nbsp;·&nbsp; ") +
         tr("%1 AST nodes, %2 levels").arg(r.features.astNodes).arg(r.features.astLevels);
    s += QStringLiteral(" &nbsp;·&nbsp; θ = %1").arg(toQString(toString(r.aggregation)));
    if (r.scope != AggregationScope::Tokens)
        s += tr(" over children");
    if (!r.scored.model.empty())
        s += QStringLiteral(" &nbsp;·&nbsp; <i>%1</i>").arg(toQString(r.scored.model).toHtmlEscaped());
    m_summary->setText(s);
}

void InteractivePage::selectNode(int node)
{
    m_state->selectNode(node); // drawSelection
}

void InteractivePage::selectToken(int token)
{
    m_state->selectToken(token);
}

void InteractivePage::clearSelection()
{
    m_state->clearSelection();
}

void InteractivePage::applySelection()
{
    m_state->reselect(); // drawSelection, and selectionChanged to whoever follows the selection
}

void InteractivePage::drawSelection()
{
    const AnalysisPtr shown = displayed();
    if (!shown) {
        m_sequence->setHighlightedTokens({});
        m_partial->setHighlightedNodes({});
        m_complete->setHighlightedNodes({});
        m_details->showSummary(nullptr);
        m_editor->setExtraSelections({});
        return;
    }
    const EvalResult& r = *shown->eval;
    if (selectedNode() >= 0) {
        const auto& toks = r.nodes[std::size_t(selectedNode())].tokens;
        m_sequence->setHighlightedTokens(QVector<int>(toks.begin(), toks.end()));
        m_partial->setHighlightedNodes({selectedNode()});
        m_complete->setHighlightedNodes({selectedNode()});
        m_details->showNode(shown, selectedNode());
    } else if (selectedToken() >= 0) {
        m_sequence->setHighlightedTokens({selectedToken()});
        const auto& nodes = r.nodesOfToken[std::size_t(selectedToken())];
        const QVector<int> ns(nodes.begin(), nodes.end());
        m_partial->setHighlightedNodes(ns);
        m_complete->setHighlightedNodes(ns);
        m_details->showToken(shown, selectedToken());
    } else {
        m_sequence->setHighlightedTokens({});
        m_partial->setHighlightedNodes({});
        m_complete->setHighlightedNodes({});
        m_details->showSummary(shown);
    }
    showSelectionInEditor();
}

} // namespace ascviz::ui
