#include "views/tableview.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace ascviz::ui {

QTableView* makeResultTable(QWidget* parent)
{
    auto* v = new QTableView(parent);
    v->setSortingEnabled(true);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::SingleSelection);
    v->setAlternatingRowColors(true);
    v->verticalHeader()->setVisible(false);
    v->verticalHeader()->setDefaultSectionSize(22);
    v->horizontalHeader()->setStretchLastSection(true);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    return v;
}

QTableView* makeSortedResultTable(QWidget* parent, QAbstractItemModel* model)
{
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(Qt::UserRole);
    QTableView* v = makeResultTable(parent);
    v->setSortingEnabled(false);
    v->setModel(proxy);
    v->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    v->setSortingEnabled(true);
    return v;
}

} // namespace ascviz::ui
