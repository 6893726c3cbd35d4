// The cluster run view offscreen: a Slurm run folder whose shard databases are written by the real batch
// runner (tiny fixture model) while the view watches; progress, a stopped shard and its hint, the merge,
// and the merged results opened in the Batch page.
#include "pages/batch/batchpage.h"
#include "pages/cluster/clusterrunview.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "testdata.h"

#include "ascviz/batch/batch.h"
#include "ascviz/cluster/slurm.h"
#include "ascviz/results/shards.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTest>

#include <atomic>

using namespace ascviz;
using namespace ascviz::ui;
namespace fs = std::filesystem;

namespace {

struct Services {
    ModelService models;
    ResultStore results{models.jobs()};
};

QString cell(const QStandardItemModel* m, int row, int col)
{
    return m->index(row, col).data().toString();
}

} // namespace

class TestClusterRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        LoadOptions o;
        o.device = ascviz::Device::Cpu;
        m_model = LanguageModel::load(testdata::fixtureModel("tiny-gpt2"), o);
        m_corpus = readCorpus(testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl");
        m_run.dir = m_tmp / "run";
        m_run.cli = "/bin/true";
        m_run.model = testdata::fixtureModel("tiny-gpt2");
        m_run.corpus = m_corpus.source;
        m_run.shards = 2;
        m_run.batchOptions = {"--limit", "6"};
        m_run.runPlanned = 6;
        writeSlurmRun(m_run);
    }

    void watchesShardsToTheMerge()
    {
        // Shard 0 complete; shard 1 stopped after one snippet (as a cancelled task leaves it).
        BatchOptions opts;
        opts.limit = 6;
        opts.shard = ShardSpec{0, 2};
        runBatch(*m_model, m_corpus, m_run.shardDb(0), opts);
        std::atomic<bool> cancel{false};
        BatchOptions cut = opts;
        cut.shard = ShardSpec{1, 2};
        cut.cancel = &cancel;
        cut.progress = [&](const BatchProgress& p) {
            if (p.done >= 1)
                cancel = true;
        };
        runBatch(*m_model, m_corpus, m_run.shardDb(1), cut);

        ClusterRunView view;
        view.setAskQueue(false);
        view.setRefreshInterval(50);
        QSignalSpy updated(&view, &ClusterRunView::statusUpdated);
        QString err;
        QVERIFY(!view.openRunFolder(QString::fromStdString((m_tmp / "nowhere").string()), &err));
        QVERIFY2(err.contains(QStringLiteral("run.json")), qPrintable(err));
        QVERIFY(view.openRunFolder(QString::fromStdString(m_run.dir.string()), &err));
        QVERIFY(updated.wait(5000));
        const QStandardItemModel* m = view.shardModel();
        QCOMPARE(m->rowCount(), 2);
        QCOMPARE(cell(m, 0, 1), QStringLiteral("3"));
        QCOMPARE(cell(m, 0, 2), QStringLiteral("3"));
        QCOMPARE(cell(m, 0, 4), QStringLiteral("complete"));
        QCOMPARE(cell(m, 1, 1), QStringLiteral("1"));
        QCOMPARE(cell(m, 1, 3), QStringLiteral("33"));
        QCOMPARE(cell(m, 1, 4), QStringLiteral("stopped"));
        QVERIFY2(view.summaryText().startsWith(QStringLiteral("4 of 6 snippets")), qPrintable(view.summaryText()));
        QVERIFY2(view.hintText().contains(QStringLiteral("slurm resume")), qPrintable(view.hintText()));
        QVERIFY(!view.openMergedButton()->isEnabled());
        grab(view, "cluster-run-stopped.png");

        // The shard continues (as its requeued task would); the view follows without being asked.
        BatchOptions more = cut;
        more.cancel = nullptr;
        more.progress = nullptr;
        more.resume = true;
        runBatch(*m_model, m_corpus, m_run.shardDb(1), more);
        QTRY_COMPARE_WITH_TIMEOUT(cell(m, 1, 4), QStringLiteral("complete"), 5000);
        QCOMPARE(cell(m, 1, 1), QStringLiteral("3"));

        // The merge job's result: the view says so, stops reading, and offers the merged results.
        mergeShards(m_run.mergedDb(), {m_run.shardDb(0), m_run.shardDb(1)});
        QTRY_VERIFY_WITH_TIMEOUT(view.isMerged(), 5000);
        QVERIFY(view.openMergedButton()->isEnabled());
        QVERIFY2(view.summaryText().contains(QStringLiteral("merged (6 snippets)")), qPrintable(view.summaryText()));
        grab(view, "cluster-run-merged.png");
        QSignalSpy open(&view, &ClusterRunView::openResultsRequested);
        QTest::mouseClick(view.openMergedButton(), Qt::LeftButton);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.at(0).at(0).toString(), QString::fromStdString(m_run.mergedDb().string()));
    }

    void batchPageOpensTheMergedResults()
    {
        Services s;
        BatchPage page(&s.models, &s.results);
        QString err;
        QVERIFY(!page.openClusterRun(QString::fromStdString((m_tmp / "nowhere").string()), &err));
        QVERIFY(!err.isEmpty());
        QVERIFY(page.openClusterRun(QString::fromStdString(m_run.dir.string()), &err));
        ClusterRunView* view = page.clusterRunView();
        QVERIFY(view);
        QVERIFY(view->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(view->isMerged(), 10000);
        QSignalSpy loaded(&page, &BatchPage::resultsLoaded);
        QTest::mouseClick(view->openMergedButton(), Qt::LeftButton);
        QVERIFY(loaded.count() > 0 || loaded.wait(10000));
        QCOMPARE(loaded.at(0).at(0).toString(), QString::fromStdString(m_run.mergedDb().string()));
        QVERIFY2(loaded.at(0).at(1).toBool(), qPrintable(loaded.at(0).at(2).toString()));
    }

private:
    // ASCVIZ_SCREENSHOT_DIR=DIR keeps a picture of the view there (to look at).
    static void grab(QWidget& w, const char* name)
    {
        const QByteArray dir = qgetenv("ASCVIZ_SCREENSHOT_DIR");
        if (dir.isEmpty())
            return;
        w.resize(640, 300);
        w.grab().save(QString::fromUtf8(dir) + QLatin1Char('/') + QLatin1String(name));
    }

    testdata::TempDir m_tmp{"ascviz-ui-cluster"};
    std::unique_ptr<LanguageModel> m_model;
    Corpus m_corpus;
    SlurmRun m_run;
};

QTEST_MAIN(TestClusterRun)
#include "test_clusterrun.moc"
