#include "models/resultmodels.h"

#include "common/textpos.h"

namespace ascviz::ui {

namespace {
QString tokenText(const ScoredText& s, const ScoredToken& t)
{
    if (t.end <= t.start || t.end > s.text.size())
        return {};
    return toQString(std::string_view(s.text).substr(t.start, t.end - t.start));
}
} // namespace

TokenTableModel::TokenTableModel(QObject* parent) : TableModel(parent)
{
}

void TokenTableModel::setTokens(AnalysisPtr a, const QVector<int>& rows, bool all)
{
    reset([&] {
        m_analysis = std::move(a);
        const bool any = m_analysis && m_analysis->eval;
        m_rows = rowsIn(rows, any ? int(m_analysis->eval->scored.tokens.size()) : 0, all && any);
    });
}

QVariant TokenTableModel::cell(int row, int column, int role) const
{
    if (!m_analysis)
        return {};
    const int token = m_rows[row];
    const ScoredText& s = m_analysis->eval->scored;
    const ScoredToken& t = s.tokens[std::size_t(token)];
    if (role == TokenRole)
        return token;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Index:
            return token;
        case Text:
            return visibleTokenText(tokenText(s, t));
        case Id:
            return t.id;
        case NtP:
            return formatValue(t.ntp);
        case CE: {
            const auto ce = t.crossEntropy();
            return ce ? QString::number(*ce, 'f', 3) : QStringLiteral("n/a");
        }
        case Source:
            return t.generated ? tr("generated") : tr("prompt");
        default:
            return {};
        }
    case Qt::BackgroundRole:
        if (column == NtP)
            return ascQColor(t.ntp);
        return {};
    case Qt::ForegroundRole:
        if (column == NtP)
            return textColorOn(ascQColor(t.ntp));
        return {};
    case Qt::TextAlignmentRole:
        if (column == Text || column == Source)
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant TokenTableModel::header(int column) const
{
    switch (column) {
    case Index:
        return tr("#");
    case Text:
        return tr("Token");
    case Id:
        return tr("Id");
    case NtP:
        return tr("NtP");
    case CE:
        return tr("CE");
    case Source:
        return tr("Source");
    default:
        return {};
    }
}

NodeTableModel::NodeTableModel(QObject* parent) : TableModel(parent)
{
}

void NodeTableModel::setNodes(AnalysisPtr a, const QVector<int>& rows, bool all)
{
    reset([&] {
        m_analysis = std::move(a);
        const bool any = m_analysis && m_analysis->eval;
        m_rows = rowsIn(rows, any ? int(m_analysis->eval->tree.nodes().size()) : 0, all && any);
    });
}

QVariant NodeTableModel::cell(int row, int column, int role) const
{
    if (!m_analysis)
        return {};
    const int node = m_rows[row];
    const EvalResult& r = *m_analysis->eval;
    const AstNode& n = r.tree.nodes()[std::size_t(node)];
    const NodeEval* ev = std::size_t(node) < r.nodes.size() ? &r.nodes[std::size_t(node)] : nullptr;
    const std::optional<double> value = ev ? ev->value : std::nullopt;
    if (role == NodeRole)
        return node;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Id:
            return node;
        case Type: {
            QString t = toQString(n.type);
            if (n.isMissing)
                t = QStringLiteral("MISSING ") + t;
            return t;
        }
        case Category:
            return ev && ev->category ? toQString(*ev->category) : QString();
        case Value:
            return formatValue(value);
        case Tokens:
            return ev ? int(ev->tokens.size()) : 0;
        case Depth:
            return n.depth;
        default:
            return {};
        }
    case Qt::BackgroundRole:
        if (column == Value)
            return ascQColor(value);
        return {};
    case Qt::ForegroundRole:
        if (column == Value)
            return textColorOn(ascQColor(value));
        if (column == Type && n.error())
            return QColor(0xA0, 0, 0);
        return {};
    case Qt::TextAlignmentRole:
        if (column == Type || column == Category)
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant NodeTableModel::header(int column) const
{
    switch (column) {
    case Id:
        return tr("Node");
    case Type:
        return tr("Type");
    case Category:
        return tr("Category");
    case Value:
        return tr("AsC-Eval");
    case Tokens:
        return tr("Tokens");
    case Depth:
        return tr("Depth");
    default:
        return {};
    }
}

} // namespace ascviz::ui
