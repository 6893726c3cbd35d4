#include "pages/interactive/insidepanel.h"

#include "common/textpos.h"
#include "pages/interactive/commitcolours.h"
#include "pages/interactive/expertsview.h"
#include "pages/interactive/interactivestate.h"
#include "pages/interactive/resultcanvas.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"

#include "ascviz/base/error.h"
#include "ascviz/model/lens.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ascviz::ui {

QColor attributionColor(double s)
{
    s = std::clamp(s, -1.0, 1.0);
    // purple (94, 60, 153) above 0, orange (230, 97, 1) below, white at 0
    const QColor end = s >= 0 ? QColor(94, 60, 153) : QColor(230, 97, 1);
    const double t = std::abs(s);
    return QColor(int(std::lround(255 + (end.red() - 255) * t)), int(std::lround(255 + (end.green() - 255) * t)),
                  int(std::lround(255 + (end.blue() - 255) * t)));
}

QColor notAttributedColor()
{
    return QColor(235, 235, 235);
}

InsidePanel::InsidePanel(ResultCanvas* canvas, ModelService* models, QWidget* parent)
    : QWidget(parent), m_canvas(canvas), m_state(canvas->state()), m_models(models)
{
    auto* layout = new QVBoxLayout(this);
    auto* lensBox = new QGroupBox(tr("Layer lens"), this);
    auto* lf = new QFormLayout(lensBox);
    m_lensButton = new QPushButton(tr("Compute layers"), lensBox);
    m_lensButton->setToolTip(tr("NtP of every layer: the residual stream after each block through the final norm "
                                "and LM head (method.md §13)"));
    m_layer = new QSlider(Qt::Horizontal, lensBox);
    m_layer->setEnabled(false);
    m_layerLabel = new QLabel(tr("layer: —"), lensBox);
    m_colouring = new QComboBox(lensBox);
    m_colouring->addItem(tr("AsC-Eval at the slider's layer"));
    m_colouring->addItem(tr("Commitment layer"));
    m_colouring->setToolTip(tr("Commitment layer (method.md §14.3): the first layer from which the lens's top-1 "
                               "prediction equals the final one and stays so; per node the median of its tokens'"));
    m_colouring->setEnabled(false);
    lf->addRow(m_lensButton);
    lf->addRow(m_layerLabel, m_layer);
    lf->addRow(tr("Colour by"), m_colouring);
    layout->addWidget(lensBox);

    auto* attrBox = new QGroupBox(tr("Attribution to prompt nodes"), this);
    auto* af = new QFormLayout(attrBox);
    m_method = new QComboBox(attrBox);
    m_method->addItem(tr("Occlusion"), QStringLiteral("occlusion"));
    m_method->addItem(tr("Gradient × input"), QStringLiteral("gradxinput"));
    m_method->addItem(tr("Surrogate (Lasso on masks)"), QStringLiteral("surrogate"));
    m_faith = new QCheckBox(tr("Faithfulness"), attrBox);
    m_faith->setToolTip(tr("Deletion and insertion curves over the attributed nodes in attribution order (hide / "
                           "show the most relied-on first), their AUCs beside random orders' (method.md §14.2)"));
    m_target = new QLabel(attrBox);
    m_target->setWordWrap(true);
    m_attribute = new QPushButton(tr("Attribute selected node"), attrBox);
    m_attribute->setToolTip(tr("How much the selected completion node (none selected: the whole completion) relies "
                               "on each prompt node; purple helps, orange hurts"));
    af->addRow(tr("Method"), m_method);
    af->addRow(m_faith);
    af->addRow(m_target);
    af->addRow(m_attribute);
    // The attribution scale (not AsC-Eval's): orange below 0, white at 0, purple above, scaled by the largest |value|.
    auto* scale = new QLabel(attrBox);
    QString cells;
    for (const double v : {-1.0, -0.5, 0.0, 0.5, 1.0})
        cells += QStringLiteral("<td style=\"background:%1\">&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</td>")
                     .arg(attributionColor(v).name());
    scale->setText(QStringLiteral("<table cellspacing=0><tr><td>%1&nbsp;</td>%2<td>&nbsp;%3</td></tr></table>")
                       .arg(tr("hurts"), cells, tr("relied on")));
    scale->setToolTip(tr("Attribution, scaled by the largest |value| of the result"));
    af->addRow(tr("Scale"), scale);
    m_scaleNote = new QLabel(tr("signed, scaled by the largest |attribution|; grey: not attributed"), attrBox);
    m_scaleNote->setWordWrap(true);
    af->addRow(m_scaleNote);
    m_clear = new QPushButton(tr("Show AsC-Eval again"), attrBox);
    m_clear->setToolTip(tr("Take the attribution colours off the code and the AST views"));
    m_clear->setEnabled(false);
    af->addRow(m_clear);
    m_faithLabel = new QLabel(attrBox);
    m_faithLabel->setWordWrap(true);
    m_faithLabel->setVisible(false);
    af->addRow(m_faithLabel);
    m_top = new QListWidget(attrBox);
    m_top->setMaximumHeight(140);
    af->addRow(m_top);
    layout->addWidget(attrBox);
    m_experts = new ExpertsView(m_state, models, this);
    layout->addWidget(m_experts);

    m_progress = new QProgressBar(this);
    m_progress->setVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel);
    layout->addWidget(m_status);
    layout->addStretch(1);

    connect(m_lensButton, &QPushButton::clicked, this, &InsidePanel::computeLens);
    connect(m_attribute, &QPushButton::clicked, this, &InsidePanel::attributeSelection);
    connect(m_cancel, &QPushButton::clicked, this, &InsidePanel::cancel);
    connect(m_layer, &QSlider::valueChanged, this, &InsidePanel::showLayer);
    connect(m_clear, &QPushButton::clicked, this, &InsidePanel::clearAttribution);
    connect(m_colouring, &QComboBox::currentIndexChanged, this, &InsidePanel::setColouring);
    connect(m_state, &InteractiveState::selectionChanged, this, [this](int node, int) {
        showTarget();
        // Another node chosen: the colours were of the previous target's reliance; AsC-Eval again.
        if (m_showingAttribution && node >= 0 && m_attribution && m_attribution->targetNode != node)
            clearAttribution();
    });
    connect(m_state, &InteractiveState::resultShown, this, [this] { // the page coloured the new result itself
        m_showingAttribution = false;
        m_showingCommit = false;
        m_clear->setEnabled(false);
        m_canvas->clearScale();
        forgetResults();
        showTarget();
    });
    showTarget();
}

