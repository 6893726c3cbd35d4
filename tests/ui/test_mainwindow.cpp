// The main window: model panel after a load, recent models, the Batch tab's "open snippet", the GUI
// command line, and the scripted run that saves a screenshot.
#include "uitest_util.h"

#include "commandline.h"
#include "common/appidentity.h"
#include "common/textpos.h"
#include "helpmenu.h"
#include "mainwindow.h"
#include "pages/batch/batchpage.h"
#include "pages/interactive/interactivepage.h"
#include "services/modelservice.h"
#include "views/sequenceview.h"

#include "ascviz/model/model.h"
#include "ascviz/results/session.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>

using namespace ascviz;
using namespace ascviz::ui;

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void showsModelAfterLoad();
    void noModelYet();
    void weightsChoiceRevertsWhenTheReloadFails();
    void modelsFromTheHuggingFaceCache();
    void openSnippetFromBatch();
    void commandLine_data();
    void commandLine();
    void scriptedScreenshot();
    void scriptedSession();
    void helpMenu();
    void anOpenedFileClearsAStaleError();
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_ui_mainwindow"));
    QSettings().clear();
}

void TestMainWindow::showsModelAfterLoad()
{
    MainWindow w;
    w.show();
    QSignalSpy started(w.modelService(), &ModelService::loadStarted);
    QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
    w.loadModel(uitest::tinyModelQ());
    QCOMPARE(started.count(), 1);
    QVERIFY(w.modelService()->isLoading());
    QVERIFY(loaded.wait(60000));
    const auto info = LanguageModel::load(uitest::tinyModel())->info();
    QVERIFY(info.parameters > 0);
    const QString text = w.modelText();
    QVERIFY2(text.contains(QStringLiteral("tiny-gpt2")), qPrintable(text));
    QVERIFY2(text.contains(formatParameters(info.parameters) + QStringLiteral(" parameters")), qPrintable(text));
    QVERIFY(text.contains(toQString(info.architecture)));
    QVERIFY(text.contains(toQString(info.device)));
    QVERIFY(text.contains(toQString(info.dtype)));
    QVERIFY(!w.isBannerVisible());
    QCOMPARE(w.recentModels().value(0), QDir::cleanPath(uitest::tinyModelQ()));
    QVERIFY(w.page<InteractivePage>()->generateButton()->isEnabled());

    // Precision: float32 by default; choosing bfloat16 reloads the model in bfloat16.
    QCOMPARE(w.precisionBox()->currentText(), QStringLiteral("float32"));
    QCOMPARE(toQString(w.modelService()->modelInfo()->dtype), QStringLiteral("float32"));
    w.precisionBox()->setCurrentText(QStringLiteral("bfloat16"));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(toQString(w.modelService()->modelInfo()->dtype), QStringLiteral("bfloat16"));
    QVERIFY2(w.modelText().contains(QLatin1String("bfloat16")), qPrintable(w.modelText()));

    // Weights: auto by default; choosing another reloads with it (a float32 checkpoint: float32 weights either way).
    QCOMPARE(w.weightsBox()->currentData().toString(), QStringLiteral("auto"));
    w.precisionBox()->setCurrentText(QStringLiteral("float32"));
    QVERIFY(loaded.wait(60000));
    const int loads = loaded.count();
    w.weightsBox()->setCurrentIndex(w.weightsBox()->findData(QStringLiteral("checkpoint")));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(loaded.count(), loads + 1);
    QCOMPARE(toQString(w.modelService()->modelInfo()->weights), QStringLiteral("float32"));
    // A later load keeps the choice (the box and the options agree).
    QCOMPARE(w.weightsBox()->currentData().toString(), QStringLiteral("checkpoint"));
}

