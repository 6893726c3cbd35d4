// Qt conventions of the main window and the Interactive page (issue 28): the title names the open file or
// session with [*], File › Open Recent, the window's geometry remembered (QSettings in a temporary folder), the
// question before closing with an unsaved result, the editor keeping indentation on Enter, the editor's cursor
// selecting its token and node (and a view's selection marking the editor), and a generated completion edited and
// re-scored in place with the prompt boundary kept.
#include "uitest_util.h"

#include "common/textpos.h"
#include "mainwindow.h"
#include "pages/interactive/interactiveengine.h"
#include "pages/interactive/interactivepage.h"
#include "services/modelservice.h"
#include "views/astview.h"
#include "views/sequenceview.h"

#include "ascviz/base/error.h"
#include "ascviz/model/dtypes.h"
#include "ascviz/model/model.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace ascviz;
using namespace ascviz::ui;

class TestConventions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void titleAndRecentFiles();
    void geometryRemembered();
    void closeAsksForAnUnsavedResult();
    void openingASessionOverAnUnsavedResultAsks();
    void aFileOfAnotherLanguageKeepsTheResult();
    void stopSaysStoppingAndTheSummaryFollows();
    void precisionOffersWhatTheBuildRuns();
    void enterKeepsIndentation();
    void cursorSelectsTokenAndNode();
    void completionEditedAndRescored();

private:
    bool loadTiny(MainWindow& w);
    QString writeFile(const QString& name, const QByteArray& bytes);
    QTemporaryDir m_dir;
};

void TestConventions::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_ui_conventions"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    QSettings().clear();
}

bool TestConventions::loadTiny(MainWindow& w)
{
    QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
    w.loadModel(uitest::tinyModelQ());
    return loaded.wait(60000);
}

QString TestConventions::writeFile(const QString& name, const QByteArray& bytes)
{
    const QString path = m_dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        return {};
    return path;
}

// Answers the next message box with `button` (from the event loop, while the box runs).
static void answerNextBox(QMessageBox::StandardButton button, QString* text)
{
    QTimer::singleShot(0, [button, text] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        *text = box->text();
        box->button(button)->click();
    });
}

void TestConventions::titleAndRecentFiles()
{
    MainWindow w;
    w.show();
    QCOMPARE(w.windowTitle(), QStringLiteral("AsC-Viz"));
    const QString py = writeFile(QStringLiteral("util.py"), "def f(x):\n    return x\n");
    QVERIFY(!py.isEmpty());
    QVERIFY(w.openRecentFile(py)); // opening any file goes through the same path
    QCOMPARE(w.windowTitle(), QStringLiteral("util.py[*] — AsC-Viz"));
    QVERIFY(!w.isWindowModified());
    auto* tab = w.page<InteractivePage>();
    QCOMPARE(tab->prompt(), QStringLiteral("def f(x):\n    return x\n"));
    QTest::keyClick(tab->editor(), Qt::Key_A);
    QVERIFY(w.isWindowModified());
    QCOMPARE(w.recentFiles().value(0), QFileInfo(py).absoluteFilePath());

    // The menu lists it; a second file comes first; a file that is gone leaves the list with a message.
    const QString js = writeFile(QStringLiteral("gone.js"), "let a = 1;\n");
    QVERIFY(tab->openPromptFile(js));
    QCOMPARE(w.windowTitle(), QStringLiteral("gone.js[*] — AsC-Viz"));
    QVERIFY(!w.isWindowModified());
    QCOMPARE(w.recentFiles(), QStringList({QFileInfo(js).absoluteFilePath(), QFileInfo(py).absoluteFilePath()}));
    Q_EMIT w.recentFilesMenu()->aboutToShow();
    QStringList entries;
    for (QAction* a : w.recentFilesMenu()->actions())
        entries << a->data().toString();
    QVERIFY(entries.contains(QFileInfo(py).absoluteFilePath()));
    QVERIFY(QFile::remove(js));
    QVERIFY(!w.openRecentFile(QFileInfo(js).absoluteFilePath()));
    QVERIFY(w.bannerText().contains(QLatin1String("no longer exists")));
    QCOMPARE(w.recentFiles(), QStringList({QFileInfo(py).absoluteFilePath()}));
    // Recent files outlive the window (QSettings).
    MainWindow w2;
    QCOMPARE(w2.recentFiles(), QStringList({QFileInfo(py).absoluteFilePath()}));
}

