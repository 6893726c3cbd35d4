// Large trees in the AST views (issue 28): folding a subtree (double-click, "…(n)" on the node), Fit folding the
// deepest levels first so labels stay readable, zoom to the selection, the breadcrumb root → selection, code
// text on partial-view nodes, and the study's tree conditions opening scaled to the trial area.
#include "uitest_util.h"

#include "study_test_util.h"

#include "common/figureoptions.h"
#include "common/textpos.h"
#include "pages/interactive/interactiveengine.h"
#include "pages/interactive/interactivepage.h"
#include "pages/study/trialscreen.h"
#include "services/modelservice.h"
#include "views/astview.h"

#include "ascviz/render/layout.h"

#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace ascviz;
using namespace ascviz::ui;
using Kind = ascviz::AstView;

namespace {

struct Fixture {
    ModelService models;
    InteractivePage tab{&models};
    Fixture() { tab.resize(1200, 700); }
    AnalysisPtr show(ScoredText s)
    {
        QSignalSpy spy(&tab, &InteractivePage::resultShown);
        const QString prompt = toQString(s.text.substr(0, s.promptBytes));
        tab.engine()->analyze(std::move(s), AnalysisOrigin::Scored, prompt);
        return spy.wait(20000) ? tab.shown() : nullptr;
    }
    // Shown, on `view`, with `code` scored by hand.
    AnalysisPtr open(const std::string& code, InteractivePage::View view)
    {
        tab.show();
        if (!QTest::qWaitForWindowExposed(&tab))
            return nullptr;
        tab.showView(view);
        return show(uitest::tokenizedText(code));
    }
    void shot(const QString& name)
    {
        if (const QByteArray dir = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(tab.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name));
    }
};

// A wide and deep tree: 30 statements with nested calls.
std::string wideCode()
{
    std::string code = "def wide(a, b):\n";
    for (int i = 0; i < 30; ++i)
        code += "    v" + std::to_string(i) + " = f(g(a, h(b, " + std::to_string(i) + ")), b * a)\n";
    return code;
}

QToolButton* toolButton(QWidget* parent, const QString& text)
{
    for (auto* b : parent->findChildren<QToolButton*>())
        if (b->text() == text)
            return b;
    return nullptr;
}

AstNodeItem* itemOfType(ui::AstView* v, const AnalysisPtr& a, const std::string& type)
{
    AstNodeItem* found = nullptr;
    for (AstNodeItem* it : v->nodeItems())
        if (a->eval->tree.nodes()[std::size_t(it->node())].type == type && (!found || it->node() < found->node()))
            found = it;
    return found;
}

} // namespace

class TestLargeTree : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void doubleClickFoldsASubtree();
    void fitFoldsDeepLevelsFirst();
    void zoomToSelectionAndBreadcrumb();
    void partialNodesShowTheirCode();
    void studyTreesOpenFittedToTheTrialArea();
    void exportsDrawTheTreeAsSeen();
};

void TestLargeTree::doubleClickFoldsASubtree()
{
    Fixture f;
    const AnalysisPtr a = f.open("x = g(1, 2)\n", InteractivePage::View::Complete);
    QVERIFY(a);
    ui::AstView* v = f.tab.astView(Kind::Complete);
    const int all = int(v->nodeItems().size());
    QCOMPARE(all, int(a->eval->tree.nodes().size()));
    AstNodeItem* call = itemOfType(v, a, "call");
    QVERIFY(call);
    const int node = call->node();
    const int hidden = int(shownDescendants(*a->eval, node, Kind::Complete));
    QVERIFY(hidden >= 6); // g ( 1 , 2 ) and argument_list
    v->fitWhole();
    QTest::mouseDClick(v->viewport(), Qt::LeftButton, {}, v->mapFromScene(call->pos()));
    QVERIFY(v->isCollapsed(node));
    QCOMPARE(int(v->nodeItems().size()), all - hidden);
    call = v->itemForNode(node);
    QVERIFY(call);
    QVERIFY2(call->label().endsWith(QStringLiteral("\u2026(%1)").arg(hidden)), qPrintable(call->label()));
    f.shot(QStringLiteral("ast-folded-call.png"));
    // Double-click again: unfolded; Expand all undoes every fold.
    QTest::mouseDClick(v->viewport(), Qt::LeftButton, {}, v->mapFromScene(call->pos()));
    QVERIFY(!v->isCollapsed(node));
    QCOMPARE(int(v->nodeItems().size()), all);
    v->setCollapsed(node, true);
    QTest::mouseClick(toolButton(v->parentWidget(), QStringLiteral("Expand all")), Qt::LeftButton);
    QCOMPARE(int(v->nodeItems().size()), all);
    // A leaf has nothing to fold.
    v->setCollapsed(int(a->eval->tree.nodes().size()) - 1, true);
    QVERIFY(v->collapsedNodes().isEmpty());
}