void InsidePanel::showTarget()
{
    const AnalysisPtr shown = m_state->shown();
    const int node = m_state->selectedNode(), token = m_state->selectedToken();
    if (!shown || !shown->eval) {
        m_target->setText(tr("Target: — (score or generate a text first)"));
        return;
    }
    const auto& nodes = shown->eval->tree.nodes();
    if (node >= 0 && std::size_t(node) < nodes.size()) {
        m_target->setText(tr("Target: node %1 (%2)").arg(node).arg(toQString(nodes[std::size_t(node)].type)));
        return;
    }
    m_target->setText(token >= 0 ? tr("Target: the whole completion (token %1 selected; select a node to attribute "
                                      "it alone)")
                                       .arg(token)
                                 : tr("Target: the whole completion"));
}

void InsidePanel::forgetResults()
{
    // The layers and the attribution were of the previous result (another text, θ or model): nothing of them
    // stays beside the new one; Compute layers / Attribute again.
    const bool had = m_lens || m_attribution;
    m_lens.reset();
    m_attribution.reset();
    m_layer->blockSignals(true);
    m_layer->setRange(0, 0);
    m_layer->setValue(0);
    m_layer->blockSignals(false);
    m_layer->setEnabled(false);
    m_layerLabel->setText(tr("layer: —"));
    m_colouring->blockSignals(true);
    m_colouring->setCurrentIndex(0);
    m_colouring->blockSignals(false);
    m_colouring->setEnabled(false);
    m_top->clear();
    m_faithLabel->clear();
    m_faithLabel->setVisible(false);
    m_scaleNote->setText(tr("signed, scaled by the largest |attribution|; grey: not attributed"));
    if (had && m_job == 0)
        m_status->setText(tr("A new result is shown: compute its layers or attribute it again."));
}

