// Text files that are not UTF-8 (issue 28): the Interactive page's Open… and drop paths refuse them with the
// CLI's line (the file and the byte offset of the first invalid byte) and leave the editor and the language
// as they were; the scripted mode (--prompt-file) prints that line and exits with status 1.
#include "commandline.h"
#include "mainwindow.h"
#include "pages/interactive/interactivepage.h"

#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace ascviz::ui;

namespace {

// "caf\xe9" (latin-1 é) and a newline: byte 3 is the first invalid byte.
QString writeLatin1(const QTemporaryDir& dir, const QString& name)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write("caf\xe9\n");
    return path;
}

QString expectedLine(const QString& path)
{
    return path + QStringLiteral(" is not valid UTF-8 (first invalid byte at offset 3)");
}

} // namespace

class TestNonUtf8 : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_nonutf8"));
        QVERIFY(m_dir.isValid());
    }

    // Before the fix the file opened as "caf\uFFFD" (openPromptFile returned true) and the language switched
    // to the file's (Java).
    void openAndDropRefuseALatin1File()
    {
        MainWindow w;
        w.show();
        InteractivePage* tab = w.page<InteractivePage>();
        QVERIFY(tab);
        tab->setLanguage(QStringLiteral("python"));
        QVERIFY(tab->setPrompt(QStringLiteral("x = 1\n")));
        const QString latin1 = writeLatin1(m_dir, QStringLiteral("Cafe.java"));
        QString error;
        QVERIFY(!tab->openPromptFile(latin1, &error));
        QCOMPARE(error, expectedLine(latin1));
        QCOMPARE(tab->prompt(), QStringLiteral("x = 1\n"));
        QCOMPARE(tab->language(), QStringLiteral("python"));

        // The same file dropped on the editor: the same line through errorOccurred, the editor unchanged.
        QSignalSpy refused(tab, &InteractivePage::errorOccurred);
        QPlainTextEdit* editor = tab->editor();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(latin1)});
        const QPointF pos = QPointF(editor->viewport()->rect().center());
        QDragEnterEvent enter(pos.toPoint(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(editor->viewport(), &enter);
        QDragMoveEvent move(pos.toPoint(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(editor->viewport(), &move);
        QDropEvent drop(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(editor->viewport(), &drop);
        QCOMPARE(refused.size(), 1);
        QCOMPARE(refused.first().at(0).toString(), expectedLine(latin1));
        QCOMPARE(tab->prompt(), QStringLiteral("x = 1\n"));
        QCOMPARE(tab->language(), QStringLiteral("python"));

        // A UTF-8 file still opens.
        const QString utf8 = m_dir.filePath(QStringLiteral("ok.py"));
        QFile f(utf8);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("caf\xc3\xa9 = 1\n");
        f.close();
        QVERIFY2(tab->openPromptFile(utf8, &error), qPrintable(error));
        QCOMPARE(tab->prompt(), QStringLiteral("café = 1\n"));
    }

    // Scripted without --quit (a screenshot run): before the fix the message was printed and the window stayed
    // open (no exit); now the run ends with status 1.
    void scriptedRunExitsWithStatusOne()
    {
        const QString latin1 = writeLatin1(m_dir, QStringLiteral("p.py"));
        GuiOptions o;
        QString message;
        QCOMPARE(parseGuiCommandLine({QStringLiteral("ascviz"), QStringLiteral("--prompt-file"), latin1,
                                      QStringLiteral("--screenshot"), m_dir.filePath(QStringLiteral("s.png"))},
                                     &o, &message),
                 ParseResult::Ok);
        MainWindow w;
        AutoRun run(&w, o);
        QSignalSpy finished(&run, &AutoRun::finished);
        run.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QCOMPARE(finished.first().first().toInt(), 1);
        QCOMPARE(w.page<InteractivePage>()->prompt(), QString());
    }

    // The executable itself: status 1 and the CLI's line on stderr. Before the fix it printed the line and
    // kept running: also with --quit, the exit asked for before the event loop started was lost.
    void executablePrintsTheLineAndExitsOne()
    {
        const QString latin1 = writeLatin1(m_dir, QStringLiteral("q.py"));
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_dir.filePath(QStringLiteral("data")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(ASCVIZ_GUI_PATH),
                {QStringLiteral("--prompt-file"), latin1, QStringLiteral("--screenshot"),
                 m_dir.filePath(QStringLiteral("q.png"))});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("ascviz: ") + expectedLine(latin1)), qPrintable(err));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestNonUtf8)
#include "test_nonutf8.moc"