void TestConventions::geometryRemembered()
{
    QSize closedAt;
    {
        MainWindow w;
        w.show();
        w.resize(1517, 933); // not the default 1400 x 900, above any minimum size
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_COMPARE(w.size(), QSize(1517, 933));
        closedAt = w.size();
        QVERIFY(w.close()); // nothing to save: no question
    }
    MainWindow again;
    QCOMPARE(again.size(), closedAt);
    QVERIFY(again.size() != QSize(1400, 900));
}

void TestConventions::closeAsksForAnUnsavedResult()
{
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    auto* tab = w.page<InteractivePage>();
    tab->setPrompt(QStringLiteral("x = 1\n"));
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QVERIFY(tab->hasUnsavedResult());
    QCOMPARE(w.windowTitle(), QStringLiteral("Untitled[*] — AsC-Viz"));
    QVERIFY(w.isWindowModified());

    QString asked;
    answerNextBox(QMessageBox::Cancel, &asked);
    QVERIFY(!w.close());
    QVERIFY(w.isVisible());
    QVERIFY2(asked.contains(QLatin1String("not saved")), qPrintable(asked));

    // Saved as a session: nothing to ask; the title names the session.
    const QString session = m_dir.filePath(QStringLiteral("kept.ascviz"));
    QString error;
    QVERIFY2(tab->saveSession(session, &error), qPrintable(error));
    QVERIFY(!tab->hasUnsavedResult());
    QCOMPARE(w.windowTitle(), QStringLiteral("kept.ascviz[*] — AsC-Viz"));
    QVERIFY(!w.isWindowModified());
    QCOMPARE(w.recentFiles().value(0), QFileInfo(session).absoluteFilePath());

    // A new result is unsaved again; Discard closes.
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QVERIFY(w.isWindowModified());
    answerNextBox(QMessageBox::Discard, &asked);
    QVERIFY(w.close());
}

