// Issue 44 (publish step 2, the GUI items) and issue 43 item 5 (θ over children in the GUI): θ's scope in the
// Interactive and Batch forms, stored with runs and sessions; ★ only among runs of one θ and scope; the Batch
// form remembered across restarts; limits worded without command-line options.
#include "uitest_util.h"

#include "common/errortext.h"
#include "common/figureoptions.h"
#include "common/textpos.h"
#include "figureexport_util.h"
#include "mainwindow.h"
#include "models/batchmodels.h"
#include "pages/analysis/analysispage.h"
#include "pages/analysis/layertab.h"
#include "pages/batch/batchpage.h"
#include "pages/galeras/galeraspanel.h"
#include "pages/heads/headspage.h"
#include "pages/interactive/interactiveengine.h"
#include "pages/interactive/interactivepage.h"
#include "run/runcontroller.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/batchcharts.h"

#include "ascviz/base/limits.h"
#include "ascviz/batch/batch.h"
#include "ascviz/galeras/runsdb.h"
#include "ascviz/model/model.h"
#include "ascviz/results/corpus.h"
#include "ascviz/results/resultsdb.h"
#include "ascviz/results/session.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <QTextCursor>
#include <cmath>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

QString sampleCorpus()
{
    return QString::fromStdString((ascviz::testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl").string());
}

// Saves `w`'s picture as <ASCVIZ_SCREENSHOT_DIR>/<name>.png when that variable is set (screenshots to look at).
void shot(QWidget* w, const QString& name)
{
    const QByteArray dir = qgetenv("ASCVIZ_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name + QStringLiteral(".png")));
}

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

struct Services {
    ModelService models;
    ResultStore results{models.jobs()};
};

// Runs `limit` snippets of the sample corpus into `db` with θ and scope; true when it finished.
bool runPage(BatchPage& page, const QString& db, const QString& theta, const QString& scope, int limit = 3)
{
    page.setCorpusPath(sampleCorpus());
    page.setModelDir(uitest::tinyModelQ());
    page.setDbPath(db);
    page.setLimit(limit);
    page.setAggregation(theta);
    page.setAggregationScope(scope);
    QSignalSpy finished(&page, &BatchPage::runFinished);
    QSignalSpy loaded(&page, &BatchPage::resultsLoaded);
    page.start();
    return loaded.wait(120000) && finished.count() == 1 && finished.first().at(0).toBool();
}

int starredCells(const ComparisonTableModel* m)
{
    int n = 0;
    for (int r = 0; r < m->rowCount(); ++r)
        for (int c = 0; c < m->columnCount(); ++c)
            n += m->index(r, c).data(ComparisonTableModel::BestRole).toBool() ? 1 : 0;
    return n;
}

} // namespace

class TestGuiPub : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_guipub"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
    }
    void cleanupTestCase() { QSettings().clear(); }

    // The GUI has no --max-text-bytes: a text over the limit is said with its size and the limit only.
    void limitWordedWithoutOption()
    {
        try {
            limits::checkTextSize(2000, 1000, "the code");
            QFAIL("no limit error");
        } catch (const std::exception& e) {
            const QString m = errorMessage(e);
            QVERIFY2(!m.contains(QLatin1String("--max-text-bytes")), qPrintable(m));
            QVERIFY2(m.contains(QLatin1String("1,000")) || m.contains(QLatin1String("1000")), qPrintable(m));
        }
    }

    // Batch: θ over children is stored with the run (as the CLI's --aggregation-scope), and the form's fields
    // come back in a new page (a restart) from QSettings.
    void batchScopeStoredAndFormRemembered()
    {
        QSettings().clear();
        Services services;
        const QString db = m_dir.filePath(QStringLiteral("children.db"));
        {
            BatchPage page(&services.models, &services.results);
            QVERIFY(page.aggregationScopeBox());
            QCOMPARE(page.aggregationScopeBox()->currentData().toString(), QStringLiteral("tokens"));
            QVERIFY(runPage(page, db, QStringLiteral("max"), QStringLiteral("children")));
        }
        const auto run = ResultsDb::open(db.toStdString()).runInfo();
        QCOMPARE(int(run.aggregationScope), int(AggregationScope::Children));
        QCOMPARE(int(run.aggregation), int(Aggregation::Max));

        MainWindow restarted; // a new window (an application restart) attaches a new Batch page
        const BatchPage* again = restarted.page<BatchPage>();
        QCOMPARE(again->corpusPath(), sampleCorpus());
        QCOMPARE(again->modelDir(), uitest::tinyModelQ());
        QCOMPARE(again->aggregationBox()->currentText(), QStringLiteral("max"));
        QCOMPARE(again->aggregationScopeBox()->currentData().toString(), QStringLiteral("children"));
        QVERIFY2(again->dbPath() != db, "a new run needs a new results file");
        restarted.resize(1300, 850);
        restarted.tabs()->setCurrentWidget(restarted.page<BatchPage>());
        restarted.show();
        QVERIFY(QTest::qWaitForWindowExposed(&restarted));
        shot(&restarted, QStringLiteral("guipub-batch-form"));
    }

    // A stopped run says "cancelled" once its results are shown (the status line used to say only the counts).
    void cancelledRunSaysSo()
    {
        Services services;
        BatchPage page(&services.models, &services.results);
        page.setCorpusPath(sampleCorpus());
        page.setModelDir(uitest::tinyModelQ());
        page.setDbPath(m_dir.filePath(QStringLiteral("stopped.db")));
        page.setLimit(200);
        QSignalSpy loaded(&page, &BatchPage::resultsLoaded);
        bool cancelled = false;
        connect(page.progressBar(), &QProgressBar::valueChanged, &page, [&](int v) {
            if (v >= 1 && !cancelled) {
                cancelled = true;
                page.cancel();
            }
        });
        page.start();
        QVERIFY(loaded.wait(120000));
        QVERIFY(cancelled);
        QVERIFY2(page.statusText().contains(QLatin1String("cancelled")), qPrintable(page.statusText()));
        QVERIFY2(page.statusText().contains(QLatin1String("Resume")), qPrintable(page.statusText()));
    }

    // ★ marks the best value of a row only among runs of the same θ and scope.
    void bestOnlyWithinOneTheta()
    {
        Services services;
        BatchPage page(&services.models, &services.results);
        const QString a = m_dir.filePath(QStringLiteral("median.db")), b = m_dir.filePath(QStringLiteral("max.db")),
                      c = m_dir.filePath(QStringLiteral("median-children.db"));
        QVERIFY(runPage(page, a, QStringLiteral("median"), QStringLiteral("tokens")));
        QVERIFY(runPage(page, b, QStringLiteral("max"), QStringLiteral("tokens")));
        QCOMPARE(page.resultSets().size(), std::size_t(2));
        QCOMPARE(starredCells(page.comparisonModel()), 0); // median vs max: not the same numbers
        // The chart exports in the figure options' style: the caption names what differs only when asked.
        FigureExportOptions o;
        o.style.widthPt = 40 * kPointsPerMm;
        o.style.fontPt = 7;
        const QString withWarning = m_dir.filePath(QStringLiteral("bars-warning.svg")),
                      without = m_dir.filePath(QStringLiteral("bars.svg"));
        QString err;
        QVERIFY2(exportBatchFigure(BatchChart::Categories, page.resultSets(), withWarning, page.comparisonWarning(),
                                   &err, o),
                 qPrintable(err));
        o.warning = false;
        o.style.title = false;
        QVERIFY2(
            exportBatchFigure(BatchChart::Categories, page.resultSets(), without, page.comparisonWarning(), &err, o),
            qPrintable(err));
        QCOMPARE(uitest::checkFigureExport(withWarning, false, 40), QString());
        QCOMPARE(uitest::checkFigureExport(without, false, 40), QString());
        QVERIFY(!page.comparisonWarning().isEmpty());
        // (the labels name θ either way: "tiny-gpt2 (θ=max)"; the warning line says the runs differ)
        QVERIFY(readAll(withWarning).contains(QStringLiteral("differ")));
        QVERIFY(!readAll(without).contains(QStringLiteral("differ")));
        // The drawn title line (the SVG's <title> element names the figure either way).
        const QRegularExpression drawnTitle(QStringLiteral("<text[^>]*>AsC-Eval by category"));
        QVERIFY(readAll(withWarning).contains(drawnTitle));
        QVERIFY(!readAll(without).contains(drawnTitle));
        // The distribution as the screen shows it: one box per result set, titled so, no outlier dots.
        const DistributionData d = batchDistributionData(page.resultSets(), QString());
        QCOMPARE(d.runs.size(), std::size_t(2));
        QCOMPARE(d.rows.size(), std::size_t(1));
        QVERIFY(!d.outliers);
        const QString dist = m_dir.filePath(QStringLiteral("dist.pdf")),
                      distSvg = m_dir.filePath(QStringLiteral("dist.svg"));
        o = FigureExportOptions{};
        QVERIFY2(exportBatchFigure(BatchChart::Distribution, page.resultSets(), dist, QString(), &err, o),
                 qPrintable(err));
        QCOMPARE(uitest::checkFigureExport(dist, true, 85), QString());
        QVERIFY(exportBatchFigure(BatchChart::Distribution, page.resultSets(), distSvg, QString(), &err, o));
        const QString svg = readAll(distSvg);
        QVERIFY(svg.contains(QStringLiteral("one box per result set")));
        QVERIFY(!svg.contains(QStringLiteral("by category")));
        QVERIFY(svg.contains(QStringLiteral("outliers not drawn")));
        // The page's export (File › Export) takes the options it was given.
        page.resultTabs()->setCurrentWidget(page.distributionChartView());
        QVERIFY(page.exportsFigure(ExportKind::Pdf));
        QVERIFY(page.canExport(ExportKind::Pdf));
        o.style.widthPt = 178 * kPointsPerMm;
        page.setFigureOptions(o);
        QVERIFY2(page.exportTo(ExportKind::Pdf, dist, &err), qPrintable(err));
        QCOMPARE(uitest::checkFigureExport(dist, true, 178), QString());
        page.removeResults(1);
        QVERIFY(runPage(page, c, QStringLiteral("median"), QStringLiteral("children")));
        QCOMPARE(page.resultSets().size(), std::size_t(2));
        QCOMPARE(starredCells(page.comparisonModel()), 0); // tokens vs children
        // The same θ and scope over more snippets (another file): ★ is awarded again.
        page.removeResults(1);
        QVERIFY(runPage(page, m_dir.filePath(QStringLiteral("median6.db")), QStringLiteral("median"),
                        QStringLiteral("tokens"), 6));
        QCOMPARE(page.resultSets().size(), std::size_t(2));
        QVERIFY(starredCells(page.comparisonModel()) > 0);
    }

    // Interactive: θ over children re-aggregates the shown result, the summary says so, a session keeps it.
    void interactiveScope()
    {
        MainWindow w;
        QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
        w.loadModel(uitest::tinyModelQ());
        QVERIFY(loaded.wait(60000));
        auto* tab = w.page<InteractivePage>();
        QVERIFY(tab->aggregationScopeBox());
        tab->setPrompt(QStringLiteral("def f(a, b):\n    if a:\n        return a + b\n    return b * 2\n"));
        QSignalSpy shown(tab, &InteractivePage::resultShown);
        QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
        QVERIFY(shown.wait(60000));
        QCOMPARE(int(tab->shown()->eval->scope), int(AggregationScope::Tokens));
        const EvalResult tokens = *tab->shown()->eval;
        tab->aggregationScopeBox()->setCurrentIndex(
            tab->aggregationScopeBox()->findData(int(AggregationScope::Children)));
        QVERIFY(shown.wait(60000));
        const EvalResult& children = *tab->shown()->eval;
        QCOMPARE(int(children.scope), int(AggregationScope::Children));
        EvalResult expect = tokens;
        reaggregate(expect, Aggregation::Median, AggregationScope::Children);
        QCOMPARE(children.nodes.size(), expect.nodes.size());
        for (std::size_t i = 0; i < expect.nodes.size(); ++i)
            QCOMPARE(children.nodes[i].value, expect.nodes[i].value);

        w.resize(1300, 850);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        shot(&w, QStringLiteral("guipub-interactive-children"));
        // The paper figure of the AST view says which scope its values have.
        tab->showView(InteractivePage::View::Partial);
        const QString fig = m_dir.filePath(QStringLiteral("children.svg"));
        QString ferr;
        QVERIFY2(tab->exportFigure(fig, InteractivePage::View::Partial, FigureExportOptions{}, false, &ferr),
                 qPrintable(ferr));
        QVERIFY(readAll(fig).count(QStringLiteral("children")) >= 2); // title and key (lines wrap at 85 mm)
        const QString session = m_dir.filePath(QStringLiteral("children.ascviz.json"));
        QString err;
        QVERIFY2(tab->saveSession(session, &err), qPrintable(err));
        const SessionData s = readSessionFile(session.toStdString());
        QCOMPARE(int(s.aggregationScope), int(AggregationScope::Children));
    }

    // Enter after a line that opens a block indents one level deeper, by the language's registry rule.
    void indentAfterBlockOpener()
    {
        MainWindow w;
        w.show();
        auto* tab = w.page<InteractivePage>();
        tab->setLanguage(QStringLiteral("python"));
        QPlainTextEdit* e = tab->editor();
        auto typeAtEnd = [e](const QString& text, const QString& after) {
            e->setPlainText(text);
            e->setFocus();
            QTextCursor c = e->textCursor();
            c.movePosition(QTextCursor::End);
            e->setTextCursor(c);
            QTest::keyClick(e, Qt::Key_Return);
            QTest::keyClicks(e, after);
            return e->toPlainText();
        };
        QCOMPARE(typeAtEnd(QStringLiteral("def f(x):"), QStringLiteral("y")), QStringLiteral("def f(x):\n    y"));
        QCOMPARE(typeAtEnd(QStringLiteral("def f(x):\n    if x:  "), QStringLiteral("z")),
                 QStringLiteral("def f(x):\n    if x:  \n        z"));
        QCOMPARE(typeAtEnd(QStringLiteral("    y = x"), QStringLiteral("z")), QStringLiteral("    y = x\n    z"));
        tab->setLanguage(QStringLiteral("java"));
        QCOMPARE(typeAtEnd(QStringLiteral("class A {"), QStringLiteral("int x;")),
                 QStringLiteral("class A {\n    int x;"));
        QCOMPARE(typeAtEnd(QStringLiteral("x = a ? b :"), QStringLiteral("c")), QStringLiteral("x = a ? b :\nc"));
    }

    // Galeras: the paper's four confounders by default; too few items is said before a run starts, in words
    // (not OLS's "needs more observations"); the Treatments view takes the last run's database.
    void galerasConfoundersAndTooFewRows()
    {
        GalerasAnalysisView view;
        QStringList paper;
        for (const auto& c : galerasPaperConfounders())
            paper << QString::fromStdString(c);
        QCOMPARE(view.confounders(), paper);
        QCOMPARE(paper.size(), 4);
        QVERIFY(GalerasAnalysisView::tooFewRows(4, 4).isEmpty());  // 8 rows > 6 parameters
        const QString few = GalerasAnalysisView::tooFewRows(3, 4); // 6 rows, 6 parameters
        QVERIFY2(few.contains(QLatin1String("at least 4 items")), qPrintable(few));
        QVERIFY(GalerasAnalysisView::tooFewRows(3, 1).isEmpty());

        ModelService models; // no model loaded: the rows are checked first
        RunController run(&models);
        GalerasRunPanel panel(&run);
        panel.setDbPath(m_dir.filePath(QStringLiteral("few.db")));
        panel.setLimit(3);
        QVERIFY(!panel.start(false));
        QVERIFY2(panel.status().contains(QLatin1String("at least 4 items")), qPrintable(panel.status()));
        QVERIFY(!panel.status().contains(QLatin1String("observations")));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("few.db"))));
        panel.analysis()->setConfounders({QStringLiteral("nloc")});
        QVERIFY(!panel.start(false)); // enough rows now; refused for the missing model instead
        QVERIFY2(panel.status().contains(QLatin1String("model")), qPrintable(panel.status()));

        const QString runs = m_dir.filePath(QStringLiteral("runs.db"));
        QFile f(runs);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QSettings().setValue(GalerasRunPanel::lastDbKey(), runs);
        GalerasAnalysisView fresh;
        fresh.show();
        QCOMPARE(fresh.dbPath(), runs);
        panel.resize(1100, 600);
        panel.show();
        shot(&panel, QStringLiteral("guipub-galeras-panel"));
    }

    // The figure options dialog: what its widgets hold is the options struct the exports take; remembered.
    void figureOptionsDialog()
    {
        FigureOptionsDialog d;
        QCOMPARE(d.widthBox()->value(), 85.0);
        QCOMPARE(d.fontBox()->value(), 8.0);
        QVERIFY(d.titleBox()->isChecked());
        d.widthBox()->setValue(40);
        d.fontBox()->setValue(6.5);
        d.titleBox()->setChecked(false);
        d.legendBox()->setCurrentIndex(d.legendBox()->findData(QStringLiteral("bottom")));
        d.warningBox()->setChecked(false);
        const FigureExportOptions o = d.options();
        QVERIFY(std::abs(o.style.widthPt - 40 * kPointsPerMm) < 1e-9);
        QCOMPARE(o.style.fontPt, 6.5);
        QVERIFY(!o.style.title);
        QCOMPARE(int(o.style.legend), int(LegendPlacement::Bottom));
        QVERIFY(!o.warning);
        d.fontBox()->setValue(3); // below the minimum: held at 6 pt
        QCOMPARE(d.options().style.fontPt, kMinFigureFontPt);
        d.show();
        shot(&d, QStringLiteral("guipub-figure-options"));
        saveFigureExportOptions(o);
        const FigureExportOptions back = savedFigureExportOptions();
        QVERIFY(std::abs(back.style.widthPt - o.style.widthPt) < 1e-9);
        QCOMPARE(back.style.fontPt, 6.5);
        QVERIFY(!back.style.title);
        QCOMPARE(int(back.style.legend), int(LegendPlacement::Bottom));
        QVERIFY(!back.warning);
    }

    // The Interactive views, the Layers matrix and the Heads heat map export as paper figures in the options'
    // style (SVG and PDF), through the pages' exportTo as File › Export calls it.
    void viewLayerAndHeadExports()
    {
        MainWindow w;
        w.resize(1300, 800);
        w.show();
        QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
        w.loadModel(uitest::tinyModelQ());
        QVERIFY(loaded.wait(60000));
        auto* tab = w.page<InteractivePage>();
        tab->setPrompt(QStringLiteral("def f(a, b):\n    return a + b\n"));
        QSignalSpy shown(tab, &InteractivePage::resultShown);
        QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
        QVERIFY(shown.wait(60000));
        FigureExportOptions o;
        o.style.widthPt = 40 * kPointsPerMm;
        o.style.fontPt = 6;
        QVERIFY(tab->exportsFigure(ExportKind::Pdf));
        tab->setFigureOptions(o);
        QString err;
        for (auto v : {InteractivePage::View::Sequence, InteractivePage::View::Partial}) {
            tab->showView(v);
            const QString pdf = m_dir.filePath(QStringLiteral("view%1.pdf").arg(int(v)));
            const QString svg = m_dir.filePath(QStringLiteral("view%1.svg").arg(int(v)));
            QVERIFY2(tab->exportTo(ExportKind::Pdf, pdf, &err), qPrintable(err));
            QVERIFY2(tab->exportTo(ExportKind::Svg, svg, &err), qPrintable(err));
            QCOMPARE(uitest::checkFigureExport(pdf, true, 40), QString());
            QCOMPARE(uitest::checkFigureExport(svg, false, 40), QString());
        }

        auto* analysis = w.page<AnalysisPage>();
        auto* layers = w.findChild<LayerTab*>();
        QVERIFY(layers);
        analysis->tabs()->setCurrentWidget(layers);
        QVERIFY(!analysis->canExport(ExportKind::Pdf)); // nothing computed yet
        QSignalSpy computed(layers, &LayerTab::computed);
        layers->limitBox()->setValue(3);
        layers->compute();
        QVERIFY(computed.wait(120000));
        QVERIFY(computed.takeFirst().at(0).toBool());
        QVERIFY(analysis->canExport(ExportKind::Pdf) && analysis->canExport(ExportKind::Svg));
        QVERIFY(analysis->exportsFigure(ExportKind::Svg));
        QCOMPARE(analysis->suggestedExportName(ExportKind::Pdf), QStringLiteral("layers.pdf"));
        o.style.widthPt = 85 * kPointsPerMm;
        o.style.fontPt = 7;
        analysis->setFigureOptions(o);
        const QString lpdf = m_dir.filePath(QStringLiteral("layers.pdf")),
                      lsvg = m_dir.filePath(QStringLiteral("layers.svg"));
        QVERIFY2(analysis->exportTo(ExportKind::Pdf, lpdf, &err), qPrintable(err));
        QVERIFY2(analysis->exportTo(ExportKind::Svg, lsvg, &err), qPrintable(err));
        QCOMPARE(uitest::checkFigureExport(lpdf, true, 85), QString());
        QCOMPARE(uitest::checkFigureExport(lsvg, false, 85), QString());
        QVERIFY(readAll(lsvg).contains(QStringLiteral("AsC-Eval by category and layer")));

        auto* heads = w.page<HeadsPage>();
        QSignalSpy done(heads, &HeadsPage::headsAnalyzed);
        heads->setCode(QStringLiteral("def f(a, b):\n    if a:\n        return b\n    return a\n"));
        heads->analyze();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY(heads->exportsFigure(ExportKind::Pdf));
        o.style.widthPt = 40 * kPointsPerMm;
        heads->setFigureOptions(o);
        const QString hpdf = m_dir.filePath(QStringLiteral("heads.pdf")),
                      hsvg = m_dir.filePath(QStringLiteral("heads.svg"));
        QVERIFY2(heads->exportTo(ExportKind::Pdf, hpdf, &err), qPrintable(err));
        QVERIFY2(heads->exportTo(ExportKind::Svg, hsvg, &err), qPrintable(err));
        QCOMPARE(uitest::checkFigureExport(hpdf, true, 40), QString());
        QCOMPARE(uitest::checkFigureExport(hsvg, false, 40), QString());
        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QFile::copy(lsvg, QString::fromLocal8Bit(shots) + QStringLiteral("/guipub-layers-85mm.svg"));
            QFile::copy(hsvg, QString::fromLocal8Bit(shots) + QStringLiteral("/guipub-heads-40mm.svg"));
            QFile::copy(m_dir.filePath(QStringLiteral("view1.svg")),
                        QString::fromLocal8Bit(shots) + QStringLiteral("/guipub-partial-40mm.svg"));
        }
    }

    // The causal scatter on screen is a real plot (its plot area, not a ~50 px strip).
    void causalScatterRealSize()
    {
        const QString db = m_dir.filePath(QStringLiteral("causal.db"));
        {
            Corpus corpus = readCorpus(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
            auto model = LanguageModel::load(uitest::tinyModel());
            BatchOptions bo;
            bo.limit = 20;
            ascviz::runBatch(*model, corpus, db.toStdString(), bo);
        }
        ModelService models;
        ResultStore results(models.jobs());
        AnalysisPage page(&models, &results);
        page.resize(1200, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QSignalSpy loaded(&results, &ResultStore::batchSetLoaded);
        results.openBatchSet(db);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        page.setCurrentSet(0);
        QSignalSpy done(&page, &AnalysisPage::analysisFinished);
        page.analyse();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        page.selectCausalRow(0);
        QCoreApplication::processEvents();
        const QRectF plot = page.scatterView()->chart()->plotArea();
        QVERIFY2(plot.height() >= 200,
                 qPrintable(QStringLiteral("plot %1 x %2 px").arg(plot.width()).arg(plot.height())));
        QVERIFY(plot.width() >= 400);
        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(page.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/guipub-causal-scatter.png")));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestGuiPub)
#include "test_guipub.moc"
