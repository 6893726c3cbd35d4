#include "models/tablemodel.h"

namespace ascviz::ui {

TableModel::TableModel(QObject* parent) : QAbstractTableModel(parent)
{
}

int TableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : rows();
}

int TableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : columns();
}

QVariant TableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    return cell(index.row(), index.column(), role);
}

QVariant TableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columns())
        return QAbstractTableModel::headerData(section, o, role);
    return header(section);
}

QVector<int> rowsIn(const QVector<int>& wanted, int n, bool all)
{
    QVector<int> out;
    if (all) {
        out.reserve(n);
        for (int i = 0; i < n; ++i)
            out.push_back(i);
        return out;
    }
    for (int i : wanted)
        if (i >= 0 && i < n)
            out.push_back(i);
    return out;
}

QVariant numberCell(const std::optional<double>& v, int role, int decimals)
{
    if (role == Qt::UserRole)
        return v ? QVariant(*v) : QVariant();
    if (role != Qt::DisplayRole)
        return {};
    return v ? QVariant(QString::number(*v, 'f', decimals)) : QVariant(QStringLiteral("n/a"));
}

} // namespace ascviz::ui