void InsidePanel::setBusy(bool busy)
{
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_lensButton->setEnabled(!busy);
    m_attribute->setEnabled(!busy);
    m_clear->setEnabled(!busy && m_showingAttribution);
    if (busy)
        m_progress->setRange(0, 0);
}

void InsidePanel::start(const QString& title, std::function<void(JobContext&)> work, std::function<void()> done)
{
    if (m_job != 0)
        return;
    if (!m_models->model()) {
        m_status->setText(tr("Load a model first."));
        return;
    }
    if (!m_state->shown()) {
        m_status->setText(tr("Score or generate a text first."));
        return;
    }
    setBusy(true);
    m_status->setText(title + QStringLiteral("…"));
    JobTracker::Callbacks cb;
    cb.finished = [this, done] {
        m_job = 0;
        setBusy(false);
        done();
        Q_EMIT jobDone(true);
    };
    cb.failed = [this](const QString& message) {
        m_job = 0;
        setBusy(false);
        m_status->setText(tr("Failed: %1").arg(message));
        Q_EMIT jobDone(false);
    };
    cb.progress = [this](double f, const QString& text) {
        if (f >= 0) {
            m_progress->setRange(0, 1000);
            m_progress->setValue(int(f * 1000));
        }
        if (!text.isEmpty())
            m_status->setText(text);
    };
    m_job = m_models->jobs()->start(title, QStringLiteral("inside"), std::move(work), this, cb);
}

void InsidePanel::cancel()
{
    if (m_job != 0)
        m_models->jobs()->cancel(m_job);
}

void InsidePanel::computeLens()
{
    const AnalysisPtr shown = m_state->shown();
    const auto model = m_models->model();
    auto out = std::make_shared<LensResult>();
    auto cancelled = std::make_shared<bool>(false);
    start(
        tr("Layer lens"),
        [shown, model, out, cancelled](JobContext& ctx) {
            if (!shown || !model)
                return;
            // The shown tokens' own ids (a generated text keeps the ids it was generated with, which re-encoding
            // its text need not give back), from BOS where the model scores from it.
            const auto& tokens = shown->eval->scored.tokens;
            std::vector<int32_t> ids;
            const auto& tok = model->tokenizer();
            const std::size_t prefix = tok.addsBos() && tok.bosId() ? 1 : 0;
            if (prefix)
                ids.push_back(*tok.bosId());
            for (const auto& t : tokens)
                ids.push_back(t.id);
            const IdLayerLens byPosition = layerLensOfIds(*model, ids);
            if (ctx.isCancelled()) {
                *cancelled = true;
                return;
            }
            std::vector<std::vector<double>> ntp;
            std::vector<std::optional<int>> commit; // method.md §14.3, per token
            for (std::size_t j = 0; j < tokens.size(); ++j) {
                ntp.push_back(byPosition.ntp[j + prefix]);
                commit.push_back(commitLayer(byPosition.top1[j + prefix]));
            }
            out->layers = model->info().layers;
            out->eval = evaluateLayers(*shown->eval, ntp, out->layers, commit);
            out->ntp = std::move(ntp);
            out->text = shown->eval->scored.text;
        },
        [this, out, cancelled] {
            if (*cancelled || out->layers == 0) {
                m_status->setText(tr("Layer lens cancelled."));
                return;
            }
            m_lens = out;
            m_layer->blockSignals(true);
            m_layer->setRange(0, out->layers);
            m_layer->setValue(out->layers);
            m_layer->blockSignals(false);
            m_layer->setEnabled(true);
            m_colouring->setEnabled(true);
            showLayer(out->layers);
            m_status->setText(tr("Layer lens: %1 layers. Move the slider to colour the views with AsC-Eval at that "
                                 "depth (0 = the embeddings).")
                                  .arg(out->layers));
        });
}

