// A core error's remedy in the GUI's words (common/errortext.h): the phrasing of each Remedy, the job
// tracker's failure message, and the Batch page's controller, whose refusals and failures name buttons and
// choices, never a command-line flag.
#include "uitest_util.h"

#include "common/errortext.h"
#include "common/textpos.h"
#include "pages/batch/batchrunner.h"
#include "run/runcontroller.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"

#include "ascviz/base/error.h"
#include "ascviz/results/resultsdb.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

// What a GUI message must never show: a command-line flag or a hexadecimal fingerprint.
bool namesCliWords(const QString& message)
{
    return message.contains(QRegularExpression(QStringLiteral("(^|\\s)--[a-z]"))) ||
           message.contains(QRegularExpression(QStringLiteral("\\b[0-9a-f]{16}\\b")));
}

Error errorWith(Remedy remedy)
{
    ErrorContext where("/data/run.db");
    where.remedy = remedy;
    return InputError("results database /data/run.db was interrupted", where);
}

} // namespace

class TestErrorText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void remedyPhrasing()
    {
        QCOMPARE(remedyForGui(Remedy::None), QString());
        QCOMPARE(remedyForGui(Remedy::Resume), QStringLiteral("press Resume to continue it"));
        QCOMPARE(remedyForGui(Remedy::NewOutput), QStringLiteral("choose another results file"));
        QCOMPARE(remedyForGui(Remedy::Resume | Remedy::NewOutput),
                 QStringLiteral("press Resume to continue it, or choose another results file"));
        for (Remedy r : {Remedy::Resume, Remedy::NewOutput, Remedy::Resume | Remedy::NewOutput})
            QVERIFY(!namesCliWords(remedyForGui(r)));
    }

    void errorMessageAppendsTheRemedy()
    {
        QCOMPARE(errorMessage(errorWith(Remedy::Resume)),
                 QStringLiteral("results database /data/run.db was interrupted; press Resume to continue it"));
        // No remedy, or not a core error: what() alone.
        QCOMPARE(errorMessage(errorWith(Remedy::None)),
                 QStringLiteral("results database /data/run.db was interrupted"));
        QCOMPARE(errorMessage(std::runtime_error("plain")), QStringLiteral("plain"));
        // UTF-8 in what() arrives intact.
        QCOMPARE(errorMessage(InputError("caf\xc3\xa9")), QStringLiteral("caf\u00e9"));
    }

    void jobTrackerPhrasesTheRemedy()
    {
        JobTracker jobs;
        QSignalSpy failed(&jobs, &JobTracker::jobFailed);
        jobs.start(QStringLiteral("db"), QStringLiteral("a"),
                   [](JobContext&) { throw errorWith(Remedy::Resume | Remedy::NewOutput); });
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        const QString message = failed.first().at(1).toString();
        QVERIFY2(message.endsWith(QLatin1String("; press Resume to continue it, or choose another results file")),
                 qPrintable(message));
    }

    // The controller refuses a new run into an existing file, and a resume with nothing to resume, in the
    // GUI's words; a run it starts ends with core's summary.
    void batchControllerRefusalsAndRun()
    {
        QTemporaryDir dir;
        const std::filesystem::path corpus = toUtf8(dir.filePath(QStringLiteral("c.jsonl")));
        std::ofstream(corpus) << R"({"id": "a", "code": "def f(x):\n    return x + 1\n"})"
                              << "\n"
                              << R"({"id": "b", "code": "x = 2\n"})"
                              << "\n";
        const std::filesystem::path db = toUtf8(dir.filePath(QStringLiteral("r.db")));
        ModelService models;
        RunController run(&models);
        QSignalSpy status(&run, &RunController::statusChanged);
        QSignalSpy finished(&run, &RunController::finished);

        BatchJob job;
        job.corpus = corpus;
        job.db = db;
        job.options.modelDir = uitest::tinyModel().string();
        job.load.device = ascviz::Device::Cpu;
        job.options.resume = true; // nothing there yet
        QVERIFY(!run.start(batchRunJob(job)));
        QVERIFY(!run.isRunning());
        QVERIFY(status.last().at(2).toBool());
        QVERIFY2(status.last().at(1).toString().contains(QLatin1String("nothing to resume")),
                 qPrintable(status.last().at(1).toString()));

        job.options.resume = false;
        QVERIFY(run.start(batchRunJob(job))); // loads the model first, then runs
        QVERIFY(run.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        const auto end = std::any_cast<BatchRunEnd>(finished.first().at(0).value<RunEnd>().detail);
        QVERIFY2(end.ok(), qPrintable(end.error));
        QVERIFY(end.started);
        QCOMPARE(end.summary.stored, 2);
        QCOMPARE(end.summary.total, 2);
        QVERIFY(end.summary.complete);
        QCOMPARE(ResultsDb::open(db).counts().snippets, 2);
        QVERIFY(!run.isRunning());
        QVERIFY(!batchRunIncomplete(db)); // complete: nothing to resume
        QTRY_VERIFY_WITH_TIMEOUT(!models.isHeld(), 10000);

        // Again into the same file: refused, the remedy as the page's buttons.
        QVERIFY(!run.start(batchRunJob(job)));
        const QString refusal = status.last().at(1).toString();
        QVERIFY2(refusal.contains(QLatin1String("already exists")) &&
                     refusal.contains(QLatin1String("press Resume to continue it, or choose another results file")),
                 qPrintable(refusal));
        QVERIFY2(!namesCliWords(refusal), qPrintable(refusal));
        QCOMPARE(finished.count(), 1);
    }

    // runBatchJob's own check: a new run into an existing file ends in an error with the GUI's remedy.
    void runnerErrorNamesButtons()
    {
        QTemporaryDir dir;
        const std::filesystem::path corpus = toUtf8(dir.filePath(QStringLiteral("c.jsonl")));
        std::ofstream(corpus) << R"({"id": "a", "code": "x = 1\n"})"
                              << "\n";
        const std::filesystem::path db = toUtf8(dir.filePath(QStringLiteral("exists.db")));
        std::ofstream(db) << "x";
        LoadOptions lo;
        lo.device = ascviz::Device::Cpu;
        const auto model = LanguageModel::load(uitest::tinyModel(), lo);
        BatchJob job;
        job.corpus = corpus;
        job.db = db;
        JobContext ctx;
        const BatchRunEnd end = runBatchJob(*model, job, ctx, RunControls{});
        QVERIFY(!end.ok());
        QVERIFY2(end.error.contains(QLatin1String("already exists; press Resume to continue it")),
                 qPrintable(end.error));
        QVERIFY2(!namesCliWords(end.error), qPrintable(end.error));
        QCOMPARE(end.summary.db, db);
    }
};

QTEST_MAIN(TestErrorText)
#include "test_errortext.moc"
