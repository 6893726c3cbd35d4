// The Interactive tab end to end with the tiny GPT-2 fixture model: typing a prompt, Generate (streamed,
// on a worker thread), Stop, Score, the views that follow, and a failed model load that leaves the app
// usable.
#include "uitest_util.h"

#include "common/textpos.h"
#include "mainwindow.h"
#include "pages/interactive/interactiveengine.h"
#include "pages/interactive/interactivepage.h"
#include "services/modelservice.h"
#include "views/astview.h"
#include "views/detailspanel.h"
#include "views/legendwidget.h"
#include "views/sequenceview.h"

#include "ascviz/model/model.h"
#include "ascviz/render/layout.h"

#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace ascviz;
using namespace ascviz::ui;

class TestInteractive : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void generateStreamsAndShows();
    void stopMidway();
    void scoreMatchesModel();
    void badModelFolderKeepsWorking_data();
    void badModelFolderKeepsWorking();
    void immediateEosSaysWhy();
    void buttonsStayWhereTheMouseIs();
    void detailsAndLegendAreNotStaleDuringGenerate();

private:
    bool loadTiny(MainWindow& w);
};

void TestInteractive::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_ui_interactive"));
}

bool TestInteractive::loadTiny(MainWindow& w)
{
    QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
    w.loadModel(uitest::tinyModelQ());
    return loaded.wait(60000);
}

void TestInteractive::generateStreamsAndShows()
{
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(loadTiny(w));
    InteractivePage* tab = w.page<InteractivePage>();
    QVERIFY(tab->generateButton()->isEnabled());

    tab->editor()->setFocus();
    QTest::keyClicks(tab->editor(), QStringLiteral("def add(a, b):"));
    QTest::keyClick(tab->editor(), Qt::Key_Return); // indents one level after ':' (the registry's indent_after)
    QTest::keyClicks(tab->editor(), QStringLiteral("return"));
    QCOMPARE(tab->prompt(), QStringLiteral("def add(a, b):\n    return"));
    tab->maxNewTokensBox()->setValue(6);
    QCOMPARE(tab->decodingBox()->currentIndex(), 0); // greedy

    QSignalSpy streamed(tab->engine(), &InteractiveEngine::tokenStreamed);
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
    QVERIFY(!tab->generateButton()->isEnabled() || shown.count() > 0);
    QVERIFY(shown.wait(60000));

    const AnalysisPtr a = tab->shown();
    QVERIFY(a);
    const ScoredText& s = a->eval->scored;
    const int generated = a->generatedTokens();
    QVERIFY(generated >= 1 && generated <= 6);
    QCOMPARE(streamed.count(), generated);
    QCOMPARE(s.text.substr(0, s.promptBytes), std::string("def add(a, b):\n    return"));
    QString pieces;
    for (const auto& args : streamed)
        pieces += args.at(1).toString();
    QCOMPARE(pieces, toQString(s.text.substr(s.promptBytes)));
    QCOMPARE(int(s.tokens.size()), int(s.promptTokens) + generated);
    QVERIFY(!a->cancelled);

    // Greedy generation is deterministic: equal to the model's own greedy run.
    const auto model = LanguageModel::load(uitest::tinyModel());
    GenerationOptions g;
    g.maxNewTokens = 6;
    const ScoredText ref = model->generate("def add(a, b):\n    return", g);
    QCOMPARE(s.text, ref.text);

    // Views: one span per token, one item per visible node, coloured by value.
    QCOMPARE(tab->sequenceView()->tokenCount(), int(s.tokens.size()));
    for (auto kind : {ascviz::AstView::Partial, ascviz::AstView::Complete}) {
        const auto items = tab->astView(kind)->nodeItems();
        QCOMPARE(int(items.size()), int(visibleNodes(*a->eval, kind).size()));
        for (AstNodeItem* item : items)
            QCOMPARE(item->fillColor(), ascQColor(a->eval->nodes[std::size_t(item->node())].value));
    }
    QVERIFY(tab->generateButton()->isEnabled());
    QVERIFY(!tab->stopButton()->isEnabled());
}

