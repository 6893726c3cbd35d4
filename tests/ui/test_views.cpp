// The Interactive tab's views over real evaluation (tree-sitter, alignment, aggregation, Graphviz) of texts
// tokenized by the real tokenizer: sequence spans, AST items and colours, linked selection, aggregation and
// category settings, item models, exports and sessions. No model is needed: scores are given.
#include "uitest_util.h"

#include "common/textpos.h"
#include "models/resultmodels.h"
#include "pages/interactive/interactiveengine.h"
#include "pages/interactive/interactivepage.h"
#include "services/modelservice.h"
#include "views/astview.h"
#include "views/detailspanel.h"
#include "views/sequenceview.h"

#include "ascviz/eval/evaljson.h"
#include "ascviz/figure/views.h"
#include "ascviz/render/svg.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QToolButton>

#include <set>

using namespace ascviz;
using namespace ascviz::ui;
using Kind = ascviz::AstView;

namespace {

const std::string kCode = "def add(a, b):\n    total = a + b\n    return total\n";
// Emoji (4-byte UTF-8, a UTF-16 surrogate pair) and CJK (3-byte) identifiers and strings.
const std::string kUnicode = "def 计算(值):\n    s = \"héllo 🙂 世界\"\n    return 值 + len(s)  # 🚀 done\n";
const std::string kBroken = "def f(x:\n    return x +\n";

struct Fixture {
    ModelService models;
    InteractivePage tab{&models};
    InteractiveEngine& controller = *tab.engine();
    Fixture() { tab.resize(1200, 700); }

    AnalysisPtr show(ScoredText s, AnalysisOrigin origin = AnalysisOrigin::Scored)
    {
        QSignalSpy spy(&tab, &InteractivePage::resultShown);
        const QString prompt = toQString(s.text.substr(0, s.promptBytes));
        controller.analyze(std::move(s), origin, prompt);
        if (!spy.wait(20000))
            return nullptr;
        return tab.shown();
    }
};

QColor bgAt(QTextDocument* doc, int pos)
{
    QTextCursor c(doc);
    c.setPosition(pos);
    c.setPosition(pos + 1, QTextCursor::KeepAnchor);
    return c.charFormat().background().color();
}

} // namespace

class TestViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void textPositionsUnicode();
    void sequenceSpansAndColours_data();
    void sequenceSpansAndColours();
    void sequenceTooltipAndGenerated();
    void astItemsAndColours_data();
    void astItemsAndColours();
    void errorNodesMarked();
    void fitButtonFitsTheWholeTree();
    void linkedSelectionFromNode();
    void linkedSelectionFromToken();
    void detailsNameTheAggregationScope();
    void mouseClicksSelect();
    void aggregationSwitch();
    void categoryFile();
    void itemModels();
    void exports();
    void sessionRoundTrip();
    void sessionErrors();
};

void TestViews::textPositionsUnicode()
{
    const std::string s = "a🙂b世c";
    const TextPositions p(s);
    QCOMPARE(p.text(), QString::fromUtf8("a🙂b世c"));
    QCOMPARE(p.toQt(0), 0);
    QCOMPARE(p.toQt(1), 1); // 🙂 starts at byte 1, UTF-16 position 1
    QCOMPARE(p.toQt(3), 1); // inside the emoji -> its start
    QCOMPARE(p.toQt(5), 3); // 'b' after the surrogate pair
    QCOMPARE(p.toQt(6), 4); // 世
    QCOMPARE(p.toQt(9), 5); // 'c'
    QCOMPARE(p.toQt(s.size()), int(p.text().size()));
    QCOMPARE(p.toByte(3), std::size_t(5));
    QCOMPARE(p.toByte(4), std::size_t(6));
}

void TestViews::sequenceSpansAndColours_data()
{
    QTest::addColumn<QByteArray>("code");
    QTest::newRow("ascii") << QByteArray::fromStdString(kCode);
    QTest::newRow("emoji-cjk") << QByteArray::fromStdString(kUnicode);
}