void InsidePanel::showLayer(int layer)
{
    const AnalysisPtr shown = m_state->shown();
    if (!m_lens || !shown || shown->eval->scored.text != m_lens->text)
        return;
    if (m_showingAttribution) // the slider recolours every view: the attribution's colours go
        clearAttribution();
    if (m_showingCommit) // and so do the commitment colours (the slider chooses AsC-Eval at a layer)
        stopCommitColouring();
    m_layerLabel->setText(layer == 0 ? tr("layer: embeddings") : tr("layer: %1 of %2").arg(layer).arg(m_lens->layers));
    if (layer == m_lens->layers) { // the final layer's values are the result's own
        m_state->showDerived(nullptr, {});
        return;
    }
    auto copy = std::make_shared<Analysis>(*shown);
    auto eval = std::make_shared<EvalResult>(*shown->eval);
    const auto l = static_cast<std::size_t>(layer);
    for (std::size_t k = 0; k < eval->nodes.size() && k < m_lens->eval.nodes.size(); ++k)
        eval->nodes[k].value = m_lens->eval.nodes[k][l];
    for (std::size_t i = 0; i < eval->scored.tokens.size() && i < m_lens->ntp.size(); ++i)
        eval->scored.tokens[i].ntp = m_lens->ntp[i].empty() ? std::nullopt : std::optional<double>(m_lens->ntp[i][l]);
    recomputeFeatures(*eval); // the summary's AsC-Eval and the details' per-category values at layer ℓ
    copy->eval = eval;
    if (shown->partial)
        copy->partial = std::make_shared<const GraphLayout>(relabelValues(*shown->partial, *eval));
    if (shown->complete)
        copy->complete = std::make_shared<const GraphLayout>(relabelValues(*shown->complete, *eval));
    // The views, the details, the summary line and the legend all show layer ℓ's values.
    m_state->showDerived(copy, layer == 0 ? tr("the embeddings (layer 0 of %1)").arg(m_lens->layers)
                                          : tr("layer %1 of %2").arg(layer).arg(m_lens->layers));
}

void InsidePanel::clearAttribution()
{
    if (!m_showingAttribution)
        return;
    m_showingAttribution = false;
    m_clear->setEnabled(false);
    m_canvas->clearSpanColours();
    m_canvas->clearScale();
    const AnalysisPtr shown = m_state->shown();
    if (m_lens && shown && shown->eval->scored.text == m_lens->text) {
        showLayer(m_layer->value());
    } else if (shown) {
        m_canvas->redrawNodes();
    }
    restoreSelection();
    m_status->setText(tr("AsC-Eval colours again."));
}

void InsidePanel::stopCommitColouring()
{
    m_showingCommit = false;
    m_colouring->blockSignals(true);
    m_colouring->setCurrentIndex(0);
    m_colouring->blockSignals(false);
    m_canvas->clearSpanColours();
    m_canvas->clearScale();
}

void InsidePanel::setColouring(int index)
{
    const AnalysisPtr shown = m_state->shown();
    if (index == 1) {
        if (!m_lens || !shown || shown->eval->scored.text != m_lens->text) {
            m_colouring->blockSignals(true);
            m_colouring->setCurrentIndex(0);
            m_colouring->blockSignals(false);
            m_status->setText(tr("Compute layers first: the commitment layer comes from the layer lens."));
            return;
        }
        if (m_showingAttribution)
            clearAttribution();
        // The final layer's views (the result's own values), coloured by where each prediction was decided.
        m_layer->blockSignals(true);
        m_layer->setValue(m_lens->layers);
        m_layer->blockSignals(false);
        m_layerLabel->setText(tr("layer: %1 of %2").arg(m_lens->layers).arg(m_lens->layers));
        m_state->showDerived(nullptr, {});
        showCommitment(m_canvas, m_lens->eval);
        m_showingCommit = true;
        restoreSelection();
        int committed = 0;
        for (const auto& c : m_lens->eval.tokenCommit)
            committed += c ? 1 : 0;
        m_status->setText(
            tr("Commitment layer of %1 tokens (light: decided early, dark: only by the last layers; "
               "nodes: the median of their tokens'; the labels keep AsC-Eval, hover a node for its layer).")
                .arg(committed));
        return;
    }
    if (!m_showingCommit)
        return;
    stopCommitColouring();
    if (shown)
        showLayer(m_layer->value());
    restoreSelection();
    m_status->setText(tr("AsC-Eval colours again."));
}

