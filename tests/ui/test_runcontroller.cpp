// The GUI's one run controller (issue 40): Batch and Galeras runs both go through the Batch page's
// RunController, so a Galeras run is the window's running work (the close prompt asks for it as for a batch
// run), one run goes at a time (a second start is refused in words naming the run that is going), and Stop
// then Resume of either kind ends with the results of an uninterrupted run. With ASCVIZ_SCREENSHOT_DIR set, it
// saves the Batch page running each kind (batchpage-running-batch.png, batchpage-running-galeras.png).
#include "testdata.h"
#include "uitest_util.h"

#include "mainwindow.h"
#include "pages/batch/batchpage.h"
#include "pages/galeras/galeraspanel.h"
#include "run/runbar.h"
#include "run/runcontroller.h"
#include "services/modelservice.h"
#include "services/resultstore.h"

#include "ascviz/results/galerasdb.h"
#include "ascviz/results/resultsdb.h"

#include <QApplication>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <thread>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

QString sample()
{
    return QString::fromStdString((testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl").string());
}

// The window's grab with `page` the current tab.
void screenshot(QWidget* w, QWidget* page, const QString& name)
{
    for (auto* tabs : w->findChildren<QTabWidget*>())
        if (tabs->indexOf(page) >= 0)
            tabs->setCurrentWidget(page);
    QApplication::processEvents();
    if (const QByteArray dir = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !dir.isEmpty())
        w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name + QStringLiteral(".png"));
}

// Clicks `buttonText` in the next modal message box and keeps its text in *asked.
void answerNextBox(QString* asked, const QString& buttonText)
{
    QTimer::singleShot(0, [asked, buttonText] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        *asked = box->text();
        for (QAbstractButton* b : box->buttons())
            if (b->text() == buttonText)
                b->click();
    });
}

bool loadTinyModel(ModelService* models)
{
    QSignalSpy loaded(models, &ModelService::modelLoaded);
    models->loadModel(uitest::tinyModelQ());
    return loaded.wait(60000);
}

// Stops the controller's run (Cancel) at its first report with at least one item stored.
void stopAtFirstItem(RunController* run, RunBar* bar, bool* stopped)
{
    QObject::connect(run, &RunController::progressed, bar, [bar, stopped](const QString&, const RunProgress& p) {
        if (p.done - p.resumed >= 1 && !*stopped) {
            *stopped = true;
            bar->cancelButton()->click();
        }
    });
}

struct RowKey {
    std::string record, treatment;
    bool operator<(const RowKey& o) const { return std::tie(record, treatment) < std::tie(o.record, o.treatment); }
};

std::map<RowKey, GalerasRow> galerasRows(const QString& db)
{
    std::map<RowKey, GalerasRow> out;
    for (auto& r : GalerasDb::open(db.toStdString()).rows())
        out[{r.recordId, r.treatment}] = r;
    return out;
}

} // namespace

