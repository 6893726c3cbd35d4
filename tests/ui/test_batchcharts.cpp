// The Batch tab's on-screen category chart shows every category name in full (no "Functional Progr…"):
// the text the axis draws equals the category name, at a typical size of the tab and with many categories.
#include "views/batchcharts.h"

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

QTEST_MAIN(TestBatchCharts)
#include "test_batchcharts.moc"