void TestViews::sequenceSpansAndColours()
{
    QFETCH(QByteArray, code);
    Fixture f;
    const std::string text = code.toStdString();
    const AnalysisPtr a = f.show(uitest::tokenizedText(text));
    QVERIFY(a);
    SequenceView* v = f.tab.sequenceView();
    const auto& tokens = a->eval->scored.tokens;
    QCOMPARE(v->tokenCount(), int(tokens.size()));
    QCOMPARE(v->toPlainText(), QString::fromUtf8(code));

    // Tokens that cover whole characters: the document slice is exactly the token's bytes, and its
    // background is ascColor(NtP) (whitespace-only tokens: faint). (Byte-level BPE may split a character over two
    // tokens; those share it.)
    int whole = 0;
    std::vector<int> owners(std::size_t(v->toPlainText().size()), 0);
    for (int i = 0; i < v->tokenCount(); ++i)
        for (int p = v->tokenSpan(i).first; p < v->tokenSpan(i).second; ++p)
            ++owners[std::size_t(p)];
    for (int i = 0; i < v->tokenCount(); ++i) {
        const auto& t = tokens[std::size_t(i)];
        const auto [qs, qe] = v->tokenSpan(i);
        QVERIFY(qe > qs);
        const QString bytes = QString::fromUtf8(text.data() + t.start, qsizetype(t.end - t.start));
        if (bytes.contains(QChar::ReplacementCharacter))
            continue; // a partial UTF-8 sequence
        QCOMPARE(v->toPlainText().mid(qs, qe - qs), bytes);
        bool shared = false;
        for (int p = qs; p < qe; ++p)
            shared = shared || owners[std::size_t(p)] > 1;
        if (shared)
            continue;
        // Whitespace-only tokens (indentation, line breaks) faint, as in the figures (render/svg.h: tokenFill).
        const auto faint = ascviz::isWhitespaceToken(a->eval->scored, std::size_t(i))
                               ? ascviz::tokenFill(a->eval->scored, std::size_t(i), ascviz::WhitespaceTokens::Faint)
                               : std::nullopt;
        QCOMPARE(bgAt(v->document(), qs), faint ? QColor(faint->r, faint->g, faint->b) : ascQColor(t.ntp));
        QCOMPARE(v->tokenAtPosition(qs), i);
        ++whole;
    }
    QVERIFY(whole >= int(tokens.size()) / 2);
}

void TestViews::sequenceTooltipAndGenerated()
{
    Fixture f;
    const std::size_t promptBytes = kCode.find("    return");
    const AnalysisPtr a = f.show(uitest::tokenizedText(kCode, promptBytes), AnalysisOrigin::Generated);
    QVERIFY(a);
    SequenceView* v = f.tab.sequenceView();
    const auto& tokens = a->eval->scored.tokens;
    int generated = 0;
    for (int i = 0; i < int(tokens.size()); ++i) {
        QTextCursor c(v->document());
        c.setPosition(v->tokenSpan(i).first);
        c.setPosition(v->tokenSpan(i).first + 1, QTextCursor::KeepAnchor);
        const bool bold = c.charFormat().fontWeight() == QFont::Bold;
        QCOMPARE(bold, tokens[std::size_t(i)].generated);
        QCOMPARE(c.charFormat().fontUnderline(), tokens[std::size_t(i)].generated);
        generated += tokens[std::size_t(i)].generated ? 1 : 0;
    }
    QVERIFY(generated > 0 && generated < int(tokens.size()));
    // Tooltip: text, id, NtP, CE and the alternatives.
    const int i = 3;
    const auto& t = tokens[i];
    const QString tip = v->tokenToolTip(i);
    QVERIFY(tip.contains(QString::number(t.id)));
    QVERIFY(tip.contains(QString::number(*t.ntp, 'f', 3)));
    QVERIFY(tip.contains(QString::number(*t.crossEntropy(), 'f', 3)));
    QVERIFY(tip.contains(QStringLiteral("top alternatives")));
    QVERIFY(tip.contains(QStringLiteral("prompt")));
    QVERIFY(v->tokenToolTip(0).contains(QStringLiteral("n/a"))); // first token: no prediction
}

