// The Heads page's Ablate action: the job (clean and ablated scoring of the text, evaluated and laid out) and the
// two colourings of its AST view (method.md §14.1).
#include "pages/heads/ablationview.h"

#include "common/textpos.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"
#include "views/astview.h"

#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/model/ablation.h"
#include "ascviz/render/layout.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ascviz::ui {

QColor ablationDiffColor(double s)
{
    s = std::clamp(s, -1.0, 1.0);
    // pink (197, 27, 125) below 0, green (77, 146, 33) above, white at 0
    const QColor end = s >= 0 ? QColor(77, 146, 33) : QColor(197, 27, 125);
    const double t = std::abs(s);
    return QColor(int(std::lround(255 + (end.red() - 255) * t)), int(std::lround(255 + (end.green() - 255) * t)),
                  int(std::lround(255 + (end.blue() - 255) * t)));
}

namespace {

QColor naColor()
{
    return QColor(235, 235, 235);
}

// The evaluation laid out as the complete AST view.
AnalysisPtr laidOut(EvalResult r)
{
    auto a = std::make_shared<Analysis>();
    a->eval = std::make_shared<const EvalResult>(std::move(r));
    try {
        a->complete = std::make_shared<const GraphLayout>(layoutAst(*a->eval, ascviz::AstView::Complete));
    } catch (const Error& e) {
        a->layoutError = toQString(e.what());
    }
    return a;
}

} // namespace