void TestMainWindow::weightsChoiceRevertsWhenTheReloadFails()
{
    // A copy of the tiny model, loaded; its folder then goes away, so the reload that a new weights choice asks for
    // fails: the loaded model stays, and the choice shows what it was loaded with again.
    QTemporaryDir tmp;
    const std::filesystem::path dir = tmp.filePath(QStringLiteral("tiny")).toStdString();
    std::filesystem::create_directories(dir);
    for (const auto& e : std::filesystem::directory_iterator(uitest::tinyModel()))
        std::filesystem::copy(e.path(), dir / e.path().filename());
    MainWindow w;
    w.show();
    QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
    QSignalSpy failed(w.modelService(), &ModelService::loadFailed);
    w.loadModel(toQString(dir.string()));
    QVERIFY(loaded.wait(60000));
    QCOMPARE(w.weightsBox()->currentData().toString(), QStringLiteral("auto"));
    std::filesystem::remove_all(dir);
    w.weightsBox()->setCurrentIndex(w.weightsBox()->findData(QStringLiteral("float32")));
    QVERIFY(failed.count() > 0 || failed.wait(60000));
    QVERIFY(w.isBannerVisible());
    QVERIFY2(w.bannerText().contains(toQString(dir.string())), qPrintable(w.bannerText()));
    QCOMPARE(w.weightsBox()->currentData().toString(), QStringLiteral("auto"));
    QVERIFY(w.modelService()->hasModel()); // the loaded model stays
}

void TestMainWindow::modelsFromTheHuggingFaceCache()
{
    // A hub cache with one model (files linked from the tiny fixture) and one repository without config.
    QTemporaryDir tmp;
    const std::filesystem::path hub = tmp.filePath(QStringLiteral("hub")).toStdString();
    const auto snap = hub / "models--acme--tiny-gpt2" / "snapshots" / "c0ffee";
    std::filesystem::create_directories(snap);
    for (const auto& e : std::filesystem::directory_iterator(uitest::tinyModel()))
        std::filesystem::create_symlink(e.path(), snap / e.path().filename());
    std::filesystem::create_directories(hub / "models--acme--broken" / "snapshots" / "1");
    qputenv("HF_HUB_CACHE", QByteArray::fromStdString(hub.string()));

    MainWindow w;
    w.show();
    QMenu* menu = w.hubMenu();
    QVERIFY(menu);
    Q_EMIT menu->aboutToShow();
    const auto actions = menu->actions();
    QCOMPARE(actions.size(), 1);
    QCOMPARE(actions.first()->text(), QStringLiteral("acme/tiny-gpt2"));
    QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
    actions.first()->trigger();
    QVERIFY(loaded.wait(60000));
    QVERIFY2(w.modelText().contains(QLatin1String("acme/tiny-gpt2")), qPrintable(w.modelText()));

    // ORG/NAME given directly (as --model does), and one that is not cached: a banner naming the folder.
    QSignalSpy failed(w.modelService(), &ModelService::loadFailed);
    w.loadModel(QStringLiteral("acme/absent"));
    QVERIFY(w.isBannerVisible());
    QVERIFY2(w.bannerText().contains(QLatin1String("models--acme--absent")), qPrintable(w.bannerText()));
    QVERIFY(w.modelText().contains(QLatin1String("acme/tiny-gpt2"))); // the loaded model stays

    // An empty cache says so.
    qputenv("HF_HUB_CACHE", tmp.filePath(QStringLiteral("empty")).toUtf8());
    Q_EMIT menu->aboutToShow();
    QCOMPARE(menu->actions().size(), 1);
    QVERIFY(!menu->actions().first()->isEnabled());
    qunsetenv("HF_HUB_CACHE");
}

void TestMainWindow::noModelYet()
{
    MainWindow w;
    QVERIFY(!w.page<InteractivePage>()->generateButton()->isEnabled());
    QVERIFY(!w.page<InteractivePage>()->scoreButton()->isEnabled());
    QVERIFY(w.modelText().contains(QStringLiteral("none")));
    QCOMPARE(w.tabs()->count(), 5);
    QCOMPARE(w.tabs()->tabText(0), QStringLiteral("Interactive"));
    QCOMPARE(w.tabs()->tabText(1), QStringLiteral("Batch"));
    QCOMPARE(w.tabs()->tabText(2), QStringLiteral("Analysis"));
    QCOMPARE(w.tabs()->tabText(3), QStringLiteral("Heads"));
    QCOMPARE(w.tabs()->tabText(4), QStringLiteral("Study"));
}