void TestViews::astItemsAndColours_data()
{
    QTest::addColumn<int>("view");
    QTest::addColumn<QByteArray>("code");
    QTest::newRow("partial") << int(Kind::Partial) << QByteArray::fromStdString(kCode);
    QTest::newRow("complete") << int(Kind::Complete) << QByteArray::fromStdString(kCode);
    QTest::newRow("complete-unicode") << int(Kind::Complete) << QByteArray::fromStdString(kUnicode);
}

void TestViews::astItemsAndColours()
{
    QFETCH(int, view);
    QFETCH(QByteArray, code);
    Fixture f;
    const AnalysisPtr a = f.show(uitest::tokenizedText(code.toStdString()));
    QVERIFY(a);
    const auto kind = Kind(view);
    ui::AstView* v = f.tab.astView(kind);
    const EvalResult& r = *a->eval;
    const std::vector<int> visible = visibleNodes(r, kind);
    const auto items = v->nodeItems();
    QCOMPARE(int(items.size()), int(visible.size()));
    std::set<int> seen;
    int withValue = 0;
    for (AstNodeItem* item : items) {
        QVERIFY(std::find(visible.begin(), visible.end(), item->node()) != visible.end());
        QVERIFY(seen.insert(item->node()).second);
        const auto value = r.nodes[std::size_t(item->node())].value;
        QCOMPARE(item->fillColor(), ascQColor(value));
        QCOMPARE(item->label(), toQString(nodeLabel(r, item->node(), kind)));
        withValue += value ? 1 : 0;
    }
    QVERIFY(withValue > 0);
    if (kind == Kind::Partial) {
        for (AstNodeItem* item : items)
            QVERIFY(!r.tree.nodes()[std::size_t(item->node())].isTerminal() ||
                    r.tree.nodes()[std::size_t(item->node())].error());
    }
}

void TestViews::errorNodesMarked()
{
    Fixture f;
    const AnalysisPtr a = f.show(uitest::tokenizedText(kBroken));
    QVERIFY(a);
    QVERIFY(a->eval->tree.hasErrors());
    for (auto kind : {Kind::Partial, Kind::Complete}) {
        int errors = 0;
        for (AstNodeItem* item : f.tab.astView(kind)->nodeItems()) {
            const bool isError = a->eval->tree.nodes()[std::size_t(item->node())].error();
            QCOMPARE(item->isErrorNode(), isError);
            errors += isError ? 1 : 0;
        }
        QVERIFY2(errors > 0, "the ERROR/MISSING nodes are visible in both views");
    }
}

void TestViews::fitButtonFitsTheWholeTree()
{
    // A wide tree: the complete view of 40 statements cannot fit the width at a readable zoom.
    std::string code = "def wide(a, b):\n";
    for (int i = 0; i < 40; ++i)
        code += "    v" + std::to_string(i) + " = a * " + std::to_string(i) + " + b\n";
    Fixture f;
    f.tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.tab));
    f.tab.showView(InteractivePage::View::Complete);
    QVERIFY(f.show(uitest::tokenizedText(code)));
    ui::AstView* v = f.tab.astView(Kind::Complete);
    QTRY_VERIFY(v->isVisible());
    auto visibleWidth = [v] { return v->mapFromScene(v->sceneRect()).boundingRect().width(); };
    // The first view is readable (labels legible), so the tree is wider than the viewport.
    QVERIFY2(v->zoom() >= 0.59, qPrintable(QString::number(v->zoom())));
    QVERIFY(visibleWidth() > v->viewport()->width());
    // The Fit button next to the view fits it whole: width and height.
    QToolButton* fit = nullptr;
    for (auto* b : v->parentWidget()->findChildren<QToolButton*>())
        if (b->text() == QLatin1String("Fit"))
            fit = b;
    QVERIFY(fit);
    QTest::mouseClick(fit, Qt::LeftButton);
    const QRect shown = v->mapFromScene(v->sceneRect()).boundingRect();
    QVERIFY2(shown.width() <= v->viewport()->width() + 2,
             qPrintable(QStringLiteral("%1 > %2").arg(shown.width()).arg(v->viewport()->width())));
    QVERIFY(shown.height() <= v->viewport()->height() + 2);
    QVERIFY(shown.left() >= -2 && shown.top() >= -2);
    if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(f.tab.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/complete-fit.png")));
    // It stays fitted when the window is resized, until the user zooms by hand.
    f.tab.resize(900, 600);
    QTRY_VERIFY(v->mapFromScene(v->sceneRect()).boundingRect().width() <= v->viewport()->width() + 2);
    const double fitted = v->zoom();
    v->zoomIn();
    QVERIFY(v->zoom() > fitted);
}

