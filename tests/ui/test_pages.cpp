// The architecture of the GUI: pages enumerated by the main window (one tab each; File › Export asks the
// current page), the job tracker (progress, cancel, failure), the language chooser, and one model in
// memory shared by both pages while they work at the same time.
#include "uitest_util.h"

#include "common/textpos.h"
#include "mainwindow.h"
#include "pages/analysis/analysispage.h"
#include "pages/batch/batchpage.h"
#include "pages/heads/headspage.h"
#include "pages/interactive/interactiveengine.h"
#include "pages/interactive/interactivepage.h"
#include "pages/page.h"
#include "pages/study/studypage.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/detailspanel.h"

#include "ascviz/syntax/language.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>

#include <QTest>
#include <nlohmann/json.hpp>

#include <atomic>
#include <fstream>
#include <thread>

using namespace ascviz;
using namespace ascviz::ui;

class TestPages : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void mainWindowEnumeratesPages();
    void exportMenuFollowsCurrentPage();
    void jobTrackerProgressAndCancel();
    void jobTrackerFailureAndLanes();
    void languageChooser();
    void oneModelForBothPages();
    void reloadRefusedWhileBatchHoldsModel();
};

void TestPages::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_ui_pages"));
}

void TestPages::mainWindowEnumeratesPages()
{
    MainWindow w;
    QCOMPARE(w.pages().size(), 5);
    QCOMPARE(w.tabs()->count(), w.pages().size());
    for (int i = 0; i < w.pages().size(); ++i) {
        QCOMPARE(w.tabs()->widget(i), w.pages()[i]->widget());
        QCOMPARE(w.tabs()->tabText(i), w.pages()[i]->title());
    }
    QCOMPARE(w.pages()[0], static_cast<Page*>(w.page<InteractivePage>()));
    QCOMPARE(w.pages()[1], static_cast<Page*>(w.page<BatchPage>()));
    QCOMPARE(w.pages()[2], static_cast<Page*>(w.page<AnalysisPage>()));
    QCOMPARE(w.pages()[3], static_cast<Page*>(w.page<HeadsPage>()));
    QCOMPARE(w.pages()[4], static_cast<Page*>(w.page<StudyPage>()));
    w.tabs()->setCurrentIndex(1);
    QCOMPARE(w.currentPage(), static_cast<Page*>(w.page<BatchPage>()));
    // The Interactive page's menu (View) is in the menu bar; its actions bring the page to the front.
    const QList<QAction*> views = w.page<InteractivePage>()->menuActions();
    QCOMPARE(views.size(), 3);
    views[2]->trigger();
    QCOMPARE(w.currentPage(), static_cast<Page*>(w.page<InteractivePage>()));
    QCOMPARE(int(w.page<InteractivePage>()->currentView()), int(InteractivePage::View::Complete));
}

