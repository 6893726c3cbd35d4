// The Batch tab offscreen: a real run with the tiny fixture model on the worker thread, tables and chart
// series, pause/cancel/resume, opening two DBs for a model comparison, snippet opening and exports.
#include "common/appidentity.h"
#include "models/batchmodels.h"
#include "pages/batch/batchpage.h"
#include "pages/galeras/galeraspanel.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "testdata.h"
#include "views/batchcharts.h"

#include "ascviz/batch/batch.h"

#include <QAbstractItemModelTester>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

QString data(const QString& rel)
{
    return QString::fromStdString((ascviz::testdata::dataDir() / rel.toStdString()).string());
}
QString res(const QString& rel)
{
    return QString::fromStdString((ascviz::testdata::resourcesDir() / rel.toStdString()).string());
}
QString tinyModel()
{
    return data(QStringLiteral("fixtures/models/tiny-gpt2"));
}
QString sample()
{
    return res(QStringLiteral("corpus/stdlib-functions.jsonl"));
}

template <class T> QList<T*> seriesOf(QChart* chart, const char* objectName = nullptr)
{
    QList<T*> out;
    for (auto* s : chart->series())
        if (auto* t = qobject_cast<T*>(s); t && (!objectName || t->objectName() == QLatin1String(objectName)))
            out << t;
    return out;
}

// The services a page needs (the main window owns them in the application).
struct Services {
    ModelService models;
    ResultStore results{models.jobs()};
};

} // namespace