// Issue 44: opening a session over an unsaved result asks first; Cancel keeps the result on screen.
void TestConventions::openingASessionOverAnUnsavedResultAsks()
{
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    auto* tab = w.page<InteractivePage>();
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    tab->setPrompt(QStringLiteral("x = 1\n"));
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    const QString session = m_dir.filePath(QStringLiteral("first.ascviz"));
    QString error;
    QVERIFY2(tab->saveSession(session, &error), qPrintable(error));
    QVERIFY(!tab->hasUnsavedResult());

    tab->setPrompt(QStringLiteral("y = [2, 3]\n"));
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QVERIFY(tab->hasUnsavedResult());
    const AnalysisPtr unsaved = tab->shown();

    QString asked;
    answerNextBox(QMessageBox::Cancel, &asked);
    QVERIFY(!w.openRecentFile(session));
    QVERIFY2(asked.contains(QLatin1String("not saved")) && asked.contains(QLatin1String("first.ascviz")),
             qPrintable(asked));
    QTest::qWait(100);
    QCOMPARE(tab->shown(), unsaved); // nothing replaced

    asked.clear();
    answerNextBox(QMessageBox::Discard, &asked);
    QVERIFY(w.openRecentFile(session));
    QVERIFY(!asked.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(tab->shown() != unsaved, 30000);
    QCOMPARE(tab->shown()->eval->scored.text, std::string("x = 1\n"));

    // Nothing unsaved: no question (a box would stay open and fail the wait below).
    QVERIFY(!tab->hasUnsavedResult());
    QVERIFY(w.openRecentFile(session));
}

// Issue 44: opening a file of another language does not re-parse the result on screen in that language; a notice
// says which language the result was evaluated in; Score evaluates the file in its own.
void TestConventions::aFileOfAnotherLanguageKeepsTheResult()
{
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    auto* tab = w.page<InteractivePage>();
    tab->setLanguage(QStringLiteral("python"));
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    tab->setPrompt(QStringLiteral("def f(x):\n    return x + 1\n"));
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    const AnalysisPtr python = tab->shown();
    QCOMPARE(python->eval->tree.language(), std::string("python"));

    const QString js = writeFile(QStringLiteral("other.js"), "function f(x) {\n  return x + 1;\n}\n");
    QVERIFY(tab->openPromptFile(js));
    QCOMPARE(tab->language(), QStringLiteral("javascript"));
    QVERIFY(!shown.wait(1500)); // no re-analysis of the shown result
    QCOMPARE(tab->shown(), python);
    QVERIFY(tab->noticeLabel()->isVisibleTo(tab));
    const QString notice = tab->noticeLabel()->text();
    QVERIFY2(notice.contains(QLatin1String("Python")) && notice.contains(QLatin1String("JavaScript")),
             qPrintable(notice));

    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QCOMPARE(tab->shown()->eval->tree.language(), std::string("javascript"));
    QVERIFY(!tab->noticeLabel()->text().contains(QLatin1String("evaluated as")));
}

// Issue 44: Stop greys out and says "Stopping…" until the job has stopped; while a new result is computed the
// summary line does not present the previous one as current.
void TestConventions::stopSaysStoppingAndTheSummaryFollows()
{
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    auto* tab = w.page<InteractivePage>();
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    tab->setPrompt(QStringLiteral("x = 1\n"));
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QVERIFY(tab->summaryLabel()->text().contains(QLatin1String("AsC-Eval")));

    tab->decodingBox()->setCurrentIndex(0);
    tab->maxNewTokensBox()->setValue(400);
    QSignalSpy streamed(tab->engine(), &InteractiveEngine::tokenStreamed);
    QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
    QVERIFY(tab->stopButton()->isEnabled());
    QVERIFY2(!tab->summaryLabel()->text().contains(QLatin1String("AsC-Eval")), qPrintable(tab->summaryLabel()->text()));
    QVERIFY(streamed.wait(60000)); // generating: a stop now ends it with the tokens so far
    tab->stop();
    QVERIFY(!tab->stopButton()->isEnabled());
    QVERIFY2(tab->statusLabel()->text().startsWith(QStringLiteral("Stopping")), qPrintable(tab->statusLabel()->text()));
    QVERIFY(shown.wait(60000));
    QVERIFY(tab->summaryLabel()->text().contains(QLatin1String("AsC-Eval")));
    QVERIFY(!tab->statusLabel()->text().startsWith(QStringLiteral("Stopping")));
}

// Issue 44: the precision chooser does not offer what this build's CPU path refuses when no GPU is available; the
// load agrees with it.
void TestConventions::precisionOffersWhatTheBuildRuns()
{
    if (cudaAvailable())
        QSKIP("a GPU is available: every precision is offered");
    MainWindow w;
    auto* model = qobject_cast<QStandardItemModel*>(w.precisionBox()->model());
    QVERIFY(model);
    for (int i = 0; i < w.precisionBox()->count(); ++i) {
        const Dtype dtype = ascviz::requireLoadOption<Dtype>(w.precisionBox()->itemText(i).toStdString());
        QCOMPARE(model->item(i)->isEnabled(), cpuSupportsDtype(dtype));
        LoadOptions o;
        o.dtype = dtype;
        o.device = ascviz::Device::Cpu;
        bool loads = true;
        try {
            (void)LanguageModel::load(uitest::tinyModel(), o);
        } catch (const ModelError&) {
            loads = false;
        }
        QCOMPARE(loads, cpuSupportsDtype(dtype));
    }
    QVERIFY(cpuSupportsDtype(Dtype::Float32));
}

void TestConventions::enterKeepsIndentation()
{
    MainWindow w;
    w.show();
    auto* tab = w.page<InteractivePage>();
    tab->setPrompt(QStringLiteral("def f(x):\n\t  y = x"));
    QPlainTextEdit* e = tab->editor();
    e->setFocus();
    QTextCursor c = e->textCursor();
    c.movePosition(QTextCursor::End);
    e->setTextCursor(c);
    QTest::keyClick(e, Qt::Key_Return);
    QTest::keyClicks(e, QStringLiteral("z"));
    QCOMPARE(e->toPlainText(), QStringLiteral("def f(x):\n\t  y = x\n\t  z"));
    // At the start of a line: a plain new line (no indentation before the cursor).
    c.movePosition(QTextCursor::Start);
    e->setTextCursor(c);
    QTest::keyClick(e, Qt::Key_Return);
    QVERIFY(e->toPlainText().startsWith(QStringLiteral("\ndef f(x):")));
}

void TestConventions::cursorSelectsTokenAndNode()
{
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    auto* tab = w.page<InteractivePage>();
    const QString code = QStringLiteral("def f(x):\n    return x + 1\n");
    tab->setPrompt(code);
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    const EvalResult& r = *tab->shown()->eval;

    // The cursor inside "return": its token holds that byte, its node is the `return` keyword.
    const int at = int(code.indexOf(QLatin1String("return"))) + 2;
    QTextCursor c = tab->editor()->textCursor();
    c.setPosition(at);
    tab->editor()->setTextCursor(c);
    const int token = tab->selectedToken();
    QVERIFY(token >= 0);
    QVERIFY(r.scored.tokens[std::size_t(token)].start <= std::size_t(at));
    QVERIFY(std::size_t(at) < r.scored.tokens[std::size_t(token)].end);
    QCOMPARE(tab->sequenceView()->highlightedTokens(), QVector<int>({token}));
    const int node = tab->cursorNode();
    QVERIFY(node >= 0);
    QCOMPARE(QString::fromStdString(r.tree.nodes()[std::size_t(node)].type), QStringLiteral("return"));
    QCOMPARE(tab->astView(ascviz::AstView::Complete)->highlightedNodes(), QVector<int>({node}));
    // The partial view has no terminals: the return statement around it.
    const QVector<int> partial = tab->astView(ascviz::AstView::Partial)->highlightedNodes();
    QCOMPARE(partial.size(), 1);
    QCOMPARE(QString::fromStdString(r.tree.nodes()[std::size_t(partial[0])].type), QStringLiteral("return_statement"));
    QCOMPARE(tab->editor()->textCursor().position(), at); // the editor's cursor stays where the user put it

    // The other way: a node selected in a view marks its text in the editor and moves the cursor there.
    int binary = -1;
    for (const AstNode& n : r.tree.nodes())
        if (n.type == "binary_operator")
            binary = n.id;
    QVERIFY(binary >= 0);
    tab->selectNode(binary);
    const auto marks = tab->editor()->extraSelections();
    QCOMPARE(marks.size(), 1);
    QCOMPARE(marks[0].cursor.selectedText(), QStringLiteral("x + 1"));
    QCOMPARE(tab->editor()->textCursor().position(), int(code.indexOf(QLatin1String("x + 1"))));
    QCOMPARE(tab->selectedNode(), binary); // moving the cursor there did not replace the view's selection
    if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/editor-node-linked.png")));
}

void TestConventions::completionEditedAndRescored()
{
    MainWindow w;
    w.show();
    QVERIFY(loadTiny(w));
    auto* tab = w.page<InteractivePage>();
    const QString prompt = QStringLiteral("def add(a, b):\n");
    tab->setPrompt(prompt);
    tab->maxNewTokensBox()->setValue(6);
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QVERIFY(!tab->editCompletionButton()->isEnabled());
    QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    const std::string generated = tab->shown()->eval->scored.text;
    QVERIFY(tab->shown()->generatedTokens() > 0);
    QVERIFY(tab->editCompletionButton()->isEnabled());

    QTest::mouseClick(tab->editCompletionButton(), Qt::LeftButton);
    QCOMPARE(toUtf8(tab->prompt()), generated);
    QCOMPARE(tab->completionBoundary(), qint64(prompt.size()));
    // Edit the completion (at its end) and the prompt (at its start): the boundary follows.
    QTest::keyClicks(tab->editor(), QStringLiteral(" return a"));
    QTextCursor c = tab->editor()->textCursor();
    c.setPosition(0);
    c.insertText(QStringLiteral("# s\n"));
    QCOMPARE(tab->completionBoundary(), qint64(prompt.size() + 4));
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    const ScoredText& s = tab->shown()->eval->scored;
    QCOMPARE(s.text, "# s\n" + generated + " return a");
    QCOMPARE(s.promptBytes, std::size_t(prompt.size() + 4));
    QCOMPARE(tab->shown()->prompt, QStringLiteral("# s\n") + prompt);
    std::size_t before = 0;
    for (const ScoredToken& t : s.tokens) {
        QCOMPARE(t.generated, t.start >= s.promptBytes);
        before += t.generated ? 0 : 1;
    }
    QCOMPARE(s.promptTokens, before);
    QVERIFY(tab->shown()->generatedTokens() > 0);
    // A plain Score of a new text has no boundary.
    tab->setPrompt(QStringLiteral("x = 1\n"));
    QCOMPARE(tab->completionBoundary(), qint64(-1));
}

QTEST_MAIN(TestConventions)
#include "test_conventions.moc"
