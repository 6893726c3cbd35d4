// The Analysis page offscreen: a results database made by a real batch (tiny fixture model), opened in the
// shared ResultStore; Analyse runs AsC-Causal and PERPLEXED as a job; the tables equal core's numbers; the
// scatter follows the selected row; the heat map covers every open database; CSV, SVG and LaTeX exports.
#include "figureexport_util.h"
#include "models/analysismodels.h"
#include "pages/analysis/analysispage.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "testdata.h"

#include "ascviz/analysis/causal.h"
#include "ascviz/analysis/perplexed.h"
#include "ascviz/batch/batch.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ascviz;
using namespace ascviz::ui;

class TestAnalysisPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Two runs of the same 30 snippets: the tiny fixture model with median and with mean aggregation.
        Corpus corpus = readCorpus(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
        auto model = LanguageModel::load((testdata::dataDir() / "fixtures" / "models" / "tiny-gpt2").string());
        for (const char* name : {"a.db", "b.db"}) {
            BatchOptions bo;
            bo.limit = 30;
            bo.aggregation = QByteArray(name) == "a.db" ? Aggregation::Median : Aggregation::Mean;
            runBatch(*model, corpus, m_dir.filePath(QString::fromLatin1(name)).toStdString(), bo);
        }
    }

    void analyseShowsTablesScatterHeatmapAndExports()
    {
        ModelService models;
        ResultStore results(models.jobs());
        AnalysisPage page(&models, &results);
        page.resize(1300, 900);
        QSignalSpy loaded(&results, &ResultStore::batchSetLoaded);
        results.openBatchSet(m_dir.filePath(QStringLiteral("a.db")));
        results.openBatchSet(m_dir.filePath(QStringLiteral("b.db")));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        // The heat map: Global + categories × two models.
        QVERIFY(page.heatmapSvg().contains(QLatin1String("<svg")));
        QCOMPARE(page.heatmapSvg().count(QLatin1String("data-column=\"1\"")),
                 page.heatmapSvg().count(QLatin1String("data-column=\"0\"")));
        QVERIFY(page.heatmapSvg().count(QLatin1String("data-column=\"0\"")) >= 3);

        page.setCurrentSet(0);
        page.setBy(CausalBy::Category);
        QSignalSpy done(&page, &AnalysisPage::analysisFinished);
        page.analyse();
        QVERIFY(page.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        QAbstractItemModelTester t1(page.causalModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        // The same numbers as core on the same database.
        const auto db = ResultsDb::open(m_dir.filePath(QStringLiteral("a.db")).toStdString());
        const CausalReport ref = analyzeCausal(db, CausalBy::Category);
        QCOMPARE(page.causalModel()->rowCount(), int(1 + ref.groups.size()));
        QCOMPARE(page.causalModel()->data(page.causalModel()->index(0, CausalTableModel::N)).toInt(), ref.global.n);
        if (ref.global.hasEffect)
            QCOMPARE(page.causalModel()
                         ->data(page.causalModel()->index(0, CausalTableModel::Effect), Qt::UserRole)
                         .toDouble(),
                     ref.global.effect);
        const PerplexedReport pref = analyzePerplexed(db);
        QCOMPARE(page.ceModel(0)->rowCount(), int(pref.worstTokens.size()));
        QCOMPARE(page.ceModel(2)->data(page.ceModel(2)->index(0, CeTableModel::MeanCe), Qt::UserRole).toDouble(),
                 pref.worstLabels.front().second.mean);
        QVERIFY(page.callsText().contains(QStringLiteral("%1 calls").arg(pref.internalCalls.calls)));

        // The scatter follows the selected row: one point per snippet of that group.
        const auto points = [&] {
            for (auto* s : page.scatterView()->chart()->series())
                if (auto* sc = qobject_cast<QScatterSeries*>(s))
                    return sc->count();
            return -1;
        };
        QCOMPARE(points(), ref.global.n);
        page.selectCausalRow(1);
        const QString key = page.causalModel()->key(1);
        QCOMPARE(points(), ref.groups.at(key.toStdString()).n);

        // Exports.
        QString err;
        const QString csv = m_dir.filePath(QStringLiteral("causal.csv"));
        page.tabs()->setCurrentIndex(0);
        QVERIFY2(page.exportTo(ExportKind::Csv, csv, &err), qPrintable(err));
        QFile c(csv);
        QVERIFY(c.open(QIODevice::ReadOnly));
        QCOMPARE(c.readAll().count('\n'), 1 + page.causalModel()->rowCount());
        const QString svg = m_dir.filePath(QStringLiteral("scatter.svg"));
        QVERIFY2(page.exportTo(ExportKind::Svg, svg, &err), qPrintable(err));
        QVERIFY(QFile(svg).size() > 500);
        // The scatter export is the figure room's scatterFigure: vector, 85 mm, the points and axis captions.
        QCOMPARE(uitest::checkFigureExport(svg, false), QString());
        {
            QFile sf(svg);
            QVERIFY(sf.open(QIODevice::ReadOnly));
            const QByteArray sd = sf.readAll();
            QVERIFY(sd.contains(">cross-entropy<"));
            QCOMPARE(sd.count("<title>("), qsizetype(ref.groups.at(key.toStdString()).n)); // one dot per snippet
        }
        const QString spdf = m_dir.filePath(QStringLiteral("scatter.pdf"));
        QVERIFY2(page.exportTo(ExportKind::Svg, spdf, &err), qPrintable(err));
        QCOMPARE(uitest::checkFigureExport(spdf, true), QString());
        const QString tex = m_dir.filePath(QStringLiteral("causal.tex"));
        QVERIFY2(page.exportLatex(tex, &err), qPrintable(err));
        QFile t(tex);
        QVERIFY(t.open(QIODevice::ReadOnly));
        QVERIFY(t.readAll().contains("\\toprule"));
        page.tabs()->setCurrentIndex(1);
        const QString pcsv = m_dir.filePath(QStringLiteral("perplexed.csv"));
        QVERIFY2(page.exportTo(ExportKind::Csv, pcsv, &err), qPrintable(err));
        QVERIFY(!page.canExport(ExportKind::Svg));
        page.tabs()->setCurrentIndex(2);
        const QString hsvg = m_dir.filePath(QStringLiteral("heat.svg"));
        QVERIFY2(page.exportTo(ExportKind::Svg, hsvg, &err), qPrintable(err));
        QVERIFY(page.exportLatex(m_dir.filePath(QStringLiteral("cmp.tex")), &err));

        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
            page.show();
            for (int i : {0, 1, 2}) {
                page.tabs()->setCurrentIndex(i);
                QTest::qWait(50);
                QVERIFY(page.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/analysis-%1.png").arg(i)));
            }
            QFile::remove(QString::fromLocal8Bit(shots) + QStringLiteral("/analysis-scatter.svg"));
            QFile::copy(svg, QString::fromLocal8Bit(shots) + QStringLiteral("/analysis-scatter.svg"));
        }
        // Removing every set empties the heat map.
        results.removeBatchSet(1);
        results.removeBatchSet(0);
        QVERIFY(page.heatmapSvg().isEmpty());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestAnalysisPage)
#include "test_analysispage.moc"