class TestBatchTab : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void runShowsTablesAndCharts()
    {
        Services services;
        BatchPage tab(&services.models, &services.results);
        tab.resize(1400, 900);
        tab.setCorpusPath(sample());
        tab.setModelDir(tinyModel());
        const QString db = m_dir.filePath(QStringLiteral("gui.db"));
        tab.setDbPath(db);
        tab.setLimit(6);
        QSignalSpy finished(&tab, &BatchPage::runFinished);
        QSignalSpy loaded(&tab, &BatchPage::resultsLoaded);
        QSignalSpy progress(tab.progressBar(), &QProgressBar::valueChanged);
        tab.start();
        QVERIFY(tab.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 120000);
        QCOMPARE(finished.count(), 1);
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QVERIFY(loaded.first().at(1).toBool());
        QVERIFY(!tab.isRunning());
        QVERIFY2(!tab.canResume(), "a complete run has nothing to resume");
        tab.resume();
        QVERIFY(!tab.isRunning());
        QVERIFY(tab.statusText().contains(QLatin1String("complete run")));
        QVERIFY(progress.count() >= 1);
        QCOMPARE(tab.progressBar()->value(), 6);
        QCOMPARE(tab.progressBar()->maximum(), 6);

        // Independent statistics of the same DB.
        const auto dbh = ResultsDb::open(db.toStdString());
        QCOMPARE(dbh.counts().snippets, 6);
        QCOMPARE(dbh.runInfo().dtype, std::string("float32")); // the default precision
        const auto stats = computeStats(dbh);
        QCOMPARE(tab.resultSets().size(), std::size_t(1));
        QAbstractItemModelTester t1(tab.statsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(tab.snippetModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(tab.comparisonModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(tab.statsModel()->rowCount(), int(stats.categories.size() + stats.concepts.size()));
        QCOMPARE(tab.snippetModel()->rowCount(), 6);
        QVERIFY(!stats.categories.empty());

        // Kinds filter and name filter through the proxy.
        tab.statsProxy()->setKinds(StatsFilterProxy::Kinds::Categories);
        QCOMPARE(tab.statsProxy()->rowCount(), int(stats.categories.size()));
        tab.statsProxy()->setKinds(StatsFilterProxy::Kinds::Concepts);
        QCOMPARE(tab.statsProxy()->rowCount(), int(stats.concepts.size()));
        tab.statsProxy()->setKinds(StatsFilterProxy::Kinds::All);
        tab.statsProxy()->setFilterFixedString(QStringLiteral("identifier"));
        QVERIFY(tab.statsProxy()->rowCount() >= 1);
        tab.statsProxy()->setFilterFixedString(QString());
        // Sorted by median (descending) through the proxy's numeric role.
        tab.statsProxy()->sort(StatsTableModel::Median, Qt::DescendingOrder);
        for (int r = 1; r < tab.statsProxy()->rowCount(); ++r)
            QVERIFY(tab.statsProxy()->index(r - 1, StatsTableModel::Median).data(Qt::UserRole).toDouble() >=
                    tab.statsProxy()->index(r, StatsTableModel::Median).data(Qt::UserRole).toDouble());
        // The table's median of "identifier" is the core statistic.
        for (int r = 0; r < tab.statsModel()->rowCount(); ++r) {
            if (tab.statsModel()->index(r, StatsTableModel::Name).data().toString() == QLatin1String("identifier") &&
                tab.statsModel()->index(r, StatsTableModel::Kind).data().toString() == QLatin1String("concept"))
                QCOMPARE(tab.statsModel()->index(r, StatsTableModel::Median).data(Qt::UserRole).toDouble(),
                         stats.concepts.at("identifier").median);
        }

        // Category chart: one bar set with a bar per category, one error bar per bar, two thresholds.
        const auto bars = seriesOf<QBarSeries>(tab.categoryChart(), kBarSeriesName);
        QCOMPARE(bars.size(), 1);
        QCOMPARE(bars.first()->barSets().size(), 1);
        QCOMPARE(bars.first()->barSets().first()->count(), int(stats.categories.size()));
        QCOMPARE(seriesOf<QLineSeries>(tab.categoryChart(), kErrorBarName).size(), int(stats.categories.size()));
        QCOMPARE(seriesOf<QLineSeries>(tab.categoryChart(), kThresholdName).size(), 2);
        // Distribution chart: one box per model.
        const auto boxes = seriesOf<QBoxPlotSeries>(tab.distributionChart(), kBoxSeriesName);
        QCOMPARE(boxes.size(), 1);
        QCOMPARE(boxes.first()->count(), 1);

        // Clicking a snippet asks to open its code with the run's model.
        QSignalSpy open(&tab, &BatchPage::openSnippetRequested);
        tab.openSnippet(2);
        QCOMPARE(open.count(), 1);
        const auto corpus = readCorpus(sample().toStdString());
        QCOMPARE(open.first().at(0).toString(), QString::fromStdString(corpus.entries[2].code));
        QVERIFY(open.first().at(1).toString().endsWith(QLatin1String("tiny-gpt2")));

        // Exports.
        const QString svg = m_dir.filePath(QStringLiteral("categories.svg"));
        QString err;
        QVERIFY2(tab.exportChartSvg(tab.categoryChartView(), svg, &err), qPrintable(err));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray svgText = f.readAll();
        QVERIFY(svgText.contains("<svg"));
        // The paper figure of the figure room (85 mm, text as text), not a grab of the widget.
        QVERIFY(svgText.contains("width=\"85mm\""));
        QVERIFY(!svgText.contains("<image"));
        QVERIFY(svgText.contains(">AsC-Eval by category (bootstrapped"));
        const QString pdf = m_dir.filePath(QStringLiteral("distribution.pdf"));
        QVERIFY2(tab.exportChartSvg(tab.distributionChartView(), pdf, &err), qPrintable(err));
        QFile p(pdf);
        QVERIFY(p.open(QIODevice::ReadOnly));
        QVERIFY(p.read(5) == "%PDF-");
        // Export chart works on the chart tabs only (issue 54: on the Galeras tab it wrote the categories chart).
        auto* exportChart = tab.findChild<QPushButton*>(QStringLiteral("exportChart"));
        QVERIFY(exportChart);
        tab.resultTabs()->setCurrentWidget(tab.categoryChartView());
        QVERIFY(exportChart->isEnabled());
        tab.resultTabs()->setCurrentWidget(tab.findChild<GalerasRunPanel*>());
        QVERIFY(!exportChart->isEnabled());
        tab.resultTabs()->setCurrentIndex(0);
        QVERIFY(!exportChart->isEnabled());
        const QString csv = m_dir.filePath(QStringLiteral("stats.csv"));
        QVERIFY2(tab.exportCurrentTableCsv(csv, &err), qPrintable(err));
        QFile c(csv);
        QVERIFY(c.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = c.readAll().split('\n');
        QVERIFY(lines.first().startsWith("Kind,Name,Category,Median"));
        QCOMPARE(lines.size() - 2, int(stats.categories.size() + stats.concepts.size())); // header + trailing ""

        // A second Start into the same file is refused without touching it.
        tab.start();
        QVERIFY(!tab.isRunning());
        QVERIFY(tab.statusText().contains(QLatin1String("already exists")));

        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
            tab.resultTabs()->setCurrentIndex(1);
            tab.show();
            QVERIFY(tab.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/batch-tab-run.png")));
        }
    }

    void cancelPauseAndResume()
    {
        Services services;
        BatchPage tab(&services.models, &services.results);
        tab.setCorpusPath(sample());
        tab.setModelDir(tinyModel());
        const QString db = m_dir.filePath(QStringLiteral("cancel.db"));
        tab.setDbPath(db);
        tab.setLimit(200); // large enough that the run cannot finish before the GUI sees a report
        QSignalSpy finished(&tab, &BatchPage::runFinished);
        QSignalSpy loaded(&tab, &BatchPage::resultsLoaded);
        bool cancelled = false;
        connect(tab.progressBar(), &QProgressBar::valueChanged, &tab, [&](int v) {
            if (v >= 1 && !cancelled) {
                cancelled = true;
                tab.cancel();
            }
        });
        tab.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QVERIFY(finished.first().at(0).toBool());
        QVERIFY(cancelled);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        const int partial = static_cast<int>(ResultsDb::open(db.toStdString()).counts().snippets);
        QVERIFY2(partial >= 1 && partial < 200, qPrintable(QString::number(partial)));
        QCOMPARE(tab.snippetModel()->rowCount(), partial);
        QVERIFY(tab.canResume());

        // Resume continues; pause holds the runner, resume releases it.
        tab.resume();
        QVERIFY(tab.isRunning());
        tab.pause();
        QVERIFY(tab.isPaused());
        QTest::qWait(300);
        const int atPause = static_cast<int>(ResultsDb::open(db.toStdString()).counts().snippets);
        QTest::qWait(400);
        QCOMPARE(static_cast<int>(ResultsDb::open(db.toStdString()).counts().snippets), atPause);
        QVERIFY(tab.isRunning());
        tab.resume();
        QVERIFY(!tab.isPaused());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 120000);
        QVERIFY(finished.at(1).at(0).toBool());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 30000);
        const auto counts = ResultsDb::open(db.toStdString()).counts();
        QCOMPARE(counts.snippets, 200);
        QCOMPARE(tab.snippetModel()->rowCount(), 200);
        QCOMPARE(tab.resultSets().size(), std::size_t(1)); // reloaded, not added twice
        QVERIFY(!tab.canResume());
    }

    void chosenPrecisionIsUsedAndRecorded()
    {
        Services services;
        BatchPage tab(&services.models, &services.results);
        tab.setCorpusPath(sample());
        tab.setModelDir(tinyModel());
        const QString db = m_dir.filePath(QStringLiteral("bf16.db"));
        tab.setDbPath(db);
        tab.setLimit(2);
        tab.setPrecision(QStringLiteral("bfloat16"));
        QSignalSpy finished(&tab, &BatchPage::runFinished);
        tab.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        const auto dbh = ResultsDb::open(db.toStdString());
        QCOMPARE(dbh.runInfo().dtype, std::string("bfloat16"));
        QCOMPARE(dbh.counts().snippets, 2);
    }

    void defaultResultsFolder()
    {
        setApplicationIdentity();
        Services services;
        BatchPage tab(&services.models, &services.results);
        tab.setModelDir(QStringLiteral("/models/acme-coder"));
        const QString suggested = tab.suggestDbPath();
        QVERIFY2(suggested.startsWith(userDataDir() + QStringLiteral("/results/acme-coder-")), qPrintable(suggested));
        QVERIFY2(!suggested.contains(QLatin1String("AsC-Viz/AsC-Viz")), qPrintable(suggested));
        QVERIFY(suggested.endsWith(QLatin1String(".db")));
        QVERIFY(!tab.dbPath().isEmpty());
    }

    void twoDatabasesCompareModels()
    {
        // Two runs with two different tiny models, made by the core runner.
        const auto corpus = readCorpus(sample().toStdString());
        const QString a = m_dir.filePath(QStringLiteral("cmp-gpt2.db"));
        const QString b = m_dir.filePath(QStringLiteral("cmp-neo.db"));
        LoadOptions lo;
        lo.device = ascviz::Device::Cpu;
        BatchOptions opts;
        opts.limit = 4;
        runBatch(*LanguageModel::load(tinyModel().toStdString(), lo), corpus, a.toStdString(), opts);
        runBatch(*LanguageModel::load(data(QStringLiteral("fixtures/models/tiny-gpt_neo")).toStdString(), lo), corpus,
                 b.toStdString(), opts);

        Services services;

        BatchPage tab(&services.models, &services.results);
        tab.resize(1400, 900);
        QSignalSpy loaded(&tab, &BatchPage::resultsLoaded);
        tab.openResults(a);
        tab.openResults(b);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        QCOMPARE(tab.resultSets().size(), std::size_t(2));
        auto* cmp = tab.comparisonModel();
        QAbstractItemModelTester tester(cmp, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(cmp->columnCount(), 4); // kind, name, two models
        QStringList headers = {cmp->headerData(2, Qt::Horizontal).toString(),
                               cmp->headerData(3, Qt::Horizontal).toString()};
        // In the order they were opened, whichever load finished first.
        QCOMPARE(headers, QStringList({QStringLiteral("tiny-gpt2"), QStringLiteral("tiny-gpt_neo")}));
        QCOMPARE(cmp->index(0, 1).data().toString(), QStringLiteral("Global AsC-Eval"));
        int marked = 0;
        for (int r = 0; r < cmp->rowCount(); ++r) {
            const bool b2 = cmp->index(r, 2).data(ComparisonTableModel::BestRole).toBool();
            const bool b3 = cmp->index(r, 3).data(ComparisonTableModel::BestRole).toBool();
            QVERIFY(!(b2 && b3));
            if (b2 || b3) {
                ++marked;
                const double v2 = cmp->index(r, 2).data(Qt::UserRole).toDouble();
                const double v3 = cmp->index(r, 3).data(Qt::UserRole).toDouble();
                QVERIFY(b2 ? v2 > v3 : v3 > v2);
            }
        }
        QVERIFY(marked > 0);
        // The global row matches each set's statistic.
        for (int k = 0; k < 2; ++k) {
            const auto& set = tab.resultSets()[static_cast<std::size_t>(k)];
            QCOMPARE(cmp->index(0, 2 + k).data(Qt::UserRole).toDouble(), *set->stats.globalAscEval);
        }
        const auto bars = seriesOf<QBarSeries>(tab.categoryChart(), kBarSeriesName);
        QCOMPARE(bars.size(), 1);
        QCOMPARE(bars.first()->barSets().size(), 2);
        QCOMPARE(seriesOf<QBoxPlotSeries>(tab.distributionChart(), kBoxSeriesName).first()->count(), 2);

        // Switching the shown set changes the statistics table.
        tab.setCurrentSet(0);
        QCOMPARE(tab.statsModel()->resultSet(), tab.resultSets()[0]);
        tab.setCurrentSet(1);
        QCOMPARE(tab.statsModel()->resultSet(), tab.resultSets()[1]);

        // A file that is not a results DB is reported, not added.
        const QString junk = m_dir.filePath(QStringLiteral("junk.db"));
        QFile j(junk);
        QVERIFY(j.open(QIODevice::WriteOnly));
        j.write("not a database at all, just some bytes to fill the header of a file....");
        j.close();
        tab.openResults(junk);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 3, 30000);
        QVERIFY(!loaded.last().at(1).toBool());
        QCOMPARE(tab.resultSets().size(), std::size_t(2));

        // Closing one leaves a one-model comparison.
        tab.removeResults(1);
        QCOMPARE(tab.resultSets().size(), std::size_t(1));
        QCOMPARE(cmp->columnCount(), 3);
        QCOMPARE(seriesOf<QBarSeries>(tab.categoryChart(), kBarSeriesName).first()->barSets().size(), 1);

        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
            tab.show();
            for (int i : {1, 2, 3}) {
                tab.resultTabs()->setCurrentIndex(i);
                QTest::qWait(50);
                QVERIFY(tab.grab().save(QString::fromLocal8Bit(shots) +
                                        QStringLiteral("/batch-tab-compare-%1.png").arg(i)));
            }
        }
    }

    // A corpus of several languages with the default "Per snippet" language: each snippet is parsed in its
    // own language, and the statistics table shows all of them or one language under its own table.
    void mixedLanguageRunShowsEachLanguage()
    {
        const QString corpus = m_dir.filePath(QStringLiteral("mixed.jsonl"));
        {
            QFile f(corpus);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"id\": \"p\", \"code\": \"def f(x):\\n    return x + 1\\n\"}\n"
                    "{\"id\": \"j\", \"language\": \"java\", \"code\": \"int f(int x) {\\n    return x + 1;\\n}\\n\"}\n"
                    "{\"id\": \"j2\", \"language\": \"Java\", \"code\": \"int g() {\\n    return 2;\\n}\\n\"}\n");
        }
        Services services;
        BatchPage tab(&services.models, &services.results);
        tab.setCorpusPath(corpus);
        tab.setModelDir(tinyModel());
        tab.setDbPath(m_dir.filePath(QStringLiteral("mixed.db")));
        QCOMPARE(tab.language(), QString()); // "Per snippet"
        QSignalSpy loaded(&tab, &BatchPage::resultsLoaded);
        tab.start();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 120000);
        QCOMPARE(tab.snippetModel()->rowCount(), 3);
        QCOMPARE(tab.snippetModel()->data(tab.snippetModel()->index(1, SnippetTableModel::Language)).toString(),
                 QStringLiteral("java"));
        QComboBox* box = tab.statsLanguageBox();
        QCOMPARE(box->count(), 3); // all, java, python
        QVERIFY(box->isEnabled());
        const auto& stats = tab.resultSets().front()->stats;
        QVERIFY(stats.mixedLanguages);
        QCOMPARE(tab.statsModel()->rowCount(), int(stats.categories.size() + stats.concepts.size()));
        box->setCurrentIndex(box->findData(QStringLiteral("java")));
        const LanguageStats& java = stats.languages.at(0);
        QCOMPARE(java.language, std::string("java"));
        QCOMPARE(tab.statsModel()->rowCount(), int(java.categories.size() + java.concepts.size()));
        bool sawReturn = false;
        for (int r = 0; r < tab.statsModel()->rowCount(); ++r) {
            const QString name = tab.statsModel()->data(tab.statsModel()->index(r, StatsTableModel::Name)).toString();
            QVERIFY2(!name.contains(QLatin1Char(':')), qPrintable(name)); // unqualified within one language
            sawReturn = sawReturn || name == QLatin1String("return_statement");
        }
        QVERIFY(sawReturn);
        box->setCurrentIndex(0);
        QCOMPARE(tab.statsModel()->rowCount(), int(stats.categories.size() + stats.concepts.size()));
        // A Java snippet opens in Java.
        QSignalSpy open(&tab, &BatchPage::openSnippetRequested);
        tab.openSnippet(1);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.first().at(2).toString(), QStringLiteral("java"));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestBatchTab)
#include "test_batchtab.moc"
