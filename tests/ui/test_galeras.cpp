// Galeras in the GUI (docs/galeras.md): the Batch page's Galeras tab runs a generation run with the loaded
// model (progress, cancel, resume: nothing lost or twice) and shows its treatment table; the Analysis page's
// Treatments tab analyses a runs database.
#include "pages/analysis/analysispage.h"
#include "pages/batch/batchpage.h"
#include "pages/galeras/galeraspanel.h"
#include "run/runbar.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "uitest_util.h"

#include "ascviz/galeras/runsdb.h"

#include <QDir>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace ascviz;
using namespace ascviz::ui;

class TestGaleras : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runCancelResumeAndAnalyse()
    {
        QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/ascviz-galeras-ui-XXXXXX"));
        QVERIFY(dir.isValid());
        ModelService models;
        ResultStore results{models.jobs()};
        QSignalSpy loaded(&models, &ModelService::modelLoaded);
        models.loadModel(uitest::tinyModelQ());
        QVERIFY(loaded.wait(60000));

        BatchPage batch(&models, &results);
        auto* panel = batch.findChild<GalerasRunPanel*>();
        QVERIFY(panel);
        const QString db = dir.filePath(QStringLiteral("runs.db"));
        panel->setDbPath(db);
        panel->setLimit(4);
        panel->setMaxNewTokens(8);
        QSignalSpy ended(panel, &GalerasRunPanel::runEnded);
        QVERIFY(panel->start(false));
        QVERIFY(models.isHeld()); // the run holds the one model
        const auto rows = [&]() -> std::size_t {
            try {
                return GalerasDb::open(db.toStdString()).doneKeys().size();
            } catch (const std::exception&) {
                return 0; // not made yet
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT(rows() >= 1, 60000);
        panel->cancel();
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.last().at(0).toBool(), false);
        QVERIFY(panel->status().contains(QStringLiteral("Resume")));
        QVERIFY(panel->findChild<RunBar*>()->canResume()); // stopped midway: there is something to resume
        const auto before = GalerasDb::open(db.toStdString()).doneKeys().size();
        QVERIFY(before >= 1 && before < 12);
        QVERIFY(!models.isHeld());

        QVERIFY(panel->start(true));
        QVERIFY(ended.wait(120000));
        QCOMPARE(ended.last().at(0).toBool(), true);
        QCOMPARE(GalerasDb::open(db.toStdString()).doneKeys().size(), std::size_t(12)); // 4 items x 3 treatments
        QVERIFY(!panel->findChild<RunBar*>()->canResume()); // issue 54: Resume stayed enabled after Done
        QVERIFY(panel->analysis()->text().contains(QStringLiteral("T1")));
        QVERIFY(panel->analysis()->text().contains(QStringLiteral("T2")));

        AnalysisPage analysis(&models, &results);
        auto* view = analysis.findChild<GalerasAnalysisView*>();
        QVERIFY(view);
        analysis.tabs()->setCurrentWidget(view);
        view->setDbPath(db);
        view->setOutcome(QStringLiteral("bleu4"));
        QVERIFY(view->analyze());
        QVERIFY(view->text().contains(QStringLiteral("outcome bleu4")));
        QVERIFY(!analysis.canExport(ExportKind::Csv));
        view->setDbPath(dir.filePath(QStringLiteral("missing.db")));
        QVERIFY(!view->analyze());
        QVERIFY(view->text().contains(QStringLiteral("missing.db")));
        view->setDbPath(db);
        QVERIFY(view->analyze());

        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
            auto* tabs = batch.findChild<QTabWidget*>();
            if (tabs)
                tabs->setCurrentWidget(panel);
            batch.resize(1200, 900);
            analysis.resize(1200, 700);
            QVERIFY(batch.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/galeras-batch-tab.png")));
            QVERIFY(analysis.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/galeras-analysis-tab.png")));
        }
    }
};

QTEST_MAIN(TestGaleras)
#include "test_galeras.moc"