void TestPages::exportMenuFollowsCurrentPage()
{
    MainWindow w;
    w.show();
    QVERIFY(w.exportMenu());
    for (ExportKind k : {ExportKind::Svg, ExportKind::Png, ExportKind::Json, ExportKind::Csv})
        QVERIFY(!w.exportAction(k)->isEnabled()); // nothing shown yet
    // A result on the Interactive page enables its exports (not CSV).
    QSignalSpy shown(w.page<InteractivePage>(), &InteractivePage::resultShown);
    w.page<InteractivePage>()->engine()->analyze(uitest::tokenizedText("x = 1\n"), AnalysisOrigin::Scored,
                                                 QStringLiteral("x = 1\n"));
    QVERIFY(shown.wait(20000));
    Q_EMIT w.exportMenu()->aboutToShow();
    QVERIFY(w.exportAction(ExportKind::Svg)->isEnabled());
    QVERIFY(w.exportAction(ExportKind::Png)->isEnabled());
    QVERIFY(w.exportAction(ExportKind::Json)->isEnabled());
    QVERIFY(w.exportAction(ExportKind::Html)->isEnabled());
    QVERIFY(!w.exportAction(ExportKind::Csv)->isEnabled());
    // The Batch page without results: nothing to export; the menu follows the tab at once.
    w.tabs()->setCurrentIndex(1);
    for (ExportKind k : {ExportKind::Svg, ExportKind::Png, ExportKind::Json, ExportKind::Csv, ExportKind::Html})
        QVERIFY(!w.exportAction(k)->isEnabled());
    w.tabs()->setCurrentIndex(0);
    QVERIFY(w.exportAction(ExportKind::Json)->isEnabled());
    // exportTo through the interface writes the file.
    QTemporaryDir dir;
    QString error;
    const QString json = dir.filePath(QStringLiteral("r.json"));
    QVERIFY2(w.currentPage()->exportTo(ExportKind::Json, json, &error), qPrintable(error));
    QVERIFY(QFile::exists(json));
    QVERIFY(!w.currentPage()->exportTo(ExportKind::Csv, dir.filePath(QStringLiteral("t.csv")), &error));
    // File › Export › Result as interactive HTML (issue 46, docs/share.md): the page embeds eval's document of the
    // shown result with its text, written whole (no temporary file left beside it).
    const QString html = dir.filePath(QStringLiteral("r.html"));
    QVERIFY2(w.currentPage()->exportTo(ExportKind::Html, html, &error), qPrintable(error));
    QFile page(html);
    QVERIFY(page.open(QIODevice::ReadOnly));
    const QByteArray bytes = page.readAll();
    const QByteArray open = "<script type=\"application/json\" id=\"ascviz-data\">";
    const auto a = bytes.indexOf(open);
    QVERIFY(a >= 0);
    const auto b = bytes.indexOf("</script>", a);
    const auto doc = nlohmann::json::parse(bytes.mid(a + open.size(), b - a - open.size()).toStdString());
    QCOMPARE(QString::fromStdString(doc.at("text").get<std::string>()), QStringLiteral("x = 1\n"));
    QCOMPARE(QString::fromStdString(doc.at("language").get<std::string>()), QStringLiteral("python"));
    QVERIFY(!doc.at("nodes").empty());
    QVERIFY(doc.at("tokens").at(0).contains("straddles"));       // eval's whole document, not only evalResultJson
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2); // r.json and r.html
}