void TestLargeTree::fitFoldsDeepLevelsFirst()
{
    Fixture f;
    const AnalysisPtr a = f.open(wideCode(), InteractivePage::View::Complete);
    QVERIFY(a);
    ui::AstView* v = f.tab.astView(Kind::Complete);
    QTest::mouseClick(toolButton(v->parentWidget(), QStringLiteral("Fit")), Qt::LeftButton);
    // Readable, whole, and folded at one depth: every folded node at the same depth, nothing deeper shown.
    QVERIFY2(v->zoom() >= ui::AstView::kLegibleZoom - 1e-9, qPrintable(QString::number(v->zoom())));
    const QRect shown = v->mapFromScene(v->sceneRect()).boundingRect();
    QVERIFY(shown.width() <= v->viewport()->width() + 2 && shown.height() <= v->viewport()->height() + 2);
    const QVector<int> folded = v->collapsedNodes();
    QVERIFY(!folded.isEmpty());
    const auto& nodes = a->eval->tree.nodes();
    const int depth = nodes[std::size_t(folded.first())].depth;
    QCOMPARE(std::vector<int>(folded.begin(), folded.end()), foldAtDepth(*a->eval, Kind::Complete, depth));
    for (AstNodeItem* it : v->nodeItems())
        QVERIFY(nodes[std::size_t(it->node())].depth <= depth);
    // The deepest depth that fits: one level more would not be readable in this viewport.
    LayoutOptions deeper;
    deeper.collapsed = foldAtDepth(*a->eval, Kind::Complete, depth + 1);
    const GraphLayout g = layoutAstTree(*a->eval, Kind::Complete, deeper);
    QVERIFY(std::min(v->viewport()->width() / (g.width + 32), v->viewport()->height() / (g.height + 32)) <
            ui::AstView::kLegibleZoom);
    f.shot(QStringLiteral("ast-fit-folded.png"));
}

void TestLargeTree::zoomToSelectionAndBreadcrumb()
{
    Fixture f;
    const AnalysisPtr a = f.open(wideCode(), InteractivePage::View::Complete);
    QVERIFY(a);
    ui::AstView* v = f.tab.astView(Kind::Complete);
    v->fitWhole(); // the whole tree: tiny labels
    QVERIFY(v->zoom() < ui::AstView::kLegibleZoom);
    // The last argument_list of the tree.
    const auto& nodes = a->eval->tree.nodes();
    int target = -1;
    for (const AstNode& n : nodes)
        if (n.type == "argument_list")
            target = n.id;
    f.tab.selectNode(target);
    QTest::mouseClick(toolButton(v->parentWidget(), QStringLiteral("Selection")), Qt::LeftButton);
    QVERIFY(v->zoom() >= ui::AstView::kLegibleZoom);
    const QRect viewport = v->viewport()->rect().adjusted(-2, -2, 2, 2);
    QVERIFY(viewport.contains(v->mapFromScene(v->itemForNode(target)->sceneBoundingRect()).boundingRect()));
    // The breadcrumb names the path root → node; a click on a step selects that node.
    auto* crumbs = v->parentWidget()->findChild<QLabel*>(QStringLiteral("astBreadcrumb"));
    QVERIFY(crumbs);
    QStringList types;
    for (int n = target; n >= 0; n = nodes[std::size_t(n)].parent)
        types.prepend(toQString(nodes[std::size_t(n)].type));
    QVERIFY(crumbs->text().startsWith(QLatin1String("<a href=\"#0\">module</a>")));
    QCOMPARE(QString(crumbs->text()).remove(QRegularExpression(QStringLiteral("<[^>]*>"))),
             types.join(QStringLiteral(" › ")));
    const int parent = nodes[std::size_t(target)].parent;
    Q_EMIT crumbs->linkActivated(QStringLiteral("#%1").arg(parent));
    QCOMPARE(f.tab.selectedNode(), parent);
    f.shot(QStringLiteral("ast-selection-breadcrumb.png"));
}