void TestInteractive::stopMidway()
{
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    InteractivePage* tab = w.page<InteractivePage>();
    tab->setPrompt(QStringLiteral("def f(x):\n"));
    const int maxTokens = 100;
    tab->maxNewTokensBox()->setValue(maxTokens);

    int streamedCount = 0;
    connect(tab->engine(), &InteractiveEngine::tokenStreamed, tab, [&](quint64, const QString&, double, int) {
        if (++streamedCount == 1) {
            QVERIFY(tab->stopButton()->isEnabled());
            QTest::mouseClick(tab->stopButton(), Qt::LeftButton);
        }
    });
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    const AnalysisPtr a = tab->shown();
    QVERIFY(a);
    QVERIFY(a->cancelled);
    const ScoredText& s = a->eval->scored;
    const int generated = a->generatedTokens();
    // The worker waits for each token to reach the GUI, so the stop lands before the next token.
    QVERIFY2(generated >= 1 && generated <= 2, qPrintable(QString::number(generated)));
    QCOMPARE(streamedCount, generated);
    // Consistent state: tokens cover the text, the views show all of them, controls are back.
    QCOMPARE(int(s.tokens.size()), int(s.promptTokens) + generated);
    QCOMPARE(s.tokens.back().end, s.text.size());
    QCOMPARE(tab->sequenceView()->tokenCount(), int(s.tokens.size()));
    QCOMPARE(tab->sequenceView()->toPlainText(), toQString(s.text));
    QCOMPARE(int(tab->astView(ascviz::AstView::Complete)->nodeItems().size()),
             int(visibleNodes(*a->eval, ascviz::AstView::Complete).size()));
    QVERIFY(tab->generateButton()->isEnabled());
    QVERIFY(!tab->stopButton()->isEnabled());
    QCOMPARE(int(tab->engine()->phase()), int(InteractiveEngine::Phase::Idle));
}

void TestInteractive::scoreMatchesModel()
{
    MainWindow w;
    QVERIFY(loadTiny(w));
    InteractivePage* tab = w.page<InteractivePage>();
    const std::string code = "def 计算(值):\n    return 值 * 2  # 🙂\n";
    tab->setPrompt(toQString(code));
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    const AnalysisPtr a = tab->shown();
    QCOMPARE(int(a->origin), int(AnalysisOrigin::Scored));
    QCOMPARE(a->generatedTokens(), 0);
    const auto model = LanguageModel::load(uitest::tinyModel());
    const ScoredText ref = model->score(code);
    const ScoredText& s = a->eval->scored;
    QCOMPARE(s.text, code);
    QCOMPARE(s.tokens.size(), ref.tokens.size());
    for (std::size_t i = 0; i < ref.tokens.size(); ++i) {
        QCOMPARE(s.tokens[i].id, ref.tokens[i].id);
        QCOMPARE(s.tokens[i].ntp, ref.tokens[i].ntp);
    }
    QCOMPARE(tab->sequenceView()->tokenCount(), int(ref.tokens.size()));
    QCOMPARE(tab->sequenceView()->toPlainText(), toQString(code));
}

void TestInteractive::badModelFolderKeepsWorking_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected"); // a part of the message the user sees
    QTest::newRow("missing folder") << QStringLiteral("missing") << QStringLiteral("does not exist");
    QTest::newRow("bad config") << QStringLiteral("badconfig") << QStringLiteral("config.json");
    QTest::newRow("unknown architecture") << QStringLiteral("unknown") << QStringLiteral("frobnicator");
}

void TestInteractive::badModelFolderKeepsWorking()
{
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    const QString before = w.modelText();

    QTemporaryDir tmp;
    QString dir = tmp.filePath(QStringLiteral("model"));
    if (kind == QLatin1String("missing")) {
        dir = tmp.filePath(QStringLiteral("no-such-model"));
    } else {
        QDir().mkpath(dir);
        std::ofstream cfg((dir + QStringLiteral("/config.json")).toStdString());
        cfg << (kind == QLatin1String("badconfig") ? "{ this is not json"
                                                   : R"({"model_type": "frobnicator", "vocab_size": 10})");
    }
    QSignalSpy failed(w.modelService(), &ModelService::loadFailed);
    w.loadModel(dir);
    QVERIFY(failed.wait(60000));
    QVERIFY(w.isBannerVisible());
    QVERIFY2(w.bannerText().contains(expected, Qt::CaseInsensitive), qPrintable(w.bannerText()));
    QVERIFY(w.bannerText().contains(QStringLiteral("tiny-gpt2"))); // still using the old model
    QCOMPARE(w.modelText(), before);

    // Still usable: generate with the previously loaded model.
    InteractivePage* tab = w.page<InteractivePage>();
    tab->setPrompt(QStringLiteral("x = "));
    tab->maxNewTokensBox()->setValue(3);
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QCOMPARE(tab->shown()->eval->scored.model, std::string("tiny-gpt2"));
    QVERIFY(tab->shown()->generatedTokens() >= 1);
}