void TestPages::jobTrackerProgressAndCancel()
{
    JobTracker jobs;
    QObject context;
    QSignalSpy started(&jobs, &JobTracker::jobStarted);
    QSignalSpy progress(&jobs, &JobTracker::jobProgress);
    QSignalSpy finished(&jobs, &JobTracker::jobFinished);
    std::atomic<bool> reached{false};
    QList<double> seen;
    bool done = false;
    JobTracker::Callbacks cb;
    cb.progress = [&](double f, const QString&) { seen << f; };
    cb.finished = [&] { done = true; };
    const quint64 id = jobs.start(
        QStringLiteral("count"), QStringLiteral("test"),
        [&reached](JobContext& ctx) {
            for (int i = 1; i <= 4; ++i)
                ctx.setProgress(i / 4.0);
            reached = true;
            while (!ctx.isCancelled()) // runs until cancelled
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        },
        &context, cb);
    QVERIFY(id != 0);
    QCOMPARE(started.count(), 1);
    QVERIFY(jobs.isRunning(id));
    QCOMPARE(jobs.runningCount(), 1);
    QCOMPARE(jobs.title(id), QStringLiteral("count"));
    QTRY_VERIFY_WITH_TIMEOUT(reached.load(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(progress.count(), 4, 10000);
    QCOMPARE(seen, QList<double>({0.25, 0.5, 0.75, 1.0}));
    QCOMPARE(jobs.progress(id), 1.0);
    QVERIFY(!done);
    jobs.cancel(id);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    QCOMPARE(finished.first().at(0).toULongLong(), id);
    QVERIFY(finished.first().at(1).toBool()); // cancelled
    QVERIFY(done);
    QVERIFY(!jobs.isRunning(id));
    QCOMPARE(jobs.runningCount(), 0);
}

void TestPages::jobTrackerFailureAndLanes()
{
    JobTracker jobs;
    QSignalSpy failed(&jobs, &JobTracker::jobFailed);
    QString message;
    JobTracker::Callbacks cb;
    cb.failed = [&](const QString& m) { message = m; };
    jobs.start(
        QStringLiteral("boom"), QStringLiteral("a"), [](JobContext&) { throw std::runtime_error("it broke"); }, nullptr,
        cb);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QCOMPARE(message, QStringLiteral("it broke"));

    // One lane runs its jobs one at a time, in order; a callback whose context is gone is not called.
    std::atomic<int> running{0}, maxRunning{0};
    QList<int> order;
    QSignalSpy finished(&jobs, &JobTracker::jobFinished);
    auto* gone = new QObject;
    bool goneCalled = false;
    for (int i = 0; i < 3; ++i) {
        JobTracker::Callbacks c;
        c.finished = [&order, i] { order << i; };
        jobs.start(
            QStringLiteral("step"), QStringLiteral("serial"),
            [&](JobContext&) {
                maxRunning = std::max(maxRunning.load(), ++running);
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                --running;
            },
            nullptr, c);
    }
    JobTracker::Callbacks g;
    g.finished = [&] { goneCalled = true; };
    jobs.start(
        QStringLiteral("orphan"), QStringLiteral("serial"), [](JobContext&) {}, gone, g);
    delete gone;
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 4, 10000);
    QCOMPARE(maxRunning.load(), 1);
    QCOMPARE(order, QList<int>({0, 1, 2}));
    QVERIFY(!goneCalled);
}

void TestPages::languageChooser()
{
    const auto& registry = LanguageRegistry::instance();
    ModelService models;
    InteractivePage page(&models);
    QComboBox* box = page.languageBox();
    QCOMPARE(box->count(), int(registry.languages().size()));
    for (int i = 0; i < box->count(); ++i)
        QCOMPARE(box->itemData(i).toString(), toQString(registry.languages()[std::size_t(i)].id));
    const LanguageInfo& def = registry.defaultLanguage();
    QCOMPARE(page.language(), toQString(def.id));
    QCOMPARE(page.engine()->language(), toQString(def.id));
    QCOMPARE(page.editor()->placeholderText(), toQString(def.placeholder)); // from the descriptor

    // A result, then choosing the language (again, through the box) re-parses it with that language.
    QSignalSpy shown(&page, &InteractivePage::resultShown);
    page.engine()->analyze(uitest::tokenizedText("def f(x):\n    return x\n"), AnalysisOrigin::Scored, QString());
    QVERIFY(shown.wait(20000));
    QCOMPARE(page.shown()->eval->tree.language(), def.id);
    // Switch to another registered language when there is one; else re-select the same through the engine.
    const LanguageInfo* other = nullptr;
    for (const auto& l : registry.languages())
        if (l.id != def.id)
            other = &l;
    if (other) {
        page.setLanguage(toQString(other->id));
        QVERIFY(shown.wait(20000));
        QCOMPARE(page.shown()->eval->tree.language(), other->id);
        QCOMPARE(page.editor()->placeholderText(), toQString(other->placeholder));
        // Python code parsed as another language: the details name the errors and the clean language.
        QVERIFY(page.shown()->eval->tree.hasErrors());
        const QString details = page.details()->headerText();
        QVERIFY2(details.contains(QStringLiteral("parsing as %1").arg(toQString(other->id))), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("parses without errors as: %1").arg(toQString(def.id))),
                 qPrintable(details));
        page.setLanguage(toQString(def.id));
        QVERIFY(shown.wait(20000));
    } else {
        // Only one language: an unknown id is refused and nothing changes.
        QString error;
        QVERIFY(!page.engine()->setLanguage(QStringLiteral("no-such-language"), &error));
        QVERIFY2(error.contains(QLatin1String("no-such-language")), qPrintable(error));
        QCOMPARE(page.engine()->language(), toQString(def.id));
    }

    // Opening a file: its extension chooses the language and the text goes into the editor.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("snippet") + toQString(def.extensions.front()));
    std::ofstream(file.toStdString()) << "x = 1\n";
    QString error;
    QVERIFY2(page.openPromptFile(file, &error), qPrintable(error));
    QCOMPARE(page.prompt(), QStringLiteral("x = 1\n"));
    QCOMPARE(page.language(), toQString(def.id));
    QVERIFY(!page.openPromptFile(dir.filePath(QStringLiteral("missing.txt")), &error));

    // Every registered language: a file of its extension selects it, with its own category table; a table
    // chosen for one language is dropped (back to the bundled one) when the language changes to another.
    for (const auto& l : registry.languages()) {
        const QString f = dir.filePath(QStringLiteral("code") + toQString(l.extensions.front()));
        std::ofstream(f.toStdString()) << "x\n";
        QVERIFY2(page.openPromptFile(f, &error), qPrintable(error));
        QCOMPARE(page.language(), toQString(l.id));
        QCOMPARE(page.engine()->language(), toQString(l.id));
        QCOMPARE(page.editor()->placeholderText(), toQString(l.placeholder));
        // The descriptor's highlighting expressions are valid for Qt (an invalid one would be dropped).
        for (const std::string& re : {l.highlight.number, l.highlight.annotation, l.highlight.definition})
            QVERIFY2(re.empty() || QRegularExpression(toQString(re)).isValid(), re.c_str());
    }
    if (other) {
        page.setLanguage(toQString(def.id));
        const QString table = dir.filePath(QStringLiteral("own.json"));
        std::ofstream(table.toStdString()) << R"({"categories": {"Mine": ["identifier"]}})";
        QVERIFY2(page.engine()->setCategoryFile(table, &error), qPrintable(error));
        QCOMPARE(page.engine()->categoryFile(), table); // "identifier" exists in every grammar: kept
        page.setLanguage(toQString(other->id));
        QCOMPARE(page.engine()->categoryFile(), table);
        const QString pyOnly = dir.filePath(QStringLiteral("py-only.json"));
        std::ofstream(pyOnly.toStdString())
            << R"({"language": ")" << def.id << R"(", "categories": {"X": ["identifier"]}})";
        page.setLanguage(toQString(def.id));
        QVERIFY2(page.engine()->setCategoryFile(pyOnly, &error), qPrintable(error));
        page.setLanguage(toQString(other->id));
        QCOMPARE(page.engine()->categoryFile(), QString()); // another language's table: back to the bundled one
    }
}

