// Table models of the Batch tab (over BatchResultSet): statistics of one run, the model comparison
// (paper Table I layout) and the snippets of one run. Numeric columns return the raw number for
// Qt::UserRole (the proxies sort by it); display text is formatted.
#pragma once
#include "common/batchresults.h"
#include "models/tablemodel.h"

#include <QSortFilterProxyModel>

namespace ascviz::ui {

// Rows: every category, then every concept, of one result set.
class StatsTableModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Kind, Name, Category, Median, SE, CiLow, CiHigh, N, Flag, ColumnCount };
    // "confident" | "neutral" | "erroneous" | "too_few" (fewer values than the set's stats.minN)
    static constexpr int FlagRole = Qt::UserRole + 1;

    explicit StatsTableModel(QObject* parent = nullptr);
    void setResultSet(BatchResultPtr set);
    BatchResultPtr resultSet() const { return m_set; }
    // "" = every snippet (the run's Table I); a language id = that language's snippets under its own table.
    void setLanguage(const QString& id);
    QString language() const { return m_language; }

private:
    int rows() const override { return static_cast<int>(m_rows.size()); }
    int columns() const override { return ColumnCount; }
    QVariant cell(int row, int column, int role) const override;
    QVariant header(int column) const override;

    void rebuild();
    QString m_language;
    struct Row {
        bool category = false;
        QString name, categoryName;
        BootstrapResult r;
    };
    BatchResultPtr m_set;
    std::vector<Row> m_rows;
};

// Filters StatsTableModel rows by kind (all / categories / concepts) and by a name substring.
class StatsFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Kinds { All, Categories, Concepts };
    explicit StatsFilterProxy(QObject* parent = nullptr);
    void setKinds(Kinds k);
    Kinds kinds() const { return m_kinds; }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

private:
    Kinds m_kinds = Kinds::All;
};

// Rows: Global AsC-Eval, every category, every concept (union over the sets); columns: kind, name, one per
// model, headed by the set's label (ResultStore: the model name + the settings that differ). Each cell shows
// the bootstrapped median ± SE, coloured by its flag; the best (highest) median of a row is marked unless
// markBest is false (sets of different corpora).
class ComparisonTableModel : public TableModel {
    Q_OBJECT
public:
    static constexpr int BestRole = Qt::UserRole + 1; // bool: the best value of its row
    explicit ComparisonTableModel(QObject* parent = nullptr);
    void setResultSets(std::vector<BatchResultPtr> sets, bool markBest = true);
    int modelCount() const { return static_cast<int>(m_sets.size()); }

private:
    int rows() const override { return static_cast<int>(m_rows.size()); }
    int columns() const override { return 2 + modelCount(); }
    QVariant cell(int row, int column, int role) const override;
    QVariant header(int column) const override;

    enum class Kind { Global, Category, Concept };
    struct Row {
        Kind kind;
        QString name;
        std::vector<std::optional<BootstrapResult>> values; // per set
        int best = -1;
    };
    std::vector<BatchResultPtr> m_sets;
    std::vector<Row> m_rows;
};

class SnippetTableModel : public TableModel {
    Q_OBJECT
public:
    enum Column {
        Index,
        Id,
        Language,
        Status,
        AscEval,
        CrossEntropy,
        Tokens,
        AstNodes,
        AstLevels,
        Cyclomatic,
        Windowed,
        ColumnCount
    };
    explicit SnippetTableModel(QObject* parent = nullptr);
    void setResultSet(BatchResultPtr set);
    BatchResultPtr resultSet() const { return m_set; }
    const SnippetRow* snippet(int row) const;

private:
    int rows() const override { return m_set ? static_cast<int>(m_set->snippets.size()) : 0; }
    int columns() const override { return ColumnCount; }
    QVariant cell(int row, int column, int role) const override;
    QVariant header(int column) const override;

    BatchResultPtr m_set;
};

// Writes a model (as shown: through any proxy) as RFC 4180 CSV with a header row; false + error on failure.
bool writeModelCsv(const QAbstractItemModel* model, const QString& file, QString* error = nullptr);

} // namespace ascviz::ui