void TestMainWindow::openSnippetFromBatch()
{
    MainWindow w;
    QSignalSpy shown(w.page<InteractivePage>(), &InteractivePage::resultShown);
    w.tabs()->setCurrentIndex(1);
    // The snippet's model is not loaded yet: it is loaded first, then the code is scored.
    const QString code = QStringLiteral("for i in range(3):\n    print(i)\n");
    Q_EMIT w.page<BatchPage>()->openSnippetRequested(code, uitest::tinyModelQ());
    QVERIFY(shown.wait(60000));
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.page<InteractivePage>()));
    QCOMPARE(w.page<InteractivePage>()->shown()->eval->scored.text, toUtf8(code));
    QCOMPARE(w.page<InteractivePage>()->shown()->eval->scored.model, std::string("tiny-gpt2"));
    // Same model: scored at once.
    Q_EMIT w.page<BatchPage>()->openSnippetRequested(QStringLiteral("x = 1\n"), uitest::tinyModelQ());
    QVERIFY(shown.wait(60000));
    QCOMPARE(w.page<InteractivePage>()->shown()->eval->scored.text, std::string("x = 1\n"));
}

void TestMainWindow::commandLine_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("result");
    QTest::addColumn<QString>("check");
    auto row = [](const char* name, QStringList args, ParseResult r, const QString& check) {
        args.prepend(QStringLiteral("ascviz"));
        QTest::newRow(name) << args << int(r) << check;
    };
    row("plain", {}, ParseResult::Ok, QStringLiteral("model=default"));
    row("model default", {QStringLiteral("--model"), QStringLiteral("default")}, ParseResult::Ok,
        QStringLiteral("model=default"));
    row("screenshot run",
        {QStringLiteral("--model"), QStringLiteral("/m"), QStringLiteral("--prompt-file"), QStringLiteral("p.py"),
         QStringLiteral("--generate"), QStringLiteral("--greedy"), QStringLiteral("--max-new-tokens"),
         QStringLiteral("40"), QStringLiteral("--view"), QStringLiteral("partial"), QStringLiteral("--screenshot"),
         QStringLiteral("o.png"), QStringLiteral("--quit")},
        ParseResult::Ok, QStringLiteral("max=40"));
    row("sampling",
        {QStringLiteral("--prompt-file"), QStringLiteral("p"), QStringLiteral("--generate"),
         QStringLiteral("--temperature"), QStringLiteral("0.7"), QStringLiteral("--top-k"), QStringLiteral("5")},
        ParseResult::Ok, QStringLiteral("sampling"));
    row("bad view", {QStringLiteral("--view"), QStringLiteral("tree")}, ParseResult::Error, QStringLiteral("--view"));
    row("bad tokens", {QStringLiteral("--max-new-tokens"), QStringLiteral("zero")}, ParseResult::Error,
        QStringLiteral("--max-new-tokens"));
    row("greedy+sampling", {QStringLiteral("--greedy"), QStringLiteral("--temperature"), QStringLiteral("0.5")},
        ParseResult::Error, QStringLiteral("--greedy"));
    row("generate without prompt", {QStringLiteral("--generate")}, ParseResult::Error, QStringLiteral("--prompt-file"));
    row("unknown option", {QStringLiteral("--frobnicate")}, ParseResult::Error, QStringLiteral("frobnicate"));
    row("bad aggregation", {QStringLiteral("--aggregation"), QStringLiteral("mode")}, ParseResult::Error,
        QStringLiteral("--aggregation"));
    row("session and prompt",
        {QStringLiteral("--open-session"), QStringLiteral("s.ascviz"), QStringLiteral("--prompt-file"),
         QStringLiteral("p")},
        ParseResult::Error, QStringLiteral("--open-session"));
    row("help", {QStringLiteral("--help")}, ParseResult::Help, QStringLiteral("--screenshot"));
    row("weights", {QStringLiteral("--weights"), QStringLiteral("checkpoint")}, ParseResult::Ok,
        QStringLiteral("weights=checkpoint"));
    row("bad weights", {QStringLiteral("--weights"), QStringLiteral("int4")}, ParseResult::Error,
        QStringLiteral("--weights must be auto, float32 or checkpoint"));
}

