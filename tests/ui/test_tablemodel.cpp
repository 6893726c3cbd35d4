// The table-model base (ui/models/tablemodel.h) every result table shares: a flat table (no children), cells
// only for indices of the model in range, headers for horizontal sections in range, the row filter and the
// number cells; and two of the real models through it (comparison's columns follow the runs, CE's header).
#include "models/analysismodels.h"
#include "models/batchmodels.h"
#include "models/tablemodel.h"

#include <QStandardItemModel>
#include <QTest>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

// Two columns, three rows; cell (r, c) shows r * 10 + c.
class Grid : public TableModel {
public:
    mutable int cellCalls = 0;

private:
    int rows() const override { return 3; }
    int columns() const override { return 2; }
    QVariant cell(int row, int column, int role) const override
    {
        ++cellCalls;
        return role == Qt::DisplayRole ? QVariant(row * 10 + column) : QVariant();
    }
    QVariant header(int column) const override { return QStringLiteral("col%1").arg(column); }
};

} // namespace

class TestTableModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void flatTableAndChecks()
    {
        Grid g;
        QCOMPARE(g.rowCount(), 3);
        QCOMPARE(g.columnCount(), 2);
        QCOMPARE(g.rowCount(g.index(0, 0)), 0); // a flat table: no children
        QCOMPARE(g.columnCount(g.index(0, 0)), 0);
        QCOMPARE(g.index(2, 1).data().toInt(), 21);
        QCOMPARE(g.cellCalls, 1);
        // Out of range or another model's index: no cell() call, an invalid value.
        QVERIFY(!g.data(QModelIndex()).isValid());
        QStandardItemModel other(5, 5);
        QVERIFY(!g.data(other.index(4, 4)).isValid());
        QCOMPARE(g.cellCalls, 1);
        QCOMPARE(g.headerData(1, Qt::Horizontal).toString(), QStringLiteral("col1"));
        QVERIFY(g.headerData(2, Qt::Horizontal).toString() != QStringLiteral("col2")); // out of range: Qt's default
        QCOMPARE(g.headerData(0, Qt::Vertical).toInt(), 1);                            // Qt's row numbers
    }

    void rowsAndNumbers()
    {
        QCOMPARE(rowsIn({4, -1, 1, 7, 2}, 5, false), (QVector<int>{4, 1, 2}));
        QCOMPARE(rowsIn({9}, 3, true), (QVector<int>{0, 1, 2}));
        QCOMPARE(rowsIn({}, 0, true), QVector<int>{});
        QCOMPARE(numberCell(0.12345, Qt::DisplayRole).toString(), QStringLiteral("0.123"));
        QCOMPARE(numberCell(0.5, Qt::DisplayRole, 1).toString(), QStringLiteral("0.5"));
        QCOMPARE(numberCell(0.12345, Qt::UserRole).toDouble(), 0.12345);
        QCOMPARE(numberCell(std::nullopt, Qt::DisplayRole).toString(), QStringLiteral("n/a"));
        QVERIFY(!numberCell(std::nullopt, Qt::UserRole).isValid());
        QVERIFY(!numberCell(1.0, Qt::ToolTipRole).isValid());
    }

    void realModelsThroughTheBase()
    {
        CeTableModel ce(QStringLiteral("Token"), true);
        CeStat a;
        a.mean = 1.25;
        a.std = 0.5;
        a.count = 4;
        ce.setRows({{"x y", a}});
        QCOMPARE(ce.rowCount(), 1);
        QCOMPARE(ce.headerData(CeTableModel::Name, Qt::Horizontal).toString(), QStringLiteral("Token"));
        QCOMPARE(ce.index(0, CeTableModel::Name).data().toString(), QStringLiteral("'x y'"));
        QCOMPARE(ce.index(0, CeTableModel::MeanCe).data().toString(), QStringLiteral("1.250"));
        QCOMPARE(ce.index(0, CeTableModel::MeanCe).data(Qt::UserRole).toDouble(), 1.25);
        QVERIFY(!ce.index(1, 0).isValid());

        ComparisonTableModel cmp;
        QCOMPARE(cmp.columnCount(), 2); // kind and name, no run yet
        SnippetTableModel snippets;
        QCOMPARE(snippets.rowCount(), 0); // no result set
        QCOMPARE(snippets.headerData(SnippetTableModel::AscEval, Qt::Horizontal).toString(),
                 QStringLiteral("AsC-Eval"));
    }
};

QTEST_MAIN(TestTableModel)
#include "test_tablemodel.moc"
