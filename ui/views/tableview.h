// The read-only result table the pages share: sortable, row selection, alternating rows, no row header.
#pragma once

class QTableView;
class QWidget;
class QAbstractItemModel;

namespace ascviz::ui {

QTableView* makeResultTable(QWidget* parent);
// A result table over `model` through a QSortFilterProxyModel that sorts by Qt::UserRole, shown in the
// model's own order until a header is clicked.
QTableView* makeSortedResultTable(QWidget* parent, QAbstractItemModel* model);

} // namespace ascviz::ui
