#include "views/detailspanel.h"

#include "common/textpos.h"
#include "models/resultmodels.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

namespace ascviz::ui {

namespace {

QString swatch(std::optional<double> v)
{
    const QColor c = ascQColor(v);
    return QStringLiteral("<span style='background-color:%1; color:%2'>&nbsp;%3&nbsp;</span>")
        .arg(c.name(), textColorOn(c).name(), formatValue(v));
}

// θ and its scope: "median" over a node's own tokens, "median over children" bottom-up (issue 54: Details omitted
// the scope).
QString aggregationText(const EvalResult& r)
{
    const QString theta = toQString(toString(r.aggregation));
    return r.scope == AggregationScope::Children ? DetailsPanel::tr("%1 over children").arg(theta) : theta;
}

QString row(const QString& k, const QString& v)
{
    return QStringLiteral("<tr><td style='color:#555'>%1&nbsp;&nbsp;</td><td>%2</td></tr>").arg(k, v);
}

QString excerpt(std::string_view text, int maxChars = 48)
{
    QString s = toQString(text);
    if (s.size() > maxChars)
        s = s.left(maxChars) + QChar(0x2026);
    return visibleTokenText(s).toHtmlEscaped();
}

} // namespace

DetailsPanel::DetailsPanel(QWidget* parent)
    : QWidget(parent), m_header(new QLabel(this)), m_table(new QTableView(this)), m_tokens(new TokenTableModel(this)),
      m_nodes(new NodeTableModel(this))
{
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setMargin(4);
    // Long unbreakable text (code excerpts) must not widen the panel, let alone the window.
    m_header->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_header->setMinimumWidth(200);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    connect(m_table, &QTableView::clicked, this, &DetailsPanel::rowClicked);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_header);
    layout->addWidget(m_table, 1);
    showSummary(nullptr);
}

QString DetailsPanel::headerText() const
{
    return m_header->text();
}

void DetailsPanel::fitColumns()
{
    m_table->resizeColumnsToContents();
}

void DetailsPanel::showPending(const QString& what)
{
    m_node = -1;
    m_token = -1;
    m_mode = Mode::Empty;
    m_header->setText(
        QStringLiteral("<b>%1</b><br><span style='color:#666'>%2</span>").arg(tr("Details"), what.toHtmlEscaped()));
    m_table->setModel(m_nodes);
    m_nodes->setNodes(nullptr, {});
}

void DetailsPanel::showSummary(AnalysisPtr a)
{
    m_node = -1;
    m_token = -1;
    if (!a || !a->eval) {
        m_mode = Mode::Empty;
        m_header->setText(tr("<b>Details</b><br><span style='color:#666'>Click a token or an AST node to see "
                             "its values here.</span>"));
        m_table->setModel(m_nodes);
        m_nodes->setNodes(nullptr, {});
        return;
    }
    m_mode = Mode::Summary;
    const EvalResult& r = *a->eval;
    const auto& f = r.features;
    const int generated = a->generatedTokens();
    QString html = QStringLiteral("<b>%1</b><table>").arg(tr("Snippet"));
    html += row(tr("AsC-Eval (mean)"), swatch(f.ascEval));
    const double ce = r.scored.crossEntropy();
    html += row(tr("cross-entropy"), std::isnan(ce) ? QStringLiteral("n/a") : QString::number(ce, 'f', 3));
    html += row(tr("tokens"), tr("%1 (%2 prompt, %3 generated)")
                                  .arg(r.scored.tokens.size())
                                  .arg(int(r.scored.tokens.size()) - generated)
                                  .arg(generated));
    html += row(tr("AST"), tr("%1 nodes, %2 levels").arg(f.astNodes).arg(f.astLevels));
    html += row(tr("cyclomatic"), QString::number(f.cyclomatic));
    html += row(tr("aggregation"), aggregationText(r));
    if (r.tree.hasErrors()) {
        // Where the errors are and which languages the code parses cleanly as (never switched); computed
        // with the result, off the GUI thread.
        const QString text =
            a->syntaxNote.isEmpty() ? toQString(describeSyntaxProblems(r.tree)).toHtmlEscaped() : a->syntaxNote;
        html += row(tr("syntax"), QStringLiteral("<span style='color:#a00000'>%1</span>").arg(text));
    }
    if (a->cancelled)
        html += row(tr("generation"), tr("stopped by the user"));
    html += QStringLiteral("</table>");
    if (!f.perCategory.empty()) {
        html += QStringLiteral("<b>%1</b><table>").arg(tr("Categories (mean AsC-Eval)"));
        for (const auto& [cat, v] : f.perCategory)
            html += row(toQString(cat), swatch(v));
        html += QStringLiteral("</table>");
    }
    html += QStringLiteral("<span style='color:#666'>%1</span>").arg(tr("All AST nodes:"));
    m_header->setText(html);
    m_table->setModel(m_nodes);
    m_nodes->setNodes(a, {}, true);
    fitColumns();
}