class TestRunController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_runcontroller"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    }

    // A job that is no corpus runner of core's: the controller gives it the engine's controls; a second start
    // while it runs is refused with the running run's words; Stop ends it after its current item.
    void oneRunAtATime()
    {
        ModelService models;
        QVERIFY(loadTinyModel(&models));
        RunController run(&models);
        QSignalSpy status(&run, &RunController::statusChanged);
        QSignalSpy finished(&run, &RunController::finished);
        const auto job = [this](const QString& kind, const QString& file) {
            RunJob j;
            j.kind = kind;
            j.what = QStringLiteral("a %1 run into %2").arg(kind, file);
            j.itemsName = QStringLiteral("items");
            j.db = m_dir.filePath(file).toStdString();
            j.work = [](const LanguageModel&, const RunControls& controls, JobContext&) {
                const RunQueue queue = pendingItems(planSlice(1000, 0, {}).mine, [](int) { return false; });
                ProgressClock clock(controls, queue.total, queue.resumed);
                const RunTally t = runItems(clock, queue, [](int k) -> std::optional<ItemOutcome> {
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                    return ItemOutcome{std::to_string(k), true, 1};
                });
                RunEnd end;
                end.cancelled = t.cancelled;
                end.done = t.resumed + t.stored;
                end.total = t.total;
                return end;
            };
            return j;
        };
        QVERIFY(run.start(job(QStringLiteral("first"), QStringLiteral("one.db"))));
        QVERIFY(run.isRunning());
        QCOMPARE(run.runningWork(), QStringLiteral("a first run into one.db"));
        QVERIFY(!run.start(job(QStringLiteral("second"), QStringLiteral("two.db"))));
        QCOMPARE(status.last().at(0).toString(), QStringLiteral("second"));
        QVERIFY(status.last().at(2).toBool());
        const QString refusal = status.last().at(1).toString();
        QVERIFY2(refusal.contains(QLatin1String("A first run into one.db is going; one run at a time")),
                 qPrintable(refusal));
        QVERIFY2(refusal.contains(QLatin1String("before starting a second run into two.db")), qPrintable(refusal));
        QCOMPARE(run.kind(), QStringLiteral("first")); // the refused job changed nothing
        QTRY_VERIFY_WITH_TIMEOUT(run.lastProgress().done >= 1, 30000);
        run.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        const auto end = finished.first().at(0).value<RunEnd>();
        QVERIFY(end.ok());
        QVERIFY(end.cancelled);
        QCOMPARE(end.kind, QStringLiteral("first"));
        QVERIFY(end.done >= 1 && end.done < 1000);
        QCOMPARE(end.total, 1000);
        QVERIFY(run.runningWork().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(!models.isHeld(), 10000);
    }

    // The window sees a Galeras run as it sees a batch run: runningWork names it, the close prompt asks, and
    // "Stop and quit" stops it. A run of one kind refuses the other's start, in words.
    void galerasRunIsTheWindowsRunningWork()
    {
        MainWindow w;
        w.resize(1280, 860);
        w.show();
        QVERIFY(loadTinyModel(w.modelService()));
        auto* page = w.page<BatchPage>();
        QVERIFY(page);
        GalerasRunPanel* panel = page->galerasPanel();
        QVERIFY(panel);

        // A batch run, paused at its first stored snippet: the page shows it, a Galeras start is refused.
        page->setCorpusPath(sample());
        page->setModelDir(uitest::tinyModelQ());
        page->setDbPath(m_dir.filePath(QStringLiteral("window-batch.db")));
        page->setLimit(200);
        bool paused = false;
        connect(page->progressBar(), &QProgressBar::valueChanged, page, [&](int v) {
            if (v >= 1 && !paused) {
                paused = true;
                page->pause();
            }
        });
        QSignalSpy batchEnded(page, &BatchPage::runFinished);
        page->start();
        QVERIFY(page->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(page->statusText().startsWith(QLatin1String("Paused at")), 60000);
        QCOMPARE(page->runningWork(), QStringLiteral("a batch run into window-batch.db"));
        screenshot(&w, page, QStringLiteral("batchpage-running-batch"));
        panel->setDbPath(m_dir.filePath(QStringLiteral("never.db")));
        panel->setLimit(4);
        QVERIFY(!panel->start(false));
        QVERIFY2(panel->status().contains(QLatin1String("A batch run into window-batch.db is going; one run at a "
                                                        "time")),
                 qPrintable(panel->status()));
        QVERIFY(!panel->runBar()->startButton()->isEnabled());
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("never.db"))));
        page->cancel();
        QTRY_COMPARE_WITH_TIMEOUT(batchEnded.count(), 1, 60000);

        // A Galeras run from the panel, paused at its first row.
        const QString db = m_dir.filePath(QStringLiteral("window-galeras.db"));
        panel->setDbPath(db);
        panel->setMaxNewTokens(8);
        page->resultTabs()->setCurrentWidget(panel);
        bool galerasPaused = false;
        connect(page->controller(), &RunController::progressed, panel, [&](const QString&, const RunProgress& p) {
            if (p.done >= 1 && !galerasPaused) {
                galerasPaused = true;
                panel->pause();
            }
        });
        QVERIFY(panel->start(false));
        QVERIFY(panel->isRunning());
        QVERIFY(!page->isRunning()); // the batch form's run is not going: the Galeras run is
        QCOMPARE(page->runningWork(), QStringLiteral("a Galeras run into window-galeras.db"));
        QTRY_VERIFY_WITH_TIMEOUT(panel->status().startsWith(QLatin1String("Paused at")), 60000);
        QVERIFY2(panel->status().contains(QLatin1String("/ 12")), qPrintable(panel->status())); // 4 items x 3
        QVERIFY(panel->runBar()->resumeButton()->isEnabled());
        screenshot(&w, page, QStringLiteral("batchpage-running-galeras"));
        page->start(); // the batch form's Start: refused while the Galeras run goes
        QVERIFY2(page->statusText().contains(QLatin1String("A Galeras run into window-galeras.db is going")),
                 qPrintable(page->statusText()));

        QString asked;
        answerNextBox(&asked, QStringLiteral("Cancel"));
        QVERIFY(!w.close());
        QVERIFY(panel->isRunning());
        QVERIFY2(asked.contains(QLatin1String("A Galeras run into window-galeras.db is still running")),
                 qPrintable(asked));
        QVERIFY(asked.contains(QLatin1String("resumed")));
        QSignalSpy galerasEnded(panel, &GalerasRunPanel::runEnded);
        answerNextBox(&asked, QStringLiteral("Stop and quit"));
        QVERIFY(w.close());
        QTRY_COMPARE_WITH_TIMEOUT(galerasEnded.count(), 1, 60000);
        QVERIFY(!panel->isRunning());
        QCOMPARE(galerasEnded.first().at(0).toBool(), false); // stopped, resumable
        QVERIFY(panel->status().contains(QLatin1String("Resume")));
    }

    // Galeras: Stop, then Resume (the run bar's buttons) ends with the rows of a run never interrupted.
    void galerasStopResumeEqualsUninterrupted()
    {
        ModelService models;
        ResultStore results{models.jobs()};
        QVERIFY(loadTinyModel(&models));
        BatchPage page(&models, &results);
        GalerasRunPanel* panel = page.galerasPanel();
        panel->setLimit(4);
        panel->setMaxNewTokens(8);
        QSignalSpy ended(panel, &GalerasRunPanel::runEnded);

        const QString whole = m_dir.filePath(QStringLiteral("galeras-whole.db"));
        panel->setDbPath(whole);
        QVERIFY(panel->start(false));
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 120000);
        QVERIFY(ended.last().at(0).toBool());

        const QString parts = m_dir.filePath(QStringLiteral("galeras-parts.db"));
        panel->setDbPath(parts);
        bool stopped = false;
        stopAtFirstItem(page.controller(), panel->runBar(), &stopped);
        panel->runBar()->startButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 120000);
        QVERIFY(stopped);
        QCOMPARE(ended.last().at(0).toBool(), false);
        const std::size_t before = GalerasDb::open(parts.toStdString()).doneKeys().size();
        QVERIFY2(before >= 1 && before < 12, qPrintable(QString::number(before)));
        QVERIFY(panel->runBar()->resumeButton()->isEnabled());
        panel->runBar()->resumeButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 3, 120000);
        QVERIFY2(ended.last().at(0).toBool(), qPrintable(ended.last().at(1).toString()));

        const auto a = galerasRows(whole), b = galerasRows(parts);
        QCOMPARE(a.size(), std::size_t(12));
        QCOMPARE(b.size(), a.size());
        for (const auto& [key, row] : a) {
            const auto it = b.find(key);
            QVERIFY(it != b.end());
            QCOMPARE(it->second.completion, row.completion);
            QCOMPARE(it->second.stop, row.stop);
            QCOMPARE(it->second.generatedTokens, row.generatedTokens);
            QVERIFY(it->second.values == row.values);
            QCOMPARE(it->second.error, row.error);
        }
    }

    // Batch: Stop, then Resume (the run bar's buttons) ends with the snippets of a run never interrupted.
    void batchStopResumeEqualsUninterrupted()
    {
        ModelService models;
        ResultStore results{models.jobs()};
        BatchPage page(&models, &results);
        page.setCorpusPath(sample());
        page.setModelDir(uitest::tinyModelQ());
        page.setLimit(200);
        QSignalSpy ended(&page, &BatchPage::runFinished);
        RunBar* bar = page.findChild<RunBar*>();
        QVERIFY(bar);
        QCOMPARE(bar->startButton()->text(), QStringLiteral("Start"));

        const QString whole = m_dir.filePath(QStringLiteral("batch-whole.db"));
        page.setDbPath(whole);
        bar->startButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 180000);
        QVERIFY2(ended.last().at(0).toBool(), qPrintable(ended.last().at(1).toString()));

        const QString parts = m_dir.filePath(QStringLiteral("batch-parts.db"));
        page.setDbPath(parts);
        bool stopped = false;
        stopAtFirstItem(page.controller(), bar, &stopped);
        bar->startButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 180000);
        QVERIFY(stopped);
        const int before = ResultsDb::open(parts.toStdString()).counts().snippets;
        QVERIFY2(before >= 1 && before < 200, qPrintable(QString::number(before)));
        QVERIFY(bar->resumeButton()->isEnabled());
        bar->resumeButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 3, 180000);
        QVERIFY2(ended.last().at(0).toBool(), qPrintable(ended.last().at(1).toString()));

        const auto a = ResultsDb::open(whole.toStdString()).snippets();
        const auto b = ResultsDb::open(parts.toStdString()).snippets();
        QCOMPARE(a.size(), std::size_t(200));
        QCOMPARE(b.size(), a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(b[i].id, a[i].id);
            QCOMPARE(b[i].ok, a[i].ok);
            QVERIFY(b[i].crossEntropy == a[i].crossEntropy);
            QVERIFY(b[i].ascEval == a[i].ascEval);
            QCOMPARE(b[i].tokens, a[i].tokens);
            QCOMPARE(b[i].astNodes, a[i].astNodes);
        }
        QVERIFY(ResultsDb::open(parts.toStdString()).runInfo().status == RunStatus::Complete);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestRunController)
#include "test_runcontroller.moc"
