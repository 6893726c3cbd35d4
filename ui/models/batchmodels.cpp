#include "models/batchmodels.h"

#include "common/textpos.h"

#include <QBrush>
#include <QColor>
#include <QFile>
#include <QFont>
#include <QSaveFile>

#include <cmath>
#include <set>

namespace ascviz::ui {

namespace {

QString num(double v, int prec = 3)
{
    return QString::number(v, 'f', prec);
}

QColor flagColor(ThresholdFlag f)
{
    switch (f) {
    case ThresholdFlag::Confident:
        return QColor(0xd9, 0xf2, 0xdc);
    case ThresholdFlag::Erroneous:
        return QColor(0xfb, 0xdd, 0xdb);
    case ThresholdFlag::TooFew:
        return QColor(0xe8, 0xe8, 0xe8);
    case ThresholdFlag::Neutral:
        break;
    }
    return QColor(0xfd, 0xf3, 0xd6);
}

QString flagText(ThresholdFlag f, int64_t minN)
{
    switch (f) {
    case ThresholdFlag::Confident:
        return QObject::tr("confident (≥ 0.6)");
    case ThresholdFlag::Erroneous:
        return QObject::tr("erroneous (< 0.5)");
    case ThresholdFlag::TooFew:
        return QObject::tr("too few (n < %1)").arg(minN);
    case ThresholdFlag::Neutral:
        break;
    }
    return QObject::tr("between 0.5 and 0.6");
}

} // namespace

// ---------------------------------------------------------------- StatsTableModel

StatsTableModel::StatsTableModel(QObject* parent) : TableModel(parent)
{
}

void StatsTableModel::setResultSet(BatchResultPtr set)
{
    m_set = std::move(set);
    rebuild();
}

void StatsTableModel::setLanguage(const QString& id)
{
    m_language = id;
    rebuild();
}

void StatsTableModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    if (m_set) {
        const auto& s = m_set->stats;
        const LanguageStats* one = nullptr;
        for (const auto& l : s.languages)
            if (!m_language.isEmpty() && toQString(l.language) == m_language)
                one = &l;
        const auto& categories = one ? one->categories : s.categories;
        const auto& concepts = one ? one->concepts : s.concepts;
        const auto& categoryOf = one ? one->categoryOf : s.categoryOf;
        for (const auto& [name, r] : categories)
            m_rows.push_back({true, toQString(name), toQString(name), r});
        for (const auto& [name, r] : concepts) {
            const auto c = categoryOf.find(name);
            m_rows.push_back({false, toQString(name), c == categoryOf.end() ? QString() : toQString(c->second), r});
        }
    }
    endResetModel();
}

QVariant StatsTableModel::cell(int rowIndex, int column, int role) const
{
    const Row& row = m_rows[static_cast<std::size_t>(rowIndex)];
    const auto& r = row.r;
    const ThresholdFlag flag = thresholdFlag(r, m_set->stats.minN);
    if (role == FlagRole)
        return toQString(toString(flag));
    if (role == Qt::BackgroundRole && column == Flag)
        return QBrush(flagColor(flag));
    if (role == Qt::TextAlignmentRole && column >= Median && column <= N)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && row.category) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole && column == Median)
        return tr("Bootstrapped median of %1 pooled node values (%2 resamples)").arg(r.n).arg(m_set->stats.resamples);
    const bool display = role == Qt::DisplayRole;
    const bool sort = role == Qt::UserRole;
    if (!display && !sort)
        return {};
    switch (column) {
    case Kind:
        return row.category ? tr("category") : tr("concept");
    case Name:
        return row.name;
    case Category:
        return row.categoryName;
    case Median:
        return display ? QVariant(num(r.median)) : QVariant(r.median);
    case SE:
        return display ? QVariant(num(r.se)) : QVariant(r.se);
    case CiLow:
        return display ? QVariant(num(r.lo)) : QVariant(r.lo);
    case CiHigh:
        return display ? QVariant(num(r.hi)) : QVariant(r.hi);
    case N:
        return QVariant::fromValue<qlonglong>(r.n);
    case Flag:
        return display ? QVariant(flagText(flag, m_set->stats.minN)) : QVariant(r.median);
    default:
        return {};
    }
}

QVariant StatsTableModel::header(int column) const
{
    static const char* names[] = {"Kind",       "Name",        "Category", "Median",   "SE",
                                  "95% CI low", "95% CI high", "n",        "Threshold"};
    return tr(names[column]);
}