// One model in memory while both pages work: the Batch page's run uses the ModelService's model (the same
// object the Interactive page scores with), both at the same time, and nothing loads a second model.
void TestPages::oneModelForBothPages()
{
    MainWindow w;
    QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
    w.loadModel(uitest::tinyModelQ());
    QVERIFY(loaded.wait(60000));
    QCOMPARE(w.modelService()->loadCount(), 1);
    const LanguageModel* model = w.modelService()->model().get();
    QVERIFY(model);

    // A 3-snippet corpus.
    QTemporaryDir dir;
    const QString corpus = dir.filePath(QStringLiteral("c.jsonl"));
    {
        std::ofstream out(corpus.toStdString());
        out << R"({"id": "a", "code": "def f(x):\n    return x + 1\n"})"
            << "\n"
            << R"({"id": "b", "code": "for i in range(3):\n    print(i)\n"})"
            << "\n"
            << R"({"id": "c", "code": "class A:\n    pass\n"})"
            << "\n";
    }
    BatchPage* batch = w.page<BatchPage>();
    QCOMPARE(batch->modelDir(), toQString(model->info().dir.string())); // the form follows the shared model
    batch->setCorpusPath(corpus);
    batch->setDbPath(dir.filePath(QStringLiteral("r.db")));
    QSignalSpy finished(batch, &BatchPage::runFinished);
    QSignalSpy shown(w.page<InteractivePage>(), &InteractivePage::resultShown);
    batch->start();
    QVERIFY(batch->isRunning());
    QVERIFY(w.modelService()->isHeld()); // the run holds the model
    // The Interactive page scores while the batch runs (the model is safe for concurrent use).
    w.page<InteractivePage>()->scoreCode(QStringLiteral("y = 2\n"));
    QVERIFY(shown.wait(60000));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    QCOMPARE(ResultsDb::open(dir.filePath(QStringLiteral("r.db")).toStdString()).counts().snippets, 3);
    QCOMPARE(w.page<InteractivePage>()->engine()->lastModelUsed(), model);
    QCOMPARE(w.page<InteractivePage>()->shown()->eval->scored.model, std::string("tiny-gpt2"));
    QCOMPARE(w.modelService()->model().get(), model);
    QCOMPARE(w.modelService()->loadCount(), 1); // no second model was ever loaded
    QTRY_VERIFY_WITH_TIMEOUT(!w.modelService()->isHeld(), 10000);
}

void TestPages::reloadRefusedWhileBatchHoldsModel()
{
    ModelService models;
    QSignalSpy loaded(&models, &ModelService::modelLoaded);
    QVERIFY(models.loadModel(uitest::tinyModelQ()));
    QVERIFY(loaded.wait(60000));
    const auto before = models.model();
    {
        const auto hold = models.hold(QStringLiteral("A batch run"));
        QSignalSpy failed(&models, &ModelService::loadFailed);
        QVERIFY(!models.loadModel(uitest::tinyModelQ()));
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.first().at(1).toString().contains(QLatin1String("A batch run")),
                 qPrintable(failed.first().at(1).toString()));
        QCOMPARE(models.model(), before);
    }
    QVERIFY(!models.isHeld());
    QVERIFY(models.loadModel(uitest::tinyModelQ()));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(models.loadCount(), 2);
}

QTEST_MAIN(TestPages)
#include "test_pages.moc"
