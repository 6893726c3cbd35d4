// The page registry (pages/registry.h): every factory builds its page over the shared services, the main
// window shows exactly the registry's pages in its order, and a page reaches the window only through PageHost.
#include "uitest_util.h"

#include "mainwindow.h"
#include "pages/batch/batchpage.h"
#include "pages/interactive/interactivepage.h"
#include "pages/page.h"
#include "pages/registry.h"
#include "pages/scriptable.h"
#include "services/modelservice.h"
#include "services/resultstore.h"

#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

#include <memory>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

struct RecordingHost : PageHost {
    QStringList errors, statuses, snippets;
    void showError(const QString& m) override { errors << m; }
    void showStatus(const QString& m) override { statuses << m; }
    void openSnippet(const QString& code, const QString& modelDir, const QString& language, const QString&) override
    {
        snippets << code + QLatin1Char('|') + modelDir + QLatin1Char('|') + language;
    }
};

} // namespace

class TestPageRegistry : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_pageregistry"));
    }

    void registryBuildsEveryPage()
    {
        ModelService models;
        ResultStore results(models.jobs());
        const PageServices services{&models, &results};
        QWidget parent;
        QCOMPARE(pageRegistry().size(), std::size_t(5));
        QSet<QString> ids, titles;
        QStringList order;
        for (const PageFactory& f : pageRegistry()) {
            Page* page = f.make(services, &parent);
            QVERIFY2(page, f.id);
            QVERIFY(page->widget());
            QCOMPARE(page->widget()->parentWidget(), &parent); // owned by the parent it was made for
            QVERIFY(!page->title().isEmpty());
            ids << QString::fromLatin1(f.id);
            titles << page->title();
            order << page->title();
        }
        QCOMPARE(ids.size(), 5);
        QCOMPARE(titles.size(), 5);
        QCOMPARE(order, QStringList({QStringLiteral("Interactive"), QStringLiteral("Batch"), QStringLiteral("Analysis"),
                                     QStringLiteral("Heads"), QStringLiteral("Study")}));
        QCOMPARE(parent.findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly).size(), 5);
    }

    void mainWindowShowsTheRegistry()
    {
        MainWindow w;
        QCOMPARE(w.pages().size(), int(pageRegistry().size()));
        for (int i = 0; i < w.pages().size(); ++i)
            QCOMPARE(w.tabs()->tabText(i), w.pages()[i]->title());
        // Typed access goes through the pages themselves (an interface or a page class).
        QVERIFY(w.page<ScriptablePage>());
        QCOMPARE(w.page<ScriptablePage>(), static_cast<ScriptablePage*>(w.page<InteractivePage>()));
        QVERIFY(w.page<BatchPage>());
        QCOMPARE(w.page<QTabWidget>(), nullptr);
    }

    void pagesReachTheirHost()
    {
        ModelService models;
        ResultStore results(models.jobs());
        RecordingHost host;
        InteractivePage interactive(&models, &results);
        BatchPage batch(&models, &results);
        interactive.attach(&host);
        batch.attach(&host);
        Q_EMIT interactive.errorOccurred(QStringLiteral("bad"));
        Q_EMIT interactive.statusMessage(QStringLiteral("fine"));
        Q_EMIT batch.openSnippetRequested(QStringLiteral("x = 1\n"), QStringLiteral("/m"), QStringLiteral("python"));
        QCOMPARE(host.errors, QStringList({QStringLiteral("bad")}));
        QCOMPARE(host.statuses, QStringList({QStringLiteral("fine")}));
        QCOMPARE(host.snippets, QStringList({QStringLiteral("x = 1\n|/m|python")}));
    }

    void viewNames()
    {
        for (ResultView v : {ResultView::Sequence, ResultView::Partial, ResultView::Complete}) {
            ResultView back = ResultView::Sequence;
            QVERIFY(parseResultView(resultViewName(v), &back));
            QCOMPARE(int(back), int(v));
        }
        ResultView v = ResultView::Partial;
        QVERIFY(!parseResultView(QStringLiteral("tree"), &v));
        QCOMPARE(int(v), int(ResultView::Partial)); // untouched
    }
};

QTEST_MAIN(TestPageRegistry)
#include "test_pageregistry.moc"
