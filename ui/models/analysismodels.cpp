#include "models/analysismodels.h"

#include "common/textpos.h"

namespace ascviz::ui {
namespace {
// Token text shown on one line: newlines and tabs as escapes, leading/trailing spaces visible.
QString visible(const std::string& s)
{
    QString out = toQString(s);
    out.replace(QLatin1Char('\n'), QStringLiteral("\\n")).replace(QLatin1Char('\t'), QStringLiteral("\\t"));
    return QStringLiteral("'%1'").arg(out);
}
} // namespace

CausalTableModel::CausalTableModel(QObject* parent) : TableModel(parent)
{
}

void CausalTableModel::setReport(std::shared_ptr<const CausalReport> report)
{
    reset([&] {
        m_report = std::move(report);
        m_rows.clear();
        if (m_report) {
            m_rows.emplace_back(QString(), &m_report->global);
            for (const auto& [k, e] : m_report->groups)
                m_rows.emplace_back(toQString(k), &e);
        }
    });
}

QString CausalTableModel::key(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].first : QString();
}

QVariant CausalTableModel::cell(int row, int column, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const auto& [name, e] = m_rows[static_cast<std::size_t>(row)];
    auto rhoZ = [&](std::size_t k) {
        return k < e->rhoConfounders.size() ? numberCell(e->rhoConfounders[k].second, role) : QVariant();
    };
    auto eff = [&](double v) { return e->hasEffect ? numberCell(v, role) : numberCell(std::nullopt, role); };
    switch (column) {
    case Treatment:
        return name.isEmpty() ? tr("Global AsC-Eval") : name;
    case N:
        return e->n;
    case RhoY:
        return numberCell(e->rhoOutcome, role);
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
        return numberCell(e->placebo, role);
    case CommonCause:
        return numberCell(e->randomCommonCause, role);
    case Subset:
        return numberCell(e->dataSubset, role);
    case Note:
        return toQString(e->note);
    default:
        return {};
    }
}

QVariant CausalTableModel::header(int column) const
{
    static const char* names[] = {"Treatment",    "n",          "ρ(T, CE)", "ρ tokens", "ρ AST nodes", "ρ AST levels",
                                  "ρ cyclomatic", "Effect",     "SE",       "95% lo",   "95% hi",      "Placebo",
                                  "Common cause", "80% subset", "Note"};
    return tr(names[column]);
}

CeTableModel::CeTableModel(const QString& nameHeader, bool quoteNames, QObject* parent)
    : TableModel(parent), m_nameHeader(nameHeader), m_quote(quoteNames)
{
}

void CeTableModel::setRows(std::vector<std::pair<std::string, CeStat>> rows)
{
    reset([&] { m_rows = std::move(rows); });
}

QVariant CeTableModel::cell(int row, int column, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const auto& [name, s] = m_rows[static_cast<std::size_t>(row)];
    switch (column) {
    case Name:
        return role == Qt::UserRole || !m_quote ? QVariant(toQString(name)) : QVariant(visible(name));
    case MeanCe:
        return numberCell(s.mean, role);
    case StdCe:
        return numberCell(s.std, role);
    case Count:
        return QVariant::fromValue<qlonglong>(s.count);
    default:
        return {};
    }
}

QVariant CeTableModel::header(int column) const
{
    switch (column) {
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
