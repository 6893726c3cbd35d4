// Long work in the GUI (issue 28): scoring a long text in the Interactive tab shows its progress (windows of
// the model's context) and Stop ends it between forward passes, leaving the last result and the controls usable.
#include "uitest_util.h"

#include "mainwindow.h"
#include "pages/interactive/interactiveengine.h"
#include "pages/interactive/interactivepage.h"
#include "services/modelservice.h"

#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace ascviz;
using namespace ascviz::ui;

class TestLongWork : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void scoringShowsProgressAndStops();
};

void TestLongWork::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_ui_longwork"));
}

void TestLongWork::scoringShowsProgressAndStops()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
    w.loadModel(uitest::tinyModelQ());
    QVERIFY(loaded.wait(60000));
    InteractivePage* tab = w.page<InteractivePage>();
    // tiny-gpt2's context is 128 ids: this text takes well over 16 windows, i.e. several forward passes.
    QString code;
    for (int i = 0; code.size() < 12000; ++i)
        code += QStringLiteral("def f%1(x):\n    return x * %1\n").arg(i);
    tab->setPrompt(code);

    int reports = 0;
    bool stopWasEnabled = false, barShown = false;
    connect(tab->engine(), &InteractiveEngine::scoringProgress, tab, [&](quint64, int done, int total) {
        if (++reports > 1)
            return;
        QVERIFY(done > 0 && done < total);
        stopWasEnabled = tab->stopButton()->isEnabled();
        barShown = tab->scoreProgress()->isVisible() && tab->scoreProgress()->maximum() == total &&
                   tab->scoreProgress()->value() == done;
        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty())
            w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/scoring-progress.png"));
        QTest::mouseClick(tab->stopButton(), Qt::LeftButton);
    });
    QSignalSpy stopped(tab->engine(), &InteractiveEngine::scoringStopped);
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(tab->stopButton()->isEnabled()); // at once, before the first forward pass ends
    QVERIFY(stopped.wait(60000));
    QVERIFY(stopWasEnabled);
    QVERIFY(barShown);
    // The stop lands before the next forward pass; the one running when Stop was clicked may still report.
    QVERIFY2(reports <= 2, qPrintable(QString::number(reports)));
    QCOMPARE(shown.count(), 0);
    QVERIFY(!tab->shown());
    QCOMPARE(int(tab->engine()->phase()), int(InteractiveEngine::Phase::Idle));
    QVERIFY(tab->scoreButton()->isEnabled());
    QVERIFY(!tab->stopButton()->isEnabled());
    QVERIFY(!tab->scoreProgress()->isVisible());

    // Scoring again runs to the end and shows the result.
    disconnect(tab->engine(), &InteractiveEngine::scoringProgress, tab, nullptr);
    tab->setPrompt(code.left(3000));
    QTest::mouseClick(tab->scoreButton(), Qt::LeftButton);
    QVERIFY(shown.wait(60000));
    QVERIFY(tab->shown());
}

QTEST_MAIN(TestLongWork)
#include "test_longwork.moc"