StatsFilterProxy::StatsFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(Qt::UserRole);
    setFilterKeyColumn(StatsTableModel::Name);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void StatsFilterProxy::setKinds(Kinds k)
{
    m_kinds = k;
    invalidateFilter();
}

bool StatsFilterProxy::filterAcceptsRow(int row, const QModelIndex& parent) const
{
    if (m_kinds != Kinds::All) {
        const QString kind = sourceModel()->index(row, StatsTableModel::Kind, parent).data().toString();
        const bool isCategory = kind == StatsTableModel::tr("category");
        if ((m_kinds == Kinds::Categories) != isCategory)
            return false;
    }
    return QSortFilterProxyModel::filterAcceptsRow(row, parent);
}

// ---------------------------------------------------------------- ComparisonTableModel

ComparisonTableModel::ComparisonTableModel(QObject* parent) : TableModel(parent)
{
}

void ComparisonTableModel::setResultSets(std::vector<BatchResultPtr> sets, bool markBest)
{
    beginResetModel();
    m_sets = std::move(sets);
    m_rows.clear();
    const std::size_t n = m_sets.size();
    {
        Row g{Kind::Global, tr("Global AsC-Eval"), std::vector<std::optional<BootstrapResult>>(n)};
        for (std::size_t k = 0; k < n; ++k) {
            if (const auto& v = m_sets[k]->stats.globalAscEval) {
                BootstrapResult r;
                r.median = *v;
                r.n = static_cast<int64_t>(m_sets[k]->stats.concepts.size());
                g.values[k] = r;
            }
        }
        m_rows.push_back(std::move(g));
    }
    auto addRows = [&](Kind kind, auto member) {
        std::set<std::string> names;
        for (const auto& s : m_sets)
            for (const auto& [name, r] : s->stats.*member)
                names.insert(name);
        for (const auto& name : names) {
            Row row{kind, toQString(name), std::vector<std::optional<BootstrapResult>>(n)};
            for (std::size_t k = 0; k < n; ++k) {
                const auto& m = m_sets[k]->stats.*member;
                if (auto it = m.find(name); it != m.end())
                    row.values[k] = it->second;
            }
            m_rows.push_back(std::move(row));
        }
    };
    addRows(Kind::Category, &CorpusStats::categories);
    addRows(Kind::Concept, &CorpusStats::concepts);
    for (auto& row : m_rows) {
        double best = -1;
        int bestCount = 0;
        for (std::size_t k = 0; k < n; ++k) {
            if (!row.values[k])
                continue;
            if (row.values[k]->median > best) {
                best = row.values[k]->median;
                row.best = static_cast<int>(k);
                bestCount = 1;
            } else if (row.values[k]->median == best) {
                ++bestCount;
            }
        }
        if (n < 2 || bestCount != 1 || !markBest)
            row.best = -1; // nothing to compare, a tie, or values that are not comparable
    }
    endResetModel();
}

QVariant ComparisonTableModel::cell(int rowIndex, int col, int role) const
{
    const Row& row = m_rows[static_cast<std::size_t>(rowIndex)];
    if (col < 2) {
        if (role == Qt::DisplayRole || role == Qt::UserRole) {
            if (col == 1)
                return row.name;
            return row.kind == Kind::Global     ? tr("global")
                   : row.kind == Kind::Category ? tr("category")
                                                : tr("concept");
        }
        if (role == Qt::FontRole && row.kind != Kind::Concept) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    }
    const int k = col - 2;
    const auto& v = row.values[static_cast<std::size_t>(k)];
    const bool best = row.best == k;
    switch (role) {
    case Qt::DisplayRole:
        if (!v)
            return QStringLiteral("—");
        if (row.kind == Kind::Global)
            return num(v->median) + (best ? QStringLiteral(" ★") : QString());
        return num(v->median) + QStringLiteral(" ± ") + num(v->se) + (best ? QStringLiteral(" ★") : QString());
    case Qt::UserRole:
        return v ? QVariant(v->median) : QVariant();
    case BestRole:
        return best;
    case Qt::FontRole:
        if (best) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::BackgroundRole:
        if (!v)
            return {};
        // The global value is a mean of medians, flagged by its value; a category or concept by its count too.
        return QBrush(flagColor(row.kind == Kind::Global
                                    ? thresholdFlag(v->median)
                                    : thresholdFlag(*v, m_sets[static_cast<std::size_t>(k)]->stats.minN)));
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (v && row.kind != Kind::Global)
            return tr("median %1, SE %2, 95% CI [%3, %4], n = %5; %6")
                .arg(num(v->median), num(v->se), num(v->lo), num(v->hi))
                .arg(v->n)
                .arg(flagText(thresholdFlag(*v, m_sets[static_cast<std::size_t>(k)]->stats.minN),
                              m_sets[static_cast<std::size_t>(k)]->stats.minN));
        return {};
    default:
        return {};
    }
}