void TestLargeTree::partialNodesShowTheirCode()
{
    Fixture f;
    const AnalysisPtr a = f.open("x = g(1, 2)\n", InteractivePage::View::Partial);
    QVERIFY(a);
    ui::AstView* v = f.tab.astView(Kind::Partial);
    AstNodeItem* call = itemOfType(v, a, "call");
    QVERIFY(!call->label().contains(QLatin1String("g(1, 2)")));
    QToolButton* code = toolButton(v->parentWidget(), QStringLiteral("Code"));
    QVERIFY(code && code->isCheckable());
    QTest::mouseClick(code, Qt::LeftButton);
    QVERIFY(v->showsCode());
    call = itemOfType(v, a, "call");
    QVERIFY2(call->label().contains(QLatin1String("\ng(1, 2)\n")), qPrintable(call->label()));
    f.shot(QStringLiteral("ast-partial-code.png"));
    QTest::mouseClick(code, Qt::LeftButton);
    QVERIFY(!itemOfType(v, a, "call")->label().contains(QLatin1String("g(1, 2)")));
}

void TestLargeTree::studyTreesOpenFittedToTheTrialArea()
{
    auto study = std::make_shared<const Study>(studytest::handStudy(4, 1));
    TrialScreen screen(study);
    screen.resize(900, 560);
    screen.show();
    QVERIFY(QTest::qWaitForWindowExposed(&screen));
    const auto& trials = study->participants.front().trials;
    int shown = 0;
    for (std::size_t t = 0; t < trials.size(); ++t) {
        if (trials[t].condition != "S2" && trials[t].condition != "S3")
            continue;
        screen.showTrial(int(t), int(trials.size()), trials[t]);
        auto* ast = qobject_cast<ui::AstView*>(screen.conditionView());
        QVERIFY(ast);
        // The whole tree in the trial area, at once and after the window changes size; nothing folded.
        const auto fitted = [ast] {
            const QRect r = ast->mapFromScene(ast->sceneRect()).boundingRect();
            return r.width() <= ast->viewport()->width() + 2 && r.height() <= ast->viewport()->height() + 2;
        };
        QTRY_VERIFY(fitted());
        QVERIFY(ast->collapsedNodes().isEmpty());
        QCOMPARE(
            int(ast->nodeItems().size()),
            int(visibleNodes(*studySampleAnalysis(study->samples[std::size_t(trials[t].sample)])->eval, ast->kind())
                    .size()));
        screen.resize(700, 480);
        QTRY_VERIFY(fitted());
        screen.resize(900, 560);
        if (++shown == 1)
            if (const QByteArray dir = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !dir.isEmpty())
                QVERIFY(screen.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/study-trial-fitted.png")));
    }
    QVERIFY(shown >= 1);
}

QTEST_MAIN(TestLargeTree)
// Issue 54: File › Export › Current view as PDF/SVG is the view as seen — zoomed to a selection it draws the subtree in
// view, folded subtrees stay folded with their "…(n)", nothing else is collapsed; a node's "Export subtree…" draws
// that node's subtree with the view's folds.
void TestLargeTree::exportsDrawTheTreeAsSeen()
{
    Fixture f;
    const AnalysisPtr a = f.open(wideCode(), InteractivePage::View::Complete);
    QVERIFY(a);
    ui::AstView* v = f.tab.astView(Kind::Complete);
    const auto& nodes = a->eval->tree.nodes();
    QTemporaryDir dir;
    auto exportSvg = [&](const QString& name, int subtree = -1) {
        const QString path = dir.filePath(name);
        QString err;
        if (!f.tab.exportFigure(path, InteractivePage::View::Complete, FigureExportOptions{}, false, &err, subtree))
            qWarning("export failed: %s", qPrintable(err));
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    };
    // "N of M nodes shown" in the figure's title block.
    auto shownCount = [](const QString& svg) {
        const auto m = QRegularExpression(QStringLiteral("(\\d+) of (\\d+) nodes shown")).match(svg);
        return m.hasMatch() ? m.captured(1).toInt() : -1;
    };
    // The whole tree in view, one statement folded: every node but the folded ones, "…(n)" on the folded node.
    v->fitWhole();
    int target = -1;
    for (const AstNode& n : nodes)
        if (n.type == "expression_statement")
            target = n.id; // the last statement
    QVERIFY(target >= 0);
    v->setCollapsed(target, true);
    v->fitWhole();
    LayoutOptions seen = v->shownLayout();
    QCOMPARE(seen.subtree, -1);
    QCOMPARE(seen.collapsed, std::vector<int>{target});
    const int hidden = int(shownDescendants(*a->eval, target, Kind::Complete));
    const QString whole = exportSvg(QStringLiteral("whole.svg"));
    QCOMPARE(shownCount(whole), int(nodes.size()) - hidden);
    QVERIFY2(whole.contains(QStringLiteral("\u2026(%1)").arg(hidden)), "the folded node's marker");
    QVERIFY(!whole.contains(QStringLiteral("depth \u2264"))); // no level collapsed beyond what the view shows
    // Zoomed to the first statement: its subtree (or its statement's ancestors) and nothing of the others.
    v->expandAll();
    int first = -1;
    for (const AstNode& n : nodes)
        if (n.type == "expression_statement") {
            first = n.id;
            break;
        }
    f.tab.selectNode(first);
    QTest::mouseClick(toolButton(v->parentWidget(), QStringLiteral("Selection")), Qt::LeftButton);
    seen = v->shownLayout();
    QCOMPARE(v->highlightedNodes(), QVector<int>{first});
    QCOMPARE(seen.subtree, first); // zoomed to the selection: its subtree
    QVERIFY(seen.collapsed.empty());
    const int expect = int(visibleNodes(*a->eval, Kind::Complete, seen).size());
    QVERIFY2(expect < int(nodes.size()) / 4, qPrintable(QStringLiteral("%1 nodes in view, subtree %2 (selected %3)")
                                                            .arg(expect)
                                                            .arg(seen.subtree)
                                                            .arg(first))); // a part, not the tree
    // The subtree in view holds the selected statement.
    bool holds = false;
    for (int n = first; n >= 0; n = nodes[std::size_t(n)].parent)
        holds = holds || n == seen.subtree;
    QVERIFY(holds);
    const QString zoomed = exportSvg(QStringLiteral("zoomed.svg"));
    QCOMPARE(shownCount(zoomed), expect);
    QVERIFY(zoomed.contains(QStringLiteral("(subtree of node %1)").arg(seen.subtree)));
    // Export subtree… on a node: that subtree, the view's folds kept.
    v->setCollapsed(first, true);
    const int parent = nodes[std::size_t(first)].parent;
    const QString sub = exportSvg(QStringLiteral("subtree.svg"), parent);
    LayoutOptions subtree;
    subtree.subtree = parent;
    subtree.collapsed = {first};
    QCOMPARE(shownCount(sub), int(visibleNodes(*a->eval, Kind::Complete, subtree).size()));
    QVERIFY(sub.contains(QStringLiteral("(subtree of node %1)").arg(parent)));
    f.shot(QStringLiteral("ast-export-as-seen.png"));
}

#include "test_largetree.moc"