void TestMainWindow::commandLine()
{
    QFETCH(QStringList, args);
    QFETCH(int, result);
    QFETCH(QString, check);
    GuiOptions o;
    QString message;
    QCOMPARE(int(parseGuiCommandLine(args, &o, &message)), result);
    if (result == int(ParseResult::Ok)) {
        if (check == QLatin1String("model=default")) {
            QCOMPARE(o.model, QStringLiteral("default"));
            QCOMPARE(o.load.weights, ascviz::Weights::Auto);
        }
        if (check == QLatin1String("weights=checkpoint"))
            QCOMPARE(o.load.weights, ascviz::Weights::Checkpoint);
        if (check == QLatin1String("max=40")) {
            QCOMPARE(o.generation.maxNewTokens, 40);
            QVERIFY(o.generation.greedy);
            QVERIFY(o.generate);
            QVERIFY(o.quit);
            QCOMPARE(o.view, QStringLiteral("partial"));
            QCOMPARE(o.screenshot, QStringLiteral("o.png"));
            QCOMPARE(o.model, QStringLiteral("/m"));
        }
        if (check == QLatin1String("sampling")) {
            QVERIFY(!o.generation.greedy);
            QCOMPARE(o.generation.temperature, 0.7);
            QCOMPARE(o.generation.topK, 5);
        }
    } else {
        QVERIFY2(message.contains(check), qPrintable(message));
    }
}

void TestMainWindow::scriptedScreenshot()
{
    QTemporaryDir dir;
    const QString prompt = dir.filePath(QStringLiteral("p.py"));
    {
        std::ofstream out(prompt.toStdString());
        out << "def square(x):\n    return";
    }
    const QString shot = dir.filePath(QStringLiteral("shot.png"));
    GuiOptions o;
    QString message;
    QCOMPARE(parseGuiCommandLine({QStringLiteral("ascviz"), QStringLiteral("--model"), uitest::tinyModelQ(),
                                  QStringLiteral("--prompt-file"), prompt, QStringLiteral("--generate"),
                                  QStringLiteral("--greedy"), QStringLiteral("--max-new-tokens"), QStringLiteral("5"),
                                  QStringLiteral("--view"), QStringLiteral("complete"), QStringLiteral("--screenshot"),
                                  shot, QStringLiteral("--quit")},
                                 &o, &message),
             ParseResult::Ok);
    MainWindow w;
    w.show();
    AutoRun run(&w, o);
    QSignalSpy finished(&run, &AutoRun::finished);
    run.start();
    w.loadModel(o.model);
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().first().toInt(), 0);
    const QImage img(shot);
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), w.grab().size());
    QCOMPARE(int(w.page<InteractivePage>()->currentView()), int(InteractivePage::View::Complete));
    const AnalysisPtr a = w.page<InteractivePage>()->shown();
    QVERIFY(a && a->generatedTokens() >= 1 && a->generatedTokens() <= 5);

    // A model that cannot be loaded ends a --quit run with exit code 1.
    MainWindow w2;
    GuiOptions bad = o;
    bad.screenshot.clear();
    AutoRun run2(&w2, bad);
    QSignalSpy finished2(&run2, &AutoRun::finished);
    run2.start();
    w2.loadModel(dir.filePath(QStringLiteral("nope")));
    QVERIFY(finished2.wait(60000));
    QCOMPARE(finished2.first().first().toInt(), 1);
}

