// Comparisons that say what differs (issue 28): two hand-made results databases of one model with θ = median
// and θ = max, opened in the shared ResultStore. The Batch tab's Compare models table, its charts and the
// Analysis page's heat map name each run with the setting that differs and warn; runs of different corpora
// get no best mark. Concepts with fewer values than the minimum count are flagged "too few".
#include "dbcontent.h"
#include "models/batchmodels.h"
#include "pages/analysis/analysispage.h"
#include "pages/batch/batchpage.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/batchcharts.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QMap>
#include <QPixmap>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

QString handMadeRun(const QTemporaryDir& dir, const char* file, Aggregation theta, double value,
                    const std::string& fingerprint = "1111111122223333")
{
    const QString path = dir.filePath(QString::fromLatin1(file));
    testdata::writeComparedRun(path.toStdString(), theta, value, fingerprint);
    return path;
}

struct Services {
    ModelService models;
    ResultStore results{models.jobs()};
};

QString headerOf(const ComparisonTableModel* m, int column)
{
    return m->headerData(column, Qt::Horizontal).toString();
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Before the fix both columns were headed "ascviz-tiny-code (theta-median.db)" / "(theta-max.db)" — the
    // file names — and nothing said θ differs: the header and warning assertions below fail on that code.
    void thetaMedianVersusMaxIsLabelledAndWarned()
    {
        const QString a = handMadeRun(m_dir, "theta-median.db", Aggregation::Median, 0.444);
        const QString b = handMadeRun(m_dir, "theta-max.db", Aggregation::Max, 0.755);
        Services services;
        BatchPage tab(&services.models, &services.results);
        AnalysisPage analysis(&services.models, &services.results);
        tab.resize(1300, 900);
        QSignalSpy loaded(&tab, &BatchPage::resultsLoaded);
        tab.openResults(a);
        tab.openResults(b);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        auto* cmp = tab.comparisonModel();
        QCOMPARE(cmp->columnCount(), 4);
        QCOMPARE(headerOf(cmp, 2), QStringLiteral("ascviz-tiny-code (θ=median)"));
        QCOMPARE(headerOf(cmp, 3), QStringLiteral("ascviz-tiny-code (θ=max)"));
        // θ differs: allowed, labelled, warned; no best is marked (issue 44: values of different θ are not
        // the same measure, so 0.755 > 0.444 says nothing about the models).
        QCOMPARE(tab.comparisonWarning(),
                 QStringLiteral("Warning: the compared runs differ in θ (median vs max): each run is labelled with "
                                "its setting; a difference in their values is not the model's alone."));
        QCOMPARE(cmp->index(0, 1).data().toString(), QStringLiteral("Global AsC-Eval"));
        QCOMPARE(cmp->index(0, 2).data().toString(), QStringLiteral("0.444"));
        QCOMPARE(cmp->index(0, 3).data().toString(), QStringLiteral("0.755"));
        QVERIFY(!cmp->index(0, 3).data(ComparisonTableModel::BestRole).toBool());
        // The charts carry the same labels.
        QBarSeries* bars = nullptr;
        for (auto* series : tab.categoryChart()->series())
            if (series->objectName() == QLatin1String(kBarSeriesName))
                bars = qobject_cast<QBarSeries*>(series);
        QVERIFY(bars);
        QCOMPARE(bars->barSets().at(0)->label(), QStringLiteral("ascviz-tiny-code (θ=median)"));
        QCOMPARE(bars->barSets().at(1)->label(), QStringLiteral("ascviz-tiny-code (θ=max)"));
        const auto boxes = tab.distributionChart()->series();
        QVERIFY(!boxes.isEmpty());
        auto* box = qobject_cast<QBoxPlotSeries*>(boxes.first());
        QVERIFY(box);
        QCOMPARE(box->boxSets().at(1)->label(), QStringLiteral("ascviz-tiny-code (θ=max) (n=1)"));
        // The Analysis page's heat map and its warning.
        QVERIFY(analysis.heatmapSvg().contains(QStringLiteral(">ascviz-tiny-code (θ=median)<")));
        QVERIFY(analysis.heatmapSvg().contains(QStringLiteral(">ascviz-tiny-code (θ=max)<")));
        QCOMPARE(analysis.heatmapWarning(), tab.comparisonWarning());

        // Too few: escape_sequence (n = 1, 0.873) is "too few", identifier (n = 12, 0.444) erroneous.
        tab.setCurrentSet(0);
        auto* stats = tab.statsModel();
        QMap<QString, QString> flags;
        QMap<QString, QString> shown;
        for (int r = 0; r < stats->rowCount(); ++r) {
            const QString name = stats->index(r, StatsTableModel::Name).data().toString();
            flags[name] = stats->index(r, 0).data(StatsTableModel::FlagRole).toString();
            shown[name] = stats->index(r, StatsTableModel::Flag).data().toString();
        }
        QCOMPARE(flags.value(QStringLiteral("escape_sequence")), QStringLiteral("too_few"));
        QCOMPARE(shown.value(QStringLiteral("escape_sequence")), QStringLiteral("too few (n < 10)"));
        QCOMPARE(flags.value(QStringLiteral("identifier")), QStringLiteral("erroneous"));
        QCOMPARE(flags.value(QStringLiteral("Natural Language")), QStringLiteral("erroneous"));
        QVERIFY2(tab.flagLegend().contains(QStringLiteral("too few: fewer than 10 values")),
                 qPrintable(tab.flagLegend()));
        // The category chart marks no category: Natural Language has 12 values in both runs.
        auto* axis = qobject_cast<QBarCategoryAxis*>(tab.categoryChart()->axes(Qt::Horizontal).first());
        QCOMPARE(axis->categories(), QStringList({QStringLiteral("Natural Language")}));

        // Screenshots for review (saved into ASCVIZ_SCREENSHOT_DIR when set, as the other GUI tests do): the
        // Compare models tab, the Statistics tab (its legend) and the heat map.
        const auto shot = [](QWidget* w, const char* name) {
            const QPixmap pixmap = w->grab();
            QVERIFY(!pixmap.isNull());
            const QString dir = qEnvironmentVariable("ASCVIZ_SCREENSHOT_DIR");
            if (dir.isEmpty())
                return;
            const QString png = QDir(dir).filePath(QString::fromLatin1(name));
            QVERIFY(pixmap.save(png));
            qInfo("screenshot: %s", qPrintable(png));
        };
        tab.resultTabs()->setCurrentIndex(3); // Compare models
        shot(&tab, "ascviz-compare-theta.png");
        tab.resultTabs()->setCurrentIndex(0);
        shot(&tab, "ascviz-compare-stats.png");
        analysis.resize(1000, 500);
        analysis.tabs()->setCurrentIndex(2);
        shot(&analysis, "ascviz-compare-heatmap.png");
    }

    // Different corpora: not comparable; labelled by the corpus, warned, and no best marked.
    void differentCorporaAreNotRanked()
    {
        const QString a = handMadeRun(m_dir, "corpus-one.db", Aggregation::Median, 0.444);
        const QString b = handMadeRun(m_dir, "corpus-two.db", Aggregation::Median, 0.755, "3333333344445555");
        Services services;
        BatchPage tab(&services.models, &services.results);
        QSignalSpy loaded(&tab, &BatchPage::resultsLoaded);
        tab.openResults(a);
        tab.openResults(b);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        auto* cmp = tab.comparisonModel();
        QCOMPARE(headerOf(cmp, 2), QStringLiteral("ascviz-tiny-code (corpus=11111111)"));
        QCOMPARE(headerOf(cmp, 3), QStringLiteral("ascviz-tiny-code (corpus=33333333)"));
        QVERIFY2(tab.comparisonWarning().startsWith(QStringLiteral("Not comparable: the compared runs differ in "
                                                                   "corpus (11111111 vs 33333333)")),
                 qPrintable(tab.comparisonWarning()));
        for (int r = 0; r < cmp->rowCount(); ++r)
            for (int c = 2; c < 4; ++c)
                QVERIFY(!cmp->index(r, c).data(ComparisonTableModel::BestRole).toBool());
        QCOMPARE(cmp->index(0, 3).data().toString(), QStringLiteral("0.755"));
        // Closing one: nothing left to compare, no warning, the label is the model name.
        tab.removeResults(1);
        QCOMPARE(tab.comparisonWarning(), QString());
        QCOMPARE(headerOf(cmp, 2), QStringLiteral("ascviz-tiny-code"));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestCompare)
#include "test_compare.moc"