void DetailsPanel::showNode(AnalysisPtr a, int node)
{
    if (!a || !a->eval || node < 0 || std::size_t(node) >= a->eval->tree.nodes().size()) {
        showSummary(a);
        return;
    }
    m_mode = Mode::Node;
    m_node = node;
    m_token = -1;
    const EvalResult& r = *a->eval;
    const AstNode& n = r.tree.nodes()[std::size_t(node)];
    const NodeEval& ev = r.nodes[std::size_t(node)];
    QString type = toQString(n.type).toHtmlEscaped();
    if (n.isError)
        type = QStringLiteral("<span style='color:#a00000'>%1</span> (%2)").arg(type, tr("syntax error"));
    if (n.isMissing)
        type = QStringLiteral("<span style='color:#a00000'>MISSING %1</span>").arg(type);
    QString html = QStringLiteral("<b>%1</b> %2<table>").arg(tr("Node"), QString::number(node));
    html += row(tr("type"), type + (n.named ? QString() : tr(" (anonymous)")));
    html += row(tr("category"), ev.category ? toQString(*ev.category).toHtmlEscaped() : tr("—"));
    html += row(tr("AsC-Eval"), swatch(ev.value) + QStringLiteral(" %1").arg(aggregationText(r)));
    html += row(tr("bytes"), QStringLiteral("%1–%2").arg(n.start).arg(n.end));
    html += row(tr("depth"), QString::number(n.depth));
    html += row(tr("text"), QStringLiteral("<code>%1</code>").arg(excerpt(r.tree.nodeText(n))));
    html += QStringLiteral("</table><span style='color:#666'>%1</span>")
                .arg(tr("Aligned tokens (%1):").arg(ev.tokens.size()));
    m_header->setText(html);
    m_table->setModel(m_tokens);
    m_tokens->setTokens(a, QVector<int>(ev.tokens.begin(), ev.tokens.end()));
    fitColumns();
}

void DetailsPanel::showToken(AnalysisPtr a, int token)
{
    if (!a || !a->eval || token < 0 || std::size_t(token) >= a->eval->scored.tokens.size()) {
        showSummary(a);
        return;
    }
    m_mode = Mode::Token;
    m_token = token;
    m_node = -1;
    const EvalResult& r = *a->eval;
    const ScoredToken& t = r.scored.tokens[std::size_t(token)];
    const auto ce = t.crossEntropy();
    QString html = QStringLiteral("<b>%1</b> %2<table>").arg(tr("Token"), QString::number(token));
    html += row(tr("text"), QStringLiteral("<code>%1</code>")
                                .arg(excerpt(std::string_view(r.scored.text).substr(t.start, t.end - t.start))));
    html += row(tr("id"), QString::number(t.id));
    html += row(tr("NtP"), swatch(t.ntp));
    html += row(tr("CE"), ce ? QString::number(*ce, 'f', 3) : QStringLiteral("n/a"));
    html += row(tr("source"), t.generated ? tr("generated") : tr("prompt"));
    html += QStringLiteral("</table>");
    if (!t.top.empty()) {
        html += QStringLiteral("<b>%1</b><table>").arg(tr("Top alternatives"));
        for (const auto& alt : t.top)
            html += row(QStringLiteral("<code>%1</code>").arg(visibleTokenText(toQString(alt.text)).toHtmlEscaped()),
                        QString::number(alt.prob, 'f', 3) + (alt.id == t.id ? tr(" ◀ actual") : QString()));
        html += QStringLiteral("</table>");
    }
    const auto& nodes =
        std::size_t(token) < r.nodesOfToken.size() ? r.nodesOfToken[std::size_t(token)] : std::vector<int>{};
    html += QStringLiteral("<span style='color:#666'>%1</span>")
                .arg(tr("Nodes this token belongs to (%1):").arg(nodes.size()));
    m_header->setText(html);
    m_table->setModel(m_nodes);
    m_nodes->setNodes(a, QVector<int>(nodes.begin(), nodes.end()));
    fitColumns();
}

void DetailsPanel::rowClicked(const QModelIndex& index)
{
    if (!index.isValid())
        return;
    if (m_table->model() == m_tokens)
        Q_EMIT tokenActivated(m_tokens->tokenAt(index.row()));
    else
        Q_EMIT nodeActivated(m_nodes->nodeAt(index.row()));
}

} // namespace ascviz::ui