void TestMainWindow::scriptedSession()
{
    // --open-session restores the views from the file alone (the model may still be loading).
    QTemporaryDir dir;
    ascviz::SessionData data;
    data.scored = uitest::tokenizedText("def f(x):\n    return x * 2\n", 15);
    data.prompt = data.scored.text.substr(0, 15);
    data.aggregation = Aggregation::Min;
    data.view = "partial";
    data.origin = AnalysisOrigin::Generated;
    const QString file = dir.filePath(QStringLiteral("s.ascviz"));
    writeSessionFile(toUtf8(file), data);
    const QString shot = dir.filePath(QStringLiteral("s.png"));
    GuiOptions o;
    QString message;
    QCOMPARE(parseGuiCommandLine({QStringLiteral("ascviz"), QStringLiteral("--open-session"), file,
                                  QStringLiteral("--screenshot"), shot, QStringLiteral("--quit")},
                                 &o, &message),
             ParseResult::Ok);
    QCOMPARE(o.session, file);
    MainWindow w;
    w.show();
    AutoRun run(&w, o);
    QSignalSpy finished(&run, &AutoRun::finished);
    run.start();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().first().toInt(), 0);
    QVERIFY(!QImage(shot).isNull());
    const AnalysisPtr a = w.page<InteractivePage>()->shown();
    QVERIFY(a);
    QCOMPARE(a->eval->scored.text, data.scored.text);
    QCOMPARE(int(a->eval->aggregation), int(Aggregation::Min));
    QCOMPARE(int(w.page<InteractivePage>()->currentView()), int(InteractivePage::View::Partial));
    QCOMPARE(w.page<InteractivePage>()->prompt(), toQString(data.prompt));
    QVERIFY(!w.modelService()->hasModel());
}

void TestMainWindow::helpMenu()
{
    MainWindow w;
    // The Help menu is the last one and has the three entries of the Qt convention.
    const QList<QAction*> top = w.menuBar()->actions();
    QVERIFY(!top.isEmpty());
    QMenu* help = top.last()->menu();
    QVERIFY(help);
    QCOMPARE(top.last()->text(), QStringLiteral("&Help"));
    QStringList entries;
    for (const QAction* a : help->actions())
        if (!a->isSeparator())
            entries << a->text();
    QCOMPARE(entries, QStringList({QStringLiteral("&Quick start"), QStringLiteral("&Keyboard shortcuts"),
                                   QStringLiteral("Model &families"), QStringLiteral("&About AsC-Viz")}));
    // Model families lists every family the decoder runs, with its options.
    const QString families = modelFamiliesText();
    for (const ModelFamily& f : modelFamilies()) {
        QVERIFY2(families.contains(QStringLiteral("<code>%1</code>").arg(toQString(f.modelType))),
                 qPrintable(toQString(f.modelType)));
        QVERIFY2(families.contains(toQString(f.honours).toHtmlEscaped()), qPrintable(toQString(f.modelType)));
    }
    QVERIFY(modelFamilies().size() >= 24);
    // About names the version, the LibTorch and the CPU thread setup.
    const QString about = aboutText();
    QVERIFY2(about.contains(versionString()), qPrintable(about));
    QVERIFY2(about.contains(toQString(torchVersion())), qPrintable(about));
    QVERIFY2(about.contains(QStringLiteral("CPU threads: ")), qPrintable(about));
    // The shortcuts table lists the menus' actions with their keys (File › Open session… is Ctrl+O).
    const QString keys = shortcutsText(w.menuBar());
    QVERIFY2(keys.contains(QStringLiteral("File › Open session…")), qPrintable(keys));
    QVERIFY2(keys.contains(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)), qPrintable(keys));
    QVERIFY2(keys.contains(QStringLiteral("Help › Quick start")), qPrintable(keys));
    QVERIFY(quickStartText().contains(QStringLiteral("Resume")));
    for (const char* page : {"Heads", "Inside", "Galeras"})
        QVERIFY2(quickStartText().contains(QLatin1String(page)), page);
}

void TestMainWindow::anOpenedFileClearsAStaleError()
{
    // Issue 54: the error banner stayed after a later file opened successfully.
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("gone.py"));
    QVERIFY(!w.openRecentFile(missing));
    QVERIFY(w.isBannerVisible());
    QVERIFY(w.bannerText().contains(QStringLiteral("gone.py")));
    const QString good = dir.filePath(QStringLiteral("good.py"));
    QFile f(good);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("def f(x):\n    return x\n");
    f.close();
    QVERIFY(w.openRecentFile(good));
    QVERIFY2(!w.isBannerVisible(), qPrintable(w.bannerText()));
}

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