void TestViews::linkedSelectionFromNode()
{
    Fixture f;
    const AnalysisPtr a = f.show(uitest::tokenizedText(kUnicode));
    QVERIFY(a);
    const EvalResult& r = *a->eval;
    // A node with several aligned tokens that is visible in the partial view.
    int node = -1;
    for (int n : visibleNodes(r, Kind::Partial))
        if (r.nodes[std::size_t(n)].tokens.size() >= 3 && r.tree.nodes()[std::size_t(n)].depth >= 2) {
            node = n;
            break;
        }
    QVERIFY(node >= 0);
    f.tab.selectNode(node);
    const auto& expected = r.nodes[std::size_t(node)].tokens;
    QCOMPARE(f.tab.sequenceView()->highlightedTokens(), QVector<int>(expected.begin(), expected.end()));
    for (auto kind : {Kind::Partial, Kind::Complete})
        for (AstNodeItem* item : f.tab.astView(kind)->nodeItems())
            QCOMPARE(item->isHighlighted(), item->node() == node);
    QCOMPARE(f.tab.details()->mode(), DetailsPanel::Mode::Node);
    QCOMPARE(f.tab.details()->tokenModel()->rowCount(), int(expected.size()));
    QVERIFY(f.tab.details()->headerText().contains(toQString(r.tree.nodes()[std::size_t(node)].type)));
    QVERIFY(f.tab.details()->headerText().contains(formatValue(r.nodes[std::size_t(node)].value)));
    f.tab.clearSelection();
    QVERIFY(f.tab.sequenceView()->highlightedTokens().isEmpty());
    QCOMPARE(f.tab.details()->mode(), DetailsPanel::Mode::Summary);
}

void TestViews::linkedSelectionFromToken()
{
    Fixture f;
    const AnalysisPtr a = f.show(uitest::tokenizedText(kCode));
    QVERIFY(a);
    const EvalResult& r = *a->eval;
    const int token = 2; // inside `add`
    f.tab.selectToken(token);
    const auto& nodes = r.nodesOfToken[token];
    QVERIFY(!nodes.empty());
    const std::set<int> expected(nodes.begin(), nodes.end());
    for (auto kind : {Kind::Partial, Kind::Complete})
        for (AstNodeItem* item : f.tab.astView(kind)->nodeItems())
            QCOMPARE(item->isHighlighted(), expected.count(item->node()) == 1);
    QCOMPARE(f.tab.sequenceView()->highlightedTokens(), QVector<int>{token});
    QCOMPARE(f.tab.details()->mode(), DetailsPanel::Mode::Token);
    QCOMPARE(f.tab.details()->nodeModel()->rowCount(), int(nodes.size()));
}

void TestViews::detailsNameTheAggregationScope()
{
    // Issue 54: Details said "median" when θ was taken over the node's children.
    Fixture f;
    f.controller.setAggregationScope(AggregationScope::Children);
    const AnalysisPtr a = f.show(uitest::tokenizedText(kCode));
    QVERIFY(a);
    QVERIFY(a->eval->scope == AggregationScope::Children);
    f.tab.details()->showSummary(a);
    QVERIFY2(f.tab.details()->headerText().contains(QStringLiteral("median over children")),
             qPrintable(f.tab.details()->headerText()));
    f.tab.details()->showNode(a, 0);
    QVERIFY(f.tab.details()->headerText().contains(QStringLiteral("median over children")));
    Fixture tokens;
    const AnalysisPtr b = tokens.show(uitest::tokenizedText(kCode));
    QVERIFY(b);
    tokens.tab.details()->showSummary(b);
    QVERIFY(!tokens.tab.details()->headerText().contains(QStringLiteral("over children")));
}

