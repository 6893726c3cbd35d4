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

TokenTableModel::TokenTableModel(QObject* parent) : QAbstractTableModel(parent)
{
}

void TokenTableModel::setTokens(AnalysisPtr a, const QVector<int>& rows, bool all)
{
    beginResetModel();
    m_analysis = std::move(a);
    m_rows.clear();
    if (m_analysis && m_analysis->eval) {
        const int n = int(m_analysis->eval->scored.tokens.size());
        if (all) {
            m_rows.reserve(n);
            for (int i = 0; i < n; ++i)
                m_rows.push_back(i);
        } else {
            for (int i : rows)
                if (i >= 0 && i < n)
                    m_rows.push_back(i);
        }
    }
    endResetModel();
}

int TokenTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}
int TokenTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TokenTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_analysis)
        return {};
    const int token = m_rows[index.row()];
    const ScoredText& s = m_analysis->eval->scored;
    const ScoredToken& t = s.tokens[std::size_t(token)];
    if (role == TokenRole)
        return token;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
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
        if (index.column() == NtP)
            return ascQColor(t.ntp);
        return {};
    case Qt::ForegroundRole:
        if (index.column() == NtP)
            return textColorOn(ascQColor(t.ntp));
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == Text || index.column() == Source)
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant TokenTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
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

NodeTableModel::NodeTableModel(QObject* parent) : QAbstractTableModel(parent)
{
}

void NodeTableModel::setNodes(AnalysisPtr a, const QVector<int>& rows, bool all)
{
    beginResetModel();
    m_analysis = std::move(a);
    m_rows.clear();
    if (m_analysis && m_analysis->eval) {
        const int n = int(m_analysis->eval->tree.nodes().size());
        if (all) {
            m_rows.reserve(n);
            for (int i = 0; i < n; ++i)
                m_rows.push_back(i);
        } else {
            for (int i : rows)
                if (i >= 0 && i < n)
                    m_rows.push_back(i);
        }
    }
    endResetModel();
}

int NodeTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}
int NodeTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_analysis)
        return {};
    const int node = m_rows[index.row()];
    const EvalResult& r = *m_analysis->eval;
    const AstNode& n = r.tree.nodes()[std::size_t(node)];
    const NodeEval* ev = std::size_t(node) < r.nodes.size() ? &r.nodes[std::size_t(node)] : nullptr;
    const std::optional<double> value = ev ? ev->value : std::nullopt;
    if (role == NodeRole)
        return node;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
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
        if (index.column() == Value)
            return ascQColor(value);
        return {};
    case Qt::ForegroundRole:
        if (index.column() == Value)
            return textColorOn(ascQColor(value));
        if (index.column() == Type && n.error())
            return QColor(0xA0, 0, 0);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == Type || index.column() == Category)
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
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