void InsidePanel::restoreSelection()
{
    // Setting a result on the views drops their highlight: the page's selection again.
    if (m_state->selectedNode() >= 0)
        m_state->selectNode(m_state->selectedNode());
    else if (m_state->selectedToken() >= 0)
        m_state->selectToken(m_state->selectedToken());
}

void InsidePanel::colourCode(double maxAbs)
{
    // The deepest node wins where spans nest: the spans in order of depth, then of size, the later painted over.
    std::vector<const NodeAttribution*> order;
    for (const auto& n : m_attribution->nodes)
        order.push_back(&n);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return a->depth != b->depth ? a->depth < b->depth : a->end - a->start > b->end - b->start;
    });
    std::vector<SpanColour> spans;
    for (const auto* n : order)
        spans.push_back({n->start, n->end, attributionColor(maxAbs > 0 ? n->attribution / maxAbs : 0.0)});
    m_canvas->setSpanColours(notAttributedColor(), spans, true); // the sequence view and the editor
    m_canvas->setSignedScale(tr("attribution"), attributionColor, maxAbs, notAttributedColor(), tr("not attributed"));
}

void InsidePanel::attributeSelection()
{
    const AnalysisPtr shown = m_state->shown();
    const auto model = m_models->model();
    if (!shown || !model) {
        start(tr("Attribution"), {}, {}); // says what is missing
        return;
    }
    AttributionTargetSpec target;
    if (m_state->selectedNode() >= 0) {
        target.kind = AttributionTargetSpec::Kind::Node;
        target.index = m_state->selectedNode();
    }
    AttributionOptions opts;
    opts.method = parseAttributionMethod(toUtf8(m_method->currentData().toString()));
    opts.faithfulness = m_faith->isChecked();
    const std::string language = toUtf8(m_canvas->language());
    auto out = std::make_shared<std::shared_ptr<const AttributionResult>>();
    start(
        tr("Attribution"),
        [shown, model, out, opts, target, language](JobContext& ctx) mutable {
            opts.cancel = ctx.cancelFlag();
            opts.progress = [&ctx](std::size_t done, std::size_t total) {
                ctx.setProgress(double(done) / double(std::max<std::size_t>(1, total)),
                                QObject::tr("Attribution: %1 of %2 masked copies").arg(done).arg(total));
            };
            try {
                *out = std::make_shared<const AttributionResult>(attribute(*model, shown->eval->scored.text,
                                                                           shown->eval->scored.promptBytes, language,
                                                                           target, opts, nullptr));
            } catch (const Cancelled&) {
            }
        },
        [this, out, shown] {
            if (!*out) {
                m_status->setText(tr("Attribution cancelled."));
                return;
            }
            m_attribution = *out;
            if (m_state->shown() != shown) {
                m_status->setText(tr("The views show another result now: attribute again."));
                return;
            }
            colourAttribution();
        });
}