void TestViews::mouseClicksSelect()
{
    Fixture f;
    f.tab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.tab));
    const AnalysisPtr a = f.show(uitest::tokenizedText(kCode));
    QVERIFY(a);
    // Click an AST node in the partial view.
    f.tab.showView(InteractivePage::View::Partial);
    ui::AstView* v = f.tab.astView(Kind::Partial);
    QTRY_VERIFY(v->isVisible());
    AstNodeItem* target = nullptr;
    for (AstNodeItem* item : v->nodeItems())
        if (a->eval->tree.nodes()[std::size_t(item->node())].type == "parameters")
            target = item;
    QVERIFY(target);
    v->centerOn(target);
    const QPoint p = v->mapFromScene(target->pos());
    QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, p);
    QCOMPARE(f.tab.selectedNode(), target->node());
    QVERIFY(target->isHighlighted());
    const auto& toks = a->eval->nodes[std::size_t(target->node())].tokens;
    QCOMPARE(f.tab.sequenceView()->highlightedTokens(), QVector<int>(toks.begin(), toks.end()));

    // Click a token in the sequence view.
    f.tab.showView(InteractivePage::View::Sequence);
    SequenceView* s = f.tab.sequenceView();
    QTRY_VERIFY(s->isVisible());
    const int token = 2;
    QTextCursor c(s->document());
    c.setPosition(s->tokenSpan(token).first);
    const QRect r = s->cursorRect(c);
    QTest::mouseClick(s->viewport(), Qt::LeftButton, {}, QPoint(r.left() + 3, r.center().y()));
    QCOMPARE(f.tab.selectedToken(), token);
    QCOMPARE(s->highlightedTokens(), QVector<int>{token});
}

void TestViews::aggregationSwitch()
{
    Fixture f;
    const AnalysisPtr a = f.show(uitest::tokenizedText(kCode));
    QVERIFY(a);
    QCOMPARE(int(a->eval->aggregation), int(Aggregation::Median));
    for (Aggregation agg : {Aggregation::Mean, Aggregation::Max, Aggregation::Min, Aggregation::Median}) {
        QSignalSpy spy(&f.tab, &InteractivePage::resultShown);
        QComboBox* box = f.tab.aggregationBox();
        box->setCurrentIndex(box->findData(int(agg)));
        QVERIFY(spy.wait(20000));
        const AnalysisPtr b = f.tab.shown();
        QCOMPARE(int(b->eval->aggregation), int(agg));
        EvalResult expected = *a->eval;
        reaggregate(expected, agg);
        bool anyDiffers = false;
        for (std::size_t i = 0; i < expected.nodes.size(); ++i) {
            QCOMPARE(b->eval->nodes[i].value.has_value(), expected.nodes[i].value.has_value());
            if (expected.nodes[i].value)
                QCOMPARE(*b->eval->nodes[i].value, *expected.nodes[i].value);
            anyDiffers = anyDiffers || b->eval->nodes[i].value != a->eval->nodes[i].value;
        }
        QCOMPARE(anyDiffers, agg != Aggregation::Median);
        for (AstNodeItem* item : f.tab.astView(Kind::Complete)->nodeItems())
            QCOMPARE(item->fillColor(), ascQColor(expected.nodes[std::size_t(item->node())].value));
    }
}

