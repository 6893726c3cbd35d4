// The base of every read-only table model of the GUI (tokens, nodes, statistics, comparison, snippets, causal
// estimates, cross-entropy lists): the subclass counts its rows and columns and answers one cell and one header
// at a time; the flat-table rule (no children), the index checks and the header plumbing live here once.
// Numeric columns answer Qt::UserRole with the raw number: the sort role of the proxies (views/tableview.h).
#pragma once
#include <QAbstractTableModel>
#include <QVector>

#include <optional>

namespace ascviz::ui {

class TableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    int rowCount(const QModelIndex& parent = {}) const final;
    int columnCount(const QModelIndex& parent = {}) const final;
    // cell() for an index of this model in range; an invalid QVariant otherwise.
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    // header() for a horizontal section in range and Qt::DisplayRole; Qt's default otherwise.
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const final;

protected:
    explicit TableModel(QObject* parent = nullptr);
    virtual int rows() const = 0;
    virtual int columns() const = 0;
    // row in [0, rows()), column in [0, columns()).
    virtual QVariant cell(int row, int column, int role) const = 0;
    virtual QVariant header(int column) const = 0;

    // Replaces the model's content: fill() runs between beginResetModel() and endResetModel().
    template <class Fill> void reset(Fill&& fill)
    {
        beginResetModel();
        fill();
        endResetModel();
    }
};

// The entries of `wanted` inside [0, n), in their order; every index 0 … n − 1 when `all`.
QVector<int> rowsIn(const QVector<int>& wanted, int n, bool all);

// A number cell: the value itself for Qt::UserRole (an invalid QVariant when there is none), its text with
// `decimals` decimals (or "n/a") for Qt::DisplayRole.
QVariant numberCell(const std::optional<double>& v, int role, int decimals = 3);

} // namespace ascviz::ui