void InsidePanel::showFaithfulness()
{
    const auto& f = m_attribution ? m_attribution->faithfulness : std::nullopt;
    m_faithLabel->setVisible(bool(f));
    if (!f) {
        m_faithLabel->clear();
        return;
    }
    // Faithful: hiding the most relied-on nodes first lowers log P sooner than a random order (deletion AUC below
    // random), showing them first raises it sooner (insertion AUC above random).
    const bool del = f->deletionAuc<f->randomDeletionAuc, ins = f->insertionAuc> f->randomInsertionAuc;
    const QString verdict = del && ins ? tr("both curves beat random order")
                            : del      ? tr("deletion beats random order, insertion does not")
                            : ins      ? tr("insertion beats random order, deletion does not")
                                       : tr("no better than random order");
    m_faithLabel->setText(tr("<b>Faithfulness</b> over %1 nodes (log P of the target, AUC):<br>"
                             "deletion %2 (random %3, lower is better)<br>insertion %4 (random %5, higher is "
                             "better)<br>%6")
                              .arg(m_attribution->faithfulnessNodes)
                              .arg(f->deletionAuc, 0, 'f', 3)
                              .arg(f->randomDeletionAuc, 0, 'f', 3)
                              .arg(f->insertionAuc, 0, 'f', 3)
                              .arg(f->randomInsertionAuc, 0, 'f', 3)
                              .arg(verdict));
}

void InsidePanel::colourAttribution()
{
    if (!m_attribution)
        return;
    if (m_showingCommit)
        stopCommitColouring();
    showFaithfulness();
    const AttributionResult& r = *m_attribution;
    double maxAbs = 0;
    for (const auto& n : r.nodes)
        maxAbs = std::max(maxAbs, std::abs(n.attribution));
    QHash<int, double> value, raw;
    for (const auto& n : r.nodes) {
        value.insert(n.id, maxAbs > 0 ? n.attribution / maxAbs : 0.0);
        raw.insert(n.id, n.attribution);
    }
    m_canvas->paintNodes([&](int node) -> ResultCanvas::NodeLook {
        if (!value.contains(node))
            return {notAttributedColor(), QString(), QStringLiteral("–")};
        const double a = raw.value(node);
        return {attributionColor(value.value(node)), tr("attribution %1").arg(a, 0, 'f', 4),
                (a > 0 ? QStringLiteral("+") : QString()) + QString::number(a, 'g', 2)};
    });
    if (r.targetNode)
        m_canvas->highlightNodes({*r.targetNode});
    m_showingAttribution = true;
    m_clear->setEnabled(true);
    colourCode(maxAbs);
    m_scaleNote->setText(tr("signed: ±1 = ± the largest |attribution|, %1 (%2); grey: not attributed")
                             .arg(maxAbs, 0, 'g', 3)
                             .arg(toQString(toString(r.method))));
    std::vector<const NodeAttribution*> order;
    for (const auto& n : r.nodes)
        order.push_back(&n);
    std::sort(order.begin(), order.end(),
              [](const auto* a, const auto* b) { return std::abs(a->attribution) > std::abs(b->attribution); });
    m_top->clear();
    const QString text = toQString(m_state->shown() ? m_state->shown()->eval->scored.text : std::string());
    for (std::size_t i = 0; i < order.size() && i < 12; ++i) {
        const auto* n = order[i];
        m_top->addItem(QStringLiteral("%1  %2 #%3").arg(n->attribution, 8, 'f', 3).arg(toQString(n->type)).arg(n->id));
        m_top->item(int(i))->setBackground(attributionColor(maxAbs > 0 ? n->attribution / maxAbs : 0));
    }
    m_status->setText(tr("Target %1 (%2), log P %3, over %4 prompt nodes (%5); purple: the prediction relies on the "
                         "node, orange: it does better without it.")
                          .arg(toQString(r.targetType))
                          .arg(r.targetNode ? tr("node %1").arg(*r.targetNode) : tr("the whole completion"))
                          .arg(r.targetLogProb, 0, 'f', 3)
                          .arg(r.nodes.size())
                          .arg(toQString(toString(r.method))) +
                      (r.surrogate ? tr(" Surrogate fit: held-out R² %1 over %2 masks (%3 for training).")
                                         .arg(r.surrogate->heldOutR2, 0, 'f', 3)
                                         .arg(r.surrogate->masks)
                                         .arg(r.surrogate->trainMasks)
                                   : QString()));
}

} // namespace ascviz::ui