void TestViews::categoryFile()
{
    Fixture f;
    const AnalysisPtr a = f.show(uitest::tokenizedText(kCode));
    QVERIFY(a);
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("cats.json"));
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(R"({"language": "python", "categories": {"Names": ["identifier"], "Flow": ["return_statement"]}})");
    out.close();

    QSignalSpy spy(&f.tab, &InteractivePage::resultShown);
    QString error;
    QVERIFY2(f.controller.setCategoryFile(file, &error), qPrintable(error));
    QVERIFY(spy.wait(20000));
    const EvalResult& r = *f.tab.shown()->eval;
    int identifiers = 0;
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
        const auto& type = r.tree.nodes()[i].type;
        if (type == "identifier") {
            QCOMPARE(r.nodes[i].category.value_or(""), std::string("Names"));
            ++identifiers;
        } else if (type == "return_statement") {
            QCOMPARE(r.nodes[i].category.value_or(""), std::string("Flow"));
        } else {
            QVERIFY(!r.nodes[i].category);
        }
    }
    QVERIFY(identifiers > 0);

    // A broken file is refused with a message; the table in use stays.
    QFile bad(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{ not json");
    bad.close();
    QVERIFY(!f.controller.setCategoryFile(bad.fileName(), &error));
    QVERIFY(error.contains(QStringLiteral("JSON")));
    QCOMPARE(f.controller.categoryFile(), file);
}

void TestViews::itemModels()
{
    Fixture f;
    TokenTableModel tokens;
    NodeTableModel nodes;
    QAbstractItemModelTester t1(&tokens, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&nodes, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(f.tab.details()->tokenModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t4(f.tab.details()->nodeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

    const AnalysisPtr a = f.show(uitest::tokenizedText(kUnicode, 20));
    QVERIFY(a);
    tokens.setTokens(a, {}, true);
    QCOMPARE(tokens.rowCount(), int(a->eval->scored.tokens.size()));
    QCOMPARE(tokens.columnCount(), int(TokenTableModel::ColumnCount));
    nodes.setNodes(a, {}, true);
    QCOMPARE(nodes.rowCount(), int(a->eval->tree.nodes().size()));
    const int n = 3;
    QCOMPARE(nodes.data(nodes.index(n, NodeTableModel::Type)).toString(), toQString(a->eval->tree.nodes()[n].type));
    QCOMPARE(nodes.data(nodes.index(n, NodeTableModel::Value)).toString(), formatValue(a->eval->nodes[n].value));
    QCOMPARE(nodes.data(nodes.index(n, NodeTableModel::Value), Qt::BackgroundRole).value<QColor>(),
             ascQColor(a->eval->nodes[n].value));
    QCOMPARE(tokens.data(tokens.index(4, TokenTableModel::NtP)).toString(), formatValue(a->eval->scored.tokens[4].ntp));
    tokens.setTokens(a, {5, 1, 999, -1});
    QCOMPARE(tokens.rowCount(), 2);
    QCOMPARE(tokens.tokenAt(0), 5);
    tokens.setTokens(nullptr, {});
    QCOMPARE(tokens.rowCount(), 0);
    nodes.setNodes(a, {0, 2});
    QCOMPARE(nodes.rowCount(), 2);
    f.tab.selectNode(1);
    f.tab.selectToken(3);
    f.tab.clearSelection();
}

void TestViews::exports()
{
    Fixture f;
    const AnalysisPtr a = f.show(uitest::tokenizedText(kUnicode, 25));
    QVERIFY(a);
    QTemporaryDir dir;
    QString error;
    for (auto v : {InteractivePage::View::Sequence, InteractivePage::View::Partial, InteractivePage::View::Complete}) {
        const QString name = resultViewName(v);
        const QString svg = dir.filePath(name + QStringLiteral(".svg"));
        QVERIFY2(f.tab.exportSvg(svg, v, &error), qPrintable(error));
        QFile in(svg);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        QVERIFY(bytes.contains("<svg"));
        const std::string expected =
            v == InteractivePage::View::Sequence
                ? renderSequenceSvg(*a->eval)
                : renderAstSvg(*a->eval, v == InteractivePage::View::Partial ? Kind::Partial : Kind::Complete);
        QCOMPARE(bytes.toStdString(), expected);

        const QString png = dir.filePath(name + QStringLiteral(".png"));
        QVERIFY2(f.tab.exportPng(png, v, &error), qPrintable(error));
        QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY(img.width() > 100 && img.height() > 50);
    }
    const QString json = dir.filePath(QStringLiteral("result.json"));
    QVERIFY2(f.tab.exportJson(json, &error), qPrintable(error));
    QFile in(json);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const auto j = nlohmann::json::parse(in.readAll().toStdString());
    QVERIFY(j == evalResultJson(*a->eval));
    QCOMPARE(std::size_t(j["tokens"].size()), a->eval->scored.tokens.size());
    QCOMPARE(std::size_t(j["nodes"].size()), a->eval->tree.nodes().size());
    QVERIFY(j["summary"].contains("asc_eval"));
    QVERIFY(!f.tab.exportSvg(QStringLiteral("/nonexistent-dir/x.svg"), InteractivePage::View::Sequence, &error));
    QVERIFY(error.contains(QStringLiteral("/nonexistent-dir/x.svg")));
}

void TestViews::sessionRoundTrip()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("s.ascviz"));
    const std::size_t promptBytes = kUnicode.find("    return");
    AnalysisPtr before;
    {
        Fixture f;
        before = f.show(uitest::tokenizedText(kUnicode, promptBytes), AnalysisOrigin::Generated);
        QVERIFY(before);
        QSignalSpy spy(&f.tab, &InteractivePage::resultShown);
        f.tab.aggregationBox()->setCurrentIndex(f.tab.aggregationBox()->findData(int(Aggregation::Max)));
        QVERIFY(spy.wait(20000));
        before = f.tab.shown();
        f.tab.showView(InteractivePage::View::Complete);
        QString error;
        QVERIFY2(f.tab.saveSession(file, &error), qPrintable(error));
    }
    Fixture g;
    QSignalSpy spy(&g.tab, &InteractivePage::resultShown);
    QString error;
    QVERIFY2(g.tab.openSession(file, &error), qPrintable(error));
    QVERIFY(spy.wait(20000));
    const AnalysisPtr after = g.tab.shown();
    QVERIFY(after);
    const ScoredText& s0 = before->eval->scored;
    const ScoredText& s1 = after->eval->scored;
    QCOMPARE(s1.text, s0.text);
    QCOMPARE(s1.promptBytes, s0.promptBytes);
    QCOMPARE(s1.promptTokens, s0.promptTokens);
    QCOMPARE(s1.model, s0.model);
    QCOMPARE(s1.tokens.size(), s0.tokens.size());
    for (std::size_t i = 0; i < s0.tokens.size(); ++i) {
        QCOMPARE(s1.tokens[i].id, s0.tokens[i].id);
        QCOMPARE(s1.tokens[i].start, s0.tokens[i].start);
        QCOMPARE(s1.tokens[i].end, s0.tokens[i].end);
        QCOMPARE(s1.tokens[i].ntp, s0.tokens[i].ntp);
        QCOMPARE(s1.tokens[i].generated, s0.tokens[i].generated);
        QCOMPARE(s1.tokens[i].top.size(), s0.tokens[i].top.size());
        QCOMPARE(s1.tokens[i].top[0].text, s0.tokens[i].top[0].text);
    }
    QCOMPARE(int(after->eval->aggregation), int(Aggregation::Max));
    QCOMPARE(g.tab.aggregationBox()->currentData().toInt(), int(Aggregation::Max));
    for (std::size_t i = 0; i < before->eval->nodes.size(); ++i)
        QCOMPARE(after->eval->nodes[i].value, before->eval->nodes[i].value);
    QCOMPARE(g.tab.prompt(), toQString(kUnicode.substr(0, promptBytes)));
    QCOMPARE(int(after->origin), int(AnalysisOrigin::Generated));
    QCOMPARE(int(g.tab.currentView()), int(InteractivePage::View::Complete));
    QCOMPARE(g.tab.sequenceView()->tokenCount(), int(s0.tokens.size()));
}

void TestViews::sessionErrors()
{
    QTemporaryDir dir;
    Fixture f;
    QString error;
    QVERIFY(!f.tab.openSession(dir.filePath(QStringLiteral("missing.ascviz")), &error));
    QVERIFY(error.contains(QStringLiteral("missing.ascviz")));
    QFile bad(dir.filePath(QStringLiteral("bad.ascviz")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(
        R"({"format": "ascviz-session", "version": 1, "prompt": "x", "result": {"text": "ab", "tokens": [{"id": 1, "start": 0, "end": 9}]}})");
    bad.close();
    QVERIFY(!f.tab.openSession(bad.fileName(), &error));
    QVERIFY2(error.contains(QStringLiteral("outside the text")), qPrintable(error));
    QVERIFY(!f.tab.saveSession(dir.filePath(QStringLiteral("x.ascviz")), &error)); // nothing to save yet
}

QTEST_MAIN(TestViews)
#include "test_views.moc"
