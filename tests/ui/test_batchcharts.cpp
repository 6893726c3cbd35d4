// The Batch tab's on-screen category chart shows every category name in full (no "Functional Progr…"):
// the text the axis draws equals the category name, at a typical size of the tab and with many categories.
// Its box plot is the exported figure's (figure/charts.h: one BoxStats for the screen and the export).
#include "views/batchcharts.h"

#include "ascviz/figure/charts.h"

#include <QBoxPlotSeries>
#include <QBoxSet>

#include <QApplication>
#include <QBarCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QTest>

using namespace ascviz;
using namespace ascviz::ui;

class TestBatchCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void categoryLabelsAreNotCut();
    void distributionBoxesAreTheFiguresBoxes();
};

namespace {

const QStringList kCategories = {QStringLiteral("Data Structures"),
                                 QStringLiteral("Decision"),
                                 QStringLiteral("Exceptions"),
                                 QStringLiteral("Functional Programming"),
                                 QStringLiteral("Iterative"),
                                 QStringLiteral("Natural Language"),
                                 QStringLiteral("Object-Oriented Design"),
                                 QStringLiteral("Operators"),
                                 QStringLiteral("Scope"),
                                 QStringLiteral("Testing")};

BatchResultPtr resultSet(const QString& label, double base)
{
    auto s = std::make_shared<BatchResultSet>();
    s->label = label;
    s->stats.minN = 1;
    int i = 0;
    for (const auto& c : kCategories) {
        BootstrapResult r;
        r.median = base + 0.02 * i++;
        r.lo = r.median - 0.05;
        r.hi = r.median + 0.05;
        r.n = 50;
        s->stats.categories[c.toStdString()] = r;
    }
    return s;
}

// The plain texts of the text items in the chart's scene (QtCharts draws axis labels as QGraphicsTextItem)
// that lie inside the view (a label pushed out of the chart is not readable either).
QStringList drawnTexts(QChartView& view)
{
    QStringList out;
    const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect().adjusted(-1, -1, 1, 1);
    for (auto* item : view.scene()->items())
        if (auto* t = dynamic_cast<QGraphicsTextItem*>(item);
            t && t->isVisible() && visible.contains(t->sceneBoundingRect()))
            out << t->toPlainText();
    return out;
}

} // namespace

void TestBatchCharts::categoryLabelsAreNotCut()
{
    for (const QSize size : {QSize(900, 800), QSize(900, 600), QSize(900, 450), QSize(700, 420)}) {
        QChartView view(new QChart);
        view.resize(size);
        buildCategoryChart(view.chart(),
                           {resultSet(QStringLiteral("model-a"), 0.4), resultSet(QStringLiteral("model-b"), 0.5)});
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTest::qWait(50);
        auto* axis = qobject_cast<QBarCategoryAxis*>(view.chart()->axes(Qt::Horizontal).first());
        QVERIFY(axis);
        QCOMPARE(axis->categories(), kCategories);
        const QStringList texts = drawnTexts(view);
        for (const auto& c : kCategories)
            QVERIFY2(texts.contains(c),
                     qPrintable(QStringLiteral("category \"%1\" is not drawn in full at %2x%3; drawn: %4")
                                    .arg(c)
                                    .arg(size.width())
                                    .arg(size.height())
                                    .arg(texts.join(QStringLiteral(" | ")))));
        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(
                view.grab().save(QString::fromLocal8Bit(shots) +
                                 QStringLiteral("/batch-categories-%1x%2.png").arg(size.width()).arg(size.height())));
    }
}

void TestBatchCharts::distributionBoxesAreTheFiguresBoxes()
{
    // 0 1 1 1: quartiles 0.75 and 1, the lower fence 0.375, so 0 is an outlier and the lower whisker stops at
    // the box (q1), as the exported figure draws it (the screen once drew it at 1, inside the box).
    const std::vector<std::vector<std::optional<double>>> values = {
        {0.0, 1.0, std::nullopt, 1.0, 1.0}, {0.2, 0.4, 0.9, 0.5, 0.45, 0.3}, {}, {std::nullopt}};
    std::vector<BatchResultPtr> sets;
    for (std::size_t k = 0; k < values.size(); ++k) {
        auto s = std::make_shared<BatchResultSet>();
        s->label = QStringLiteral("run %1").arg(k);
        s->stats.snippetAscEval = values[k];
        sets.push_back(s);
    }
    QChart chart;
    buildDistributionChart(&chart, sets);
    auto* series = qobject_cast<QBoxPlotSeries*>(chart.series().first());
    QVERIFY(series);
    QCOMPARE(series->count(), 4);
    for (int k = 0; k < 4; ++k) {
        const auto v = snippetValues(*sets[std::size_t(k)]);
        const QBoxSet* box = series->boxSets().at(k);
        QCOMPARE(box->label(), QStringLiteral("run %1 (n=%2)").arg(k).arg(v.size()));
        const BoxStats b = v.empty() ? BoxStats{} : boxStats(v); // boxStats refuses no values: an empty box
        QCOMPARE(box->at(QBoxSet::LowerExtreme), b.whiskerLo);
        QCOMPARE(box->at(QBoxSet::LowerQuartile), b.q1);
        QCOMPARE(box->at(QBoxSet::Median), b.median);
        QCOMPARE(box->at(QBoxSet::UpperQuartile), b.q3);
        QCOMPARE(box->at(QBoxSet::UpperExtreme), b.whiskerHi);
    }
    QCOMPARE(series->boxSets().at(0)->at(QBoxSet::LowerExtreme), 0.75);
    QCOMPARE(series->boxSets().at(0)->at(QBoxSet::UpperExtreme), 1.0);
}

QTEST_MAIN(TestBatchCharts)
#include "test_batchcharts.moc"