QVariant ComparisonTableModel::header(int column) const
{
    if (column == 0)
        return tr("Kind");
    if (column == 1)
        return tr("Concept / category");
    return m_sets[static_cast<std::size_t>(column - 2)]->label;
}

// ---------------------------------------------------------------- SnippetTableModel

SnippetTableModel::SnippetTableModel(QObject* parent) : TableModel(parent)
{
}

void SnippetTableModel::setResultSet(BatchResultPtr set)
{
    reset([&] { m_set = std::move(set); });
}

const SnippetRow* SnippetTableModel::snippet(int row) const
{
    if (!m_set || row < 0 || row >= static_cast<int>(m_set->snippets.size()))
        return nullptr;
    return &m_set->snippets[static_cast<std::size_t>(row)];
}

QVariant SnippetTableModel::cell(int row, int column, int role) const
{
    const SnippetRow* s = snippet(row);
    if (!s)
        return {};
    if (role == Qt::ToolTipRole)
        return s->message.empty() ? tr("Click to open this snippet in the Interactive tab") : toQString(s->message);
    if (role == Qt::ForegroundRole && !s->ok)
        return QBrush(QColor(0xb0, 0x20, 0x20));
    if (role == Qt::TextAlignmentRole && column != Id && column != Status)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    const bool display = role == Qt::DisplayRole;
    if (!display && role != Qt::UserRole)
        return {};
    auto opt = [&](const std::optional<double>& v) -> QVariant {
        if (!v)
            return display ? QVariant(QStringLiteral("n/a")) : QVariant(-1.0);
        return display ? QVariant(num(*v)) : QVariant(*v);
    };
    switch (column) {
    case Index:
        return QVariant::fromValue<qlonglong>(s->index);
    case Id:
        return toQString(s->id);
    case Language:
        return toQString(s->language);
    case Status:
        return s->ok ? tr("ok") : tr("error");
    case AscEval:
        return opt(s->ascEval);
    case CrossEntropy:
        return opt(s->crossEntropy);
    case Tokens:
        return s->tokens;
    case AstNodes:
        return s->astNodes;
    case AstLevels:
        return s->astLevels;
    case Cyclomatic:
        return s->cyclomatic;
    case Windowed:
        return display ? QVariant(s->windowed ? tr("yes") : QString()) : QVariant(s->windowed ? 1 : 0);
    default:
        return {};
    }
}

QVariant SnippetTableModel::header(int column) const
{
    static const char* names[] = {"#",      "Id",        "Language",   "Status",     "AsC-Eval", "Cross-entropy",
                                  "Tokens", "AST nodes", "AST levels", "Cyclomatic", "Windowed"};
    return tr(names[column]);
}

// ---------------------------------------------------------------- CSV

bool writeModelCsv(const QAbstractItemModel* model, const QString& file, QString* error)
{
    auto field = [](QString s) {
        if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')) ||
            s.contains(QLatin1Char('\r'))) {
            s.replace(QStringLiteral("\""), QStringLiteral("\"\""));
            return QStringLiteral("\"") + s + QStringLiteral("\"");
        }
        return s;
    };
    QString out;
    const int cols = model->columnCount();
    for (int c = 0; c < cols; ++c)
        out += (c ? QStringLiteral(",") : QString()) + field(model->headerData(c, Qt::Horizontal).toString());
    out += QStringLiteral("\r\n");
    for (int r = 0; r < model->rowCount(); ++r) {
        for (int c = 0; c < cols; ++c)
            out += (c ? QStringLiteral(",") : QString()) + field(model->index(r, c).data().toString());
        out += QStringLiteral("\r\n");
    }
    QSaveFile f(file);
    if (!f.open(QIODevice::WriteOnly) || f.write(out.toUtf8()) < 0 || !f.commit()) {
        if (error)
            *error = QObject::tr("Cannot write %1: %2").arg(file, f.errorString());
        return false;
    }
    return true;
}

} // namespace ascviz::ui