void TestInteractive::immediateEosSaysWhy()
{
    // A copy of tiny-gpt2 whose end-of-text id is the token greedy decoding picks first for the prompt.
    const std::string prompt = "def add(a, b):\n    return";
    GenerationOptions g;
    g.maxNewTokens = 1;
    g.stopAtEos = false;
    const auto ref = LanguageModel::load(uitest::tinyModel())->generate(prompt, g);
    QCOMPARE(int(ref.tokens.size()), int(ref.promptTokens) + 1);
    const int first = ref.tokens.back().id;
    QTemporaryDir tmp;
    const std::filesystem::path dir = tmp.filePath(QStringLiteral("tiny-eos")).toStdString();
    std::filesystem::create_directories(dir);
    for (const auto& e : std::filesystem::directory_iterator(uitest::tinyModel()))
        if (e.path().filename() != "config.json")
            std::filesystem::create_symlink(e.path(), dir / e.path().filename());
    std::ifstream in(uitest::tinyModel() / "config.json");
    std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string eosField = "\"eos_token_id\": 0";
    const auto at = config.find(eosField);
    QVERIFY(at != std::string::npos);
    config.replace(at, eosField.size(), "\"eos_token_id\": " + std::to_string(first));
    std::ofstream(dir / "config.json") << config;

    MainWindow w;
    w.show();
    QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
    w.loadModel(QString::fromStdString(dir.string()));
    QVERIFY(loaded.wait(60000));
    InteractivePage* tab = w.page<InteractivePage>();
    tab->setPrompt(QString::fromStdString(prompt));
    tab->maxNewTokensBox()->setValue(5);
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QSignalSpy status(tab, &InteractivePage::statusMessage);
    QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QCOMPARE(tab->shown()->generatedTokens(), 0);
    QCOMPARE(tab->shown()->eval->scored.stop, StopReason::Eos);
    QVERIFY(!status.isEmpty());
    const QString message = status.last().at(0).toString();
    QVERIFY2(message.contains(QLatin1String("end-of-text")), qPrintable(message));
    QVERIFY(message.startsWith(QLatin1String("Nothing generated")));
    if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/eos-at-once.png")));

    // A normal stop at max-new-tokens says so.
    w.loadModel(uitest::tinyModelQ());
    QVERIFY(loaded.wait(60000));
    tab->maxNewTokensBox()->setValue(2);
    QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QVERIFY2(status.last().at(0).toString().contains(QLatin1String("maximum")),
             qPrintable(status.last().at(0).toString()));
}

void TestInteractive::buttonsStayWhereTheMouseIs()
{
    // Issue 54: Generate/Stop/Score moved up as the status line, the progress bar and a notice appeared below them.
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    InteractivePage* tab = w.page<InteractivePage>();
    const auto yOf = [&](QWidget* b) { return b->mapTo(&w, QPoint(0, 0)).y(); };
    QCoreApplication::processEvents();
    const int score = yOf(tab->scoreButton()), generate = yOf(tab->generateButton()), stop = yOf(tab->stopButton());
    tab->statusLabel()->setText(QStringLiteral("Scoring a long text, and the status says so at length: ") +
                                QString(200, QLatin1Char('x')));
    tab->findChild<QProgressBar*>()->show();
    tab->noticeLabel()->setText(QStringLiteral("A notice of two lines.\nThe second line."));
    tab->noticeLabel()->show();
    QCoreApplication::processEvents();
    QCOMPARE(yOf(tab->scoreButton()), score);
    QCOMPARE(yOf(tab->generateButton()), generate);
    QCOMPARE(yOf(tab->stopButton()), stop);
}

QTEST_MAIN(TestInteractive)

// Issue 54 (stale text): during Generate the Details panel shows no values of the result before, and the legend no
// attribution scale of it.
void TestInteractive::detailsAndLegendAreNotStaleDuringGenerate()
{
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    InteractivePage* tab = w.page<InteractivePage>();
    tab->setPrompt(QStringLiteral("def f(x):\n    return x + 1\n"));
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QCOMPARE(int(tab->details()->mode()), int(DetailsPanel::Mode::Summary));
    tab->setSignedScale(
        QStringLiteral("attribution"), [](double) { return QColor(Qt::red); }, 1.0, QColor(Qt::gray),
        QStringLiteral("n/a"));
    QVERIFY(tab->legend()->showsSignedScale());
    tab->maxNewTokensBox()->setValue(4);
    bool checked = false;
    connect(tab->engine(), &InteractiveEngine::tokenStreamed, tab, [&](quint64, const QString&, double, int) {
        if (checked)
            return;
        checked = true;
        QCOMPARE(int(tab->details()->mode()), int(DetailsPanel::Mode::Empty));
        QVERIFY2(tab->details()->headerText().contains(QStringLiteral("Generating")),
                 qPrintable(tab->details()->headerText()));
        QVERIFY(!tab->details()->headerText().contains(QStringLiteral("AsC-Eval (mean)")));
        QVERIFY(!tab->legend()->showsSignedScale());
    });
    QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QVERIFY(checked);
    QCOMPARE(int(tab->details()->mode()), int(DetailsPanel::Mode::Summary)); // the new result's summary
}

#include "test_interactive.moc"
