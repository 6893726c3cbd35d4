#include "models/analysismodels.h"

#include "common/textpos.h"

namespace ascviz::ui {
namespace {
QVariant num(const std::optional<double>& v, int role, int decimals = 3)
{
    if (!v)
        return role == Qt::UserRole ? QVariant() : QVariant(QStringLiteral("n/a"));
    return role == Qt::UserRole ? QVariant(*v) : QVariant(QString::number(*v, 'f', decimals));
}

// Token text shown on one line: newlines and tabs as escapes, leading/trailing spaces visible.
QString visible(const std::string& s)
{
    QString out = toQString(s);
    out.replace(QLatin1Char('\n'), QStringLiteral("\\n")).replace(QLatin1Char('\t'), QStringLiteral("\\t"));
    return QStringLiteral("'%1'").arg(out);
}
} // namespace

CausalTableModel::CausalTableModel(QObject* parent) : QAbstractTableModel(parent)
{
}

void CausalTableModel::setReport(std::shared_ptr<const CausalReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    m_rows.clear();
    if (m_report) {
        m_rows.emplace_back(QString(), &m_report->global);
        for (const auto& [k, e] : m_report->groups)
            m_rows.emplace_back(toQString(k), &e);
    }
    endResetModel();
}

QString CausalTableModel::key(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].first : QString();
}

int CausalTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}
int CausalTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CausalTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || (role != Qt::DisplayRole && role != Qt::UserRole))
        return {};
    const auto& [name, e] = m_rows[static_cast<std::size_t>(index.row())];
    auto rhoZ = [&](std::size_t k) {
        return k < e->rhoConfounders.size() ? num(e->rhoConfounders[k].second, role) : QVariant();
    };
    auto eff = [&](double v) { return e->hasEffect ? num(v, role) : num(std::nullopt, role); };
    switch (index.column()) {
    case Treatment:
        return name.isEmpty() ? tr("Global AsC-Eval") : name;
    case N:
        return e->n;
    case RhoY:
        return num(e->rhoOutcome, role);
    case RhoTokens:
        return rhoZ(0);
    case RhoNodes:
        return rhoZ(1);
    case RhoLevels:
        return rhoZ(2);
    case RhoCyclomatic:
        return rhoZ(3);
    case Effect:
        return eff(e->effect);
    case SE:
        return eff(e->se);
    case CiLow:
        return eff(e->lo);
    case CiHigh:
        return eff(e->hi);
    case Placebo:
        return num(e->placebo, role);
    case CommonCause:
        return num(e->randomCommonCause, role);
    case Subset:
        return num(e->dataSubset, role);
    case Note:
        return toQString(e->note);
    default:
        return {};
    }
}

QVariant CausalTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = {"Treatment",    "n",          "ρ(T, CE)", "ρ tokens", "ρ AST nodes", "ρ AST levels",
                                  "ρ cyclomatic", "Effect",     "SE",       "95% lo",   "95% hi",      "Placebo",
                                  "Common cause", "80% subset", "Note"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

CeTableModel::CeTableModel(const QString& nameHeader, bool quoteNames, QObject* parent)
    : QAbstractTableModel(parent), m_nameHeader(nameHeader), m_quote(quoteNames)
{
}

void CeTableModel::setRows(std::vector<std::pair<std::string, CeStat>> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int CeTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}
int CeTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CeTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || (role != Qt::DisplayRole && role != Qt::UserRole))
        return {};
    const auto& [name, s] = m_rows[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
    case Name:
        return role == Qt::UserRole || !m_quote ? QVariant(toQString(name)) : QVariant(visible(name));
    case MeanCe:
        return num(s.mean, role);
    case StdCe:
        return num(s.std, role);
    case Count:
        return QVariant::fromValue<qlonglong>(s.count);
    default:
        return {};
    }
}

QVariant CeTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
    case Name:
        return m_nameHeader;
    case MeanCe:
        return tr("Mean CE");
    case StdCe:
        return tr("Std CE");
    case Count:
        return tr("Tokens");
    default:
        return {};
    }
}

} // namespace ascviz::ui