AblationView::AblationView(ModelService* models, QWidget* parent) : QWidget(parent), m_models(models)
{
    auto* controls = new QHBoxLayout;
    m_heads = new QLineEdit(this);
    m_heads->setPlaceholderText(tr("heads: layer.head, …"));
    m_heads->setToolTip(tr("The heads to ablate, written layer.head (the heat map's numbering), separated by commas"));
    m_add = new QPushButton(tr("Add picked head"), this);
    m_add->setEnabled(false);
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("zero"), QStringLiteral("zero"));
    m_mode->addItem(tr("mean"), QStringLiteral("mean"));
    m_mode->setToolTip(tr("zero: the heads' outputs are 0; mean: their mean output over the text's positions"));
    m_run = new QPushButton(tr("Ablate"), this);
    m_run->setToolTip(tr("Score the text again with the heads ablated and colour its AST by the result"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    m_show = new QComboBox(this);
    m_show->addItem(tr("AsC-Eval under ablation"));
    m_show->addItem(tr("Difference (ablated − clean)"));
    controls->addWidget(m_heads, 2);
    controls->addWidget(m_add);
    controls->addWidget(m_mode);
    controls->addWidget(m_run);
    controls->addWidget(m_cancel);
    controls->addWidget(m_show, 1);
    m_scale = new QLabel(this);
    m_scale->setVisible(false);
    m_status = new QLabel(tr("Pick heads on the heat map (Add picked head) or write them, then Ablate."), this);
    m_status->setWordWrap(true);
    m_ast = new ui::AstView(ascviz::AstView::Complete, this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_ast, 1);
    layout->addWidget(m_scale);
    layout->addWidget(m_status);

    connect(m_add, &QPushButton::clicked, this, &AblationView::addPicked);
    connect(m_run, &QPushButton::clicked, this, &AblationView::ablate);
    connect(m_cancel, &QPushButton::clicked, this, &AblationView::cancel);
    connect(m_show, &QComboBox::currentIndexChanged, this, [this] { recolour(); });
}

void AblationView::setText(const std::string& text, const std::string& language, Aggregation aggregation)
{
    m_aggregation = aggregation; // the next ablation's θ (the shown one keeps its own)
    if (text == m_text && language == m_language)
        return;
    m_text = text;
    m_language = language;
    if (!m_ablated)
        return;
    // The last ablation was of another text: it goes, with its colours.
    m_clean.reset();
    m_ablated.reset();
    m_ast->setAnalysis(nullptr);
    m_scale->setVisible(false);
    setStatus(tr("Another text was analysed: Ablate again."));
}

void AblationView::setPicked(int layer, int head)
{
    m_pickedLayer = layer;
    m_pickedHead = head;
    m_add->setEnabled(layer >= 0 && head >= 0);
    m_add->setText(layer >= 0 ? tr("Add %1.%2").arg(layer).arg(head) : tr("Add picked head"));
}

void AblationView::addPicked()
{
    if (m_pickedLayer < 0)
        return;
    const QString item = QStringLiteral("%1.%2").arg(m_pickedLayer).arg(m_pickedHead);
    QStringList items = m_heads->text().split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (QString& s : items)
        s = s.trimmed();
    if (!items.contains(item))
        items << item;
    m_heads->setText(items.join(QLatin1Char(',')));
}

void AblationView::setStatus(const QString& text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color: #b00020") : QString());
}

void AblationView::cancel()
{
    if (m_job != 0)
        m_models->jobs()->cancel(m_job);
}

void AblationView::ablate()
{
    if (m_job != 0)
        return;
    const auto model = m_models ? m_models->model() : nullptr;
    auto fail = [this](const QString& message) {
        setStatus(message, true);
        Q_EMIT ablationDone(false, message);
    };
    if (!model)
        return fail(tr("No model is loaded: load one first."));
    if (m_text.empty())
        return fail(tr("Analyze heads on a text first: the ablation scores that text again."));
    std::vector<AttentionHead> heads;
    try {
        heads = parseHeadList(toUtf8(m_heads->text()));
    } catch (const Error& e) {
        return fail(tr("Heads: %1").arg(toQString(e.what())));
    }
    const AblationMode mode = parseAblationMode(toUtf8(m_mode->currentData().toString()));
    QStringList names;
    for (const auto& h : heads)
        names << toQString(toString(h));
    const QString description =
        tr("%1 ablation of %2").arg(toQString(toString(mode)), names.join(QStringLiteral(", ")));
    struct Out {
        AnalysisPtr clean, ablated;
        bool cancelled = false;
    };
    auto out = std::make_shared<Out>();
    const std::string text = m_text;
    EvalRequest req; // one entry point (eval/evaluate.h), the Heads page's θ
    req.language = m_language;
    req.aggregation = m_aggregation;
    auto work = [model, heads, mode, text, req, out](JobContext& ctx) {
        checkHeads(*model, heads); // InputError naming the head and the model's sizes
        const auto means =
            mode == AblationMode::Mean ? meanHeadOutputs(*model, text, heads) : std::vector<std::vector<double>>{};
        const auto ablatedModel = withAblatedHeads(*model, heads, means);
        // Limits, one parse, the clean scoring and its evaluation; the ablated scores are evaluated on that tree.
        EvalResult clean =
            evaluateText(text, req, [&](const std::string& t, const SyntaxTree&) { return model->score(t); });
        if (ctx.isCancelled()) {
            out->cancelled = true;
            return;
        }
        EvalResult ablated = evaluateScores(ablatedModel->score(text), req, clean.tree);
        if (ctx.isCancelled()) {
            out->cancelled = true;
            return;
        }
        out->clean = laidOut(std::move(clean));
        out->ablated = laidOut(std::move(ablated));
    };
    JobTracker::Callbacks cb;
    cb.finished = [this, out, description] {
        m_job = 0;
        m_run->setEnabled(true);
        m_cancel->setVisible(false);
        if (out->cancelled) {
            setStatus(tr("Ablation cancelled."));
            Q_EMIT ablationDone(false, m_status->text());
            return;
        }
        m_clean = out->clean;
        m_ablated = out->ablated;
        m_description = description;
        m_ast->setAnalysis(m_ablated);
        recolour();
        Q_EMIT ablationDone(true, {});
    };
    cb.failed = [this](const QString& message) {
        m_job = 0;
        m_run->setEnabled(true);
        m_cancel->setVisible(false);
        setStatus(tr("Ablation failed: %1").arg(message), true);
        Q_EMIT ablationDone(false, m_status->text());
    };
    m_run->setEnabled(false);
    m_cancel->setVisible(true);
    setStatus(tr("Scoring with %1…").arg(description));
    m_job = m_models->jobs()->start(tr("Ablate heads"), QStringLiteral("heads"), work, this, cb);
}

std::optional<double> AblationView::difference(int node) const
{
    if (!m_clean || !m_ablated || node < 0)
        return std::nullopt;
    const auto k = std::size_t(node);
    const auto &c = m_clean->eval->nodes, &a = m_ablated->eval->nodes;
    if (k >= c.size() || k >= a.size() || !c[k].value || !a[k].value)
        return std::nullopt;
    return *a[k].value - *c[k].value;
}

double AblationView::maxDifference() const
{
    double m = 0;
    if (m_ablated)
        for (std::size_t k = 0; k < m_ablated->eval->nodes.size(); ++k)
            if (const auto d = difference(int(k)))
                m = std::max(m, std::abs(*d));
    return m;
}

void AblationView::recolour()
{
    if (!m_ablated)
        return;
    // AsC-Eval under the ablation: the view's own colours (setAnalysis again drops the difference colours).
    const bool diff = m_show->currentIndex() == 1;
    if (!diff) {
        m_ast->setAnalysis(m_ablated);
        m_scale->setVisible(false);
    }
    const double maxAbs = maxDifference();
    double sum = 0;
    int n = 0;
    for (AstNodeItem* item : m_ast->nodeItems()) {
        const auto d = difference(item->node());
        if (d) {
            sum += *d;
            ++n;
        }
        if (diff)
            item->setBrush(d ? ablationDiffColor(maxAbs > 0 ? *d / maxAbs : 0.0) : naColor());
        item->setToolTip(d ? tr("Δ AsC-Eval (ablated − clean) %1").arg(*d, 0, 'f', 4) : tr("Δ n/a"));
    }
    if (diff) {
        QString cells;
        for (const double v : {-1.0, -0.5, 0.0, 0.5, 1.0})
            cells += QStringLiteral("<td style=\"background:%1\">&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</td>")
                         .arg(ablationDiffColor(v).name());
        m_scale->setText(
            QStringLiteral("<table cellspacing=0><tr><td>%1 %2&nbsp;</td>%3<td>&nbsp;%4 %5</td><td>&nbsp;&nbsp;"
                           "<span style=\"background:%6\">&nbsp;&nbsp;&nbsp;&nbsp;</span> n/a</td></tr></table>")
                .arg(tr("lower under ablation"), QString::number(-maxAbs, 'g', 3), cells,
                     QString::number(maxAbs, 'g', 3), tr("higher"), naColor().name()));
        m_scale->setVisible(true);
    }
    const auto &ce = m_clean->eval->features.ascEval, &ae = m_ablated->eval->features.ascEval;
    setStatus(tr("%1: AsC-Eval %2 → %3; mean Δ over %4 nodes %5, largest |Δ| %6. %7")
                  .arg(m_description)
                  .arg(formatValue(ce), formatValue(ae))
                  .arg(n)
                  .arg(n ? sum / n : 0.0, 0, 'g', 3)
                  .arg(maxAbs, 0, 'g', 3)
                  .arg(diff ? tr("Pink: the ablation lowers the node's AsC-Eval (the heads helped it); green: raises "
                                 "it.")
                            : tr("Colours: AsC-Eval under the ablation.")));
}

} // namespace ascviz::ui
