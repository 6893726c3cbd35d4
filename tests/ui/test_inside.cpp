// Inside the model in the GUI (method.md §13) with the tiny GPT-2 fixture: the Interactive tab's Inside panel
// (the layer slider recolours the AST views with AsC-Eval at that layer, attribution colours the prompt's nodes on
// the signed scale, cancel) and the Analysis page's Layers tab (the category × layer heat map). Screenshots go to
// $ASCVIZ_SCREENSHOT_DIR when it is set.
#include "uitest_util.h"

#include "mainwindow.h"
#include "pages/analysis/analysispage.h"
#include "pages/analysis/layertab.h"
#include "pages/interactive/insidepanel.h"
#include "pages/interactive/interactivepage.h"
#include "pages/interactive/interactivestate.h"
#include "pages/interactive/resultcanvas.h"
#include "services/modelservice.h"
#include "views/astview.h"
#include "views/detailspanel.h"
#include "views/legendwidget.h"
#include "views/sequenceview.h"

#include "ascviz/base/resources.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/lens/layers.h"
#include "ascviz/model/lens.h"
#include "ascviz/results/corpus.h"
#include "common/textpos.h"

#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

#include <algorithm>

using namespace ascviz;
using namespace ascviz::ui;

class TestInside : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void attributionColours();
    void layerSliderAndAttribution();
    void insideFollowsTheShownResult();
    void insideFollowsTheEditorsSelection();
    void insideNeedsNoInteractivePage();
    void codeColouredByAttribution();
    void layerMatrixTab();
    void bundledModelScreenshot();

private:
    // Generates `tokens` tokens (greedy) after `prompt` in the Interactive tab; false when none is shown.
    static bool generate(InteractivePage* tab, const QString& prompt, int tokens)
    {
        if (!tab->setPrompt(prompt))
            return false;
        tab->decodingBox()->setCurrentIndex(0); // greedy
        tab->maxNewTokensBox()->setValue(tokens);
        QSignalSpy shown(tab, &InteractivePage::resultShown);
        tab->generateButton()->click();
        return shown.wait(120000);
    }
    // Shows the window at `width` × `height` and waits until it is on screen.
    static bool showAt(MainWindow& w, int width, int height)
    {
        w.resize(width, height);
        w.show();
        return QTest::qWaitForWindowExposed(&w);
    }
    bool loadBundled(MainWindow& w)
    {
        QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
        w.loadModel(toQString(resolveModelDir("default").string()));
        return loaded.wait(120000);
    }
    bool loadTiny(MainWindow& w)
    {
        QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
        w.loadModel(uitest::tinyModelQ());
        return loaded.wait(60000);
    }
    void shoot(QWidget* w, const QString& name)
    {
        const QByteArray dir = qgetenv("ASCVIZ_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(w->grab().save(QString::fromUtf8(dir) + QLatin1Char('/') + name));
    }
};

void TestInside::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_ui_inside"));
}

void TestInside::attributionColours()
{
    QCOMPARE(attributionColor(0.0), QColor(255, 255, 255));
    QCOMPARE(attributionColor(1.0), QColor(94, 60, 153));
    QCOMPARE(attributionColor(-1.0), QColor(230, 97, 1));
    QCOMPARE(attributionColor(0.5), QColor(175, 158, 204)); // halfway to purple, rounded half away from zero
    QCOMPARE(attributionColor(-7.0), QColor(230, 97, 1));   // clamped
    QVERIFY(attributionColor(0.8) != ascQColor(0.9));       // not AsC-Eval's scale
}

void TestInside::layerSliderAndAttribution()
{
    MainWindow w;
    QVERIFY(showAt(w, 1500, 900));
    QVERIFY(loadTiny(w));
    InteractivePage* tab = w.page<InteractivePage>();
    const QString prompt = QStringLiteral("def area(w, h):\n    s = w * h\n    return s\n\nprint(area(2, 3))\n");
    QVERIFY(generate(tab, prompt, 8));
    const AnalysisPtr a = tab->shown();
    QVERIFY(a && a->generatedTokens() >= 1);

    auto* panel = w.findChild<InsidePanel*>();
    QVERIFY(panel);
    QSignalSpy done(panel, &InsidePanel::jobDone);
    panel->computeLens();
    QVERIFY(done.wait(60000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    const int L = panel->layers();
    QCOMPARE(L, 2);
    QCOMPARE(panel->layerSlider()->maximum(), L);

    // The same numbers computed here: layer 0's AsC-Eval colours both AST views.
    const auto model = LanguageModel::load(uitest::tinyModel());
    std::vector<int32_t> ids;
    for (const auto& t : a->eval->scored.tokens)
        ids.push_back(t.id);
    const auto byPosition = layerNtpOfIds(*model, ids); // the tiny gpt2 scores without BOS
    const LayerEval le = evaluateLayers(*a->eval, byPosition, model->info().layers);
    panel->layerSlider()->setValue(0);
    int differs = 0;
    for (auto kind : {ascviz::AstView::Partial, ascviz::AstView::Complete})
        for (AstNodeItem* item : tab->astView(kind)->nodeItems()) {
            const auto v = le.nodes[std::size_t(item->node())][0];
            QCOMPARE(item->fillColor(), ascQColor(v));
            QVERIFY2(item->label().endsWith(v ? QString::number(*v, 'f', 2) : QStringLiteral("n/a")),
                     qPrintable(item->label())); // the label shows the layer's value too
            differs += item->fillColor() != ascQColor(a->eval->nodes[std::size_t(item->node())].value);
        }
    QVERIFY(differs > 0);
    // Back at L: AsC-Eval itself.
    panel->layerSlider()->setValue(L);
    for (AstNodeItem* item : tab->astView(ascviz::AstView::Partial)->nodeItems())
        QCOMPARE(item->fillColor(), ascQColor(a->eval->nodes[std::size_t(item->node())].value));

    // Attribution of the whole completion: prompt nodes on the signed scale, the rest grey.
    panel->attributeSelection();
    QVERIFY(done.wait(60000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    const auto r = panel->attribution();
    QVERIFY(r);
    QCOMPARE(r->targetKind, AttributionTargetSpec::Kind::Completion);
    QVERIFY(!r->nodes.empty());
    double maxAbs = 0;
    for (const auto& n : r->nodes)
        maxAbs = std::max(maxAbs, std::abs(n.attribution));
    QVERIFY(maxAbs > 0);
    int coloured = 0;
    for (const auto& n : r->nodes)
        if (AstNodeItem* item = tab->astView(ascviz::AstView::Complete)->itemForNode(n.id)) {
            QCOMPARE(item->fillColor(), attributionColor(n.attribution / maxAbs));
            // Issue 54: the node shows its attribution, not its AsC-Eval, while the colours are the attribution's.
            QCOMPARE(item->label().section(QLatin1Char('\n'), -1),
                     (n.attribution > 0 ? QStringLiteral("+") : QString()) + QString::number(n.attribution, 'g', 2));
            ++coloured;
        }
    QVERIFY(coloured > 0);
    tab->showView(InteractivePage::View::Complete);
    if (auto* tabs = qobject_cast<QTabWidget*>(panel->parentWidget()->parentWidget()))
        tabs->setCurrentWidget(panel);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("attribution-interactive.png"));

    // Cancel: the job ends and the panel is usable again.
    panel->methodBox()->setCurrentIndex(0);
    panel->attributeSelection();
    panel->cancel();
    QVERIFY(done.count() > 0 || done.wait(60000));
    QVERIFY(!panel->isRunning());
    QVERIFY(panel->attributeButton()->isEnabled());
}

// Issue 44: at layer ℓ the details, the summary line and the legend show layer ℓ's values (not the final layer's);
// a new result takes the lens and the attribution of the previous one away (slider, label, list).
// Issue 40: the Inside panel knows the Interactive tab only through ResultCanvas and InteractiveState; a selection
// made by moving the editor's cursor reaches it through the state (its attribution target follows).
void TestInside::insideFollowsTheEditorsSelection()
{
    MainWindow w;
    QVERIFY(showAt(w, 1500, 900));
    QVERIFY(loadTiny(w));
    InteractivePage* tab = w.page<InteractivePage>();
    auto* panel = w.findChild<InsidePanel*>();
    QVERIFY(panel);
    QVERIFY(panel->targetLabel()->text().contains(QStringLiteral("first")));
    QSignalSpy shown(tab->state(), &InteractiveState::resultShown);
    tab->scoreCode(QStringLiteral("def area(w, h):\n    s = w * h\n    return s\n"));
    QVERIFY(shown.wait(60000));
    QCOMPARE(tab->state()->shown(), tab->shown());
    QCOMPARE(panel->targetLabel()->text(), QStringLiteral("Target: the whole completion"));

    // The cursor in the editor inside "area": the token there is selected in the state, and the panel says so.
    const ScoredText& s = tab->shown()->eval->scored;
    const std::size_t at = s.text.find("area") + 1;
    int token = -1;
    for (std::size_t i = 0; i < s.tokens.size(); ++i)
        if (s.tokens[i].start <= at && at < s.tokens[i].end)
            token = int(i);
    QVERIFY(token >= 0);
    QSignalSpy selected(tab->state(), &InteractiveState::selectionChanged);
    QTextCursor c = tab->editor()->textCursor();
    c.setPosition(int(at)); // ASCII: UTF-8 bytes are characters
    tab->editor()->setTextCursor(c);
    QVERIFY(!selected.isEmpty());
    QCOMPARE(selected.last().at(1).toInt(), token);
    QCOMPARE(tab->state()->selectedToken(), token);
    QVERIFY2(panel->targetLabel()->text().contains(QStringLiteral("token %1 selected").arg(token)),
             qPrintable(panel->targetLabel()->text()));

    // The node at the cursor chosen (as a click on it in an AST view does): the panel's target is that node.
    const int node = tab->cursorNode();
    QVERIFY(node >= 0);
    const std::string type = tab->shown()->eval->tree.nodes()[std::size_t(node)].type;
    tab->state()->selectNode(node);
    QCOMPARE(tab->selectedNode(), node);
    QCOMPARE(panel->targetLabel()->text(),
             QStringLiteral("Target: node %1 (%2)").arg(node).arg(QString::fromStdString(type)));
    if (auto* tabs = qobject_cast<QTabWidget*>(panel->parentWidget()->parentWidget()))
        tabs->setCurrentWidget(panel);
    tab->showView(InteractivePage::View::Complete);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("inside-editor-selection.png"));
    // A click elsewhere clears the selection: the panel goes back to the whole completion.
    tab->clearSelection();
    QCOMPARE(panel->targetLabel()->text(), QStringLiteral("Target: the whole completion"));
}

namespace {
// A ResultCanvas with no views: it counts what the panel asks of it.
class CountingCanvas : public ResultCanvas {
public:
    InteractiveState state_;
    int clearScales = 0, spanClears = 0, redraws = 0;
    InteractiveState* state() const override { return const_cast<InteractiveState*>(&state_); }
    QString language() const override { return QStringLiteral("python"); }
    void setSpanColours(const QColor&, const std::vector<SpanColour>&, bool) override {}
    void clearSpanColours() override { ++spanClears; }
    void paintNodes(const NodePaint&) override {}
    void highlightNodes(const QVector<int>&) override {}
    void redrawNodes() override { ++redraws; }
    void setSignedScale(const QString&, std::function<QColor(double)>, double, const QColor&, const QString&) override
    {
    }
    void setRangeScale(const QString&, std::function<QColor(double)>, double, double, const QColor&,
                       const QString&) override
    {
    }
    void clearScale() override { ++clearScales; }
};
} // namespace

// The Inside panel works on any ResultCanvas (no InteractivePage at all): a result announced through the state
// resets the legend's scale through the canvas, and a node selected in the state becomes the attribution target.
void TestInside::insideNeedsNoInteractivePage()
{
    ScoredText s;
    s.text = "x = 1\n";
    for (const auto& [b, e] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {1, 3}, {3, 5}, {5, 6}}) {
        ScoredToken t;
        t.start = b;
        t.end = e;
        t.ntp = 0.5;
        s.tokens.push_back(t);
    }
    EvalRequest req;
    req.language = "python";
    auto a = std::make_shared<Analysis>();
    a->eval = std::make_shared<const EvalResult>(evaluateScores(s, req));
    CountingCanvas canvas;
    ModelService models;
    InsidePanel panel(&canvas, &models);
    canvas.state_.setResult(a);
    canvas.state_.announceResult();
    QCOMPARE(canvas.clearScales, 1);
    QCOMPARE(panel.targetLabel()->text(), QStringLiteral("Target: the whole completion"));
    int node = -1;
    for (const auto& n : a->eval->tree.nodes())
        if (n.type == "identifier")
            node = n.id;
    QVERIFY(node >= 0);
    canvas.state_.selectNode(node);
    QCOMPARE(panel.targetLabel()->text(), QStringLiteral("Target: node %1 (identifier)").arg(node));
    panel.attributeSelection(); // no model: says so, asks nothing of the canvas
    QVERIFY(panel.statusLabel()->text().contains(QStringLiteral("model")));
    QCOMPARE(canvas.redraws, 0);
}

void TestInside::insideFollowsTheShownResult()
{
    MainWindow w;
    QVERIFY(showAt(w, 1500, 900));
    QVERIFY(loadTiny(w));
    InteractivePage* tab = w.page<InteractivePage>();
    QVERIFY(generate(tab, QStringLiteral("def area(w, h):\n    s = w * h\n    return s\n"), 6));
    const AnalysisPtr a = tab->shown();
    QVERIFY(a);
    auto* panel = w.findChild<InsidePanel*>();
    QSignalSpy done(panel, &InsidePanel::jobDone);
    panel->computeLens();
    QVERIFY(done.wait(60000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));

    const auto model = LanguageModel::load(uitest::tinyModel());
    std::vector<int32_t> ids;
    for (const auto& t : a->eval->scored.tokens)
        ids.push_back(t.id);
    const LayerEval le = evaluateLayers(*a->eval, layerNtpOfIds(*model, ids), model->info().layers);
    // A node whose layer-0 value reads differently from its final value.
    int node = -1;
    for (std::size_t k = 0; k < le.nodes.size() && node < 0; ++k)
        if (formatValue(le.nodes[k][0]) != formatValue(a->eval->nodes[k].value))
            node = int(k);
    QVERIFY(node >= 0);
    tab->selectNode(node);
    QVERIFY(tab->details()->headerText().contains(formatValue(a->eval->nodes[std::size_t(node)].value)));
    panel->layerSlider()->setValue(0);
    QVERIFY(tab->displayed() != tab->shown());
    QCOMPARE(tab->selectedNode(), node); // the selection stays
    QVERIFY2(tab->details()->headerText().contains(formatValue(le.nodes[std::size_t(node)][0])),
             qPrintable(tab->details()->headerText()));
    QVERIFY2(tab->summaryLabel()->text().contains(QStringLiteral("layer 0 of 2")),
             qPrintable(tab->summaryLabel()->text()));
    QVERIFY(!tab->legend()->valueTitle().isEmpty());
    // The summary's AsC-Eval is the mean over the nodes' layer-0 values.
    double sum = 0;
    int n = 0;
    for (const auto& row : le.nodes)
        if (row[0]) {
            sum += *row[0];
            ++n;
        }
    QVERIFY(n > 0);
    QVERIFY(tab->summaryLabel()->text().contains(formatValue(sum / n)));
    // Back at the final layer: the result itself.
    panel->layerSlider()->setValue(2);
    QCOMPARE(tab->displayed(), tab->shown());
    QVERIFY(tab->legend()->valueTitle().isEmpty());
    panel->layerSlider()->setValue(1);

    // An attribution (of the whole completion), then a new result: neither the lens nor the attribution's list
    // stays beside it.
    tab->clearSelection();
    panel->attributeSelection();
    QVERIFY(done.wait(60000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    QVERIFY(panel->topList()->count() > 0);
    QVERIFY(tab->setPrompt(QStringLiteral("x = [1, 2, 3]\nprint(len(x))\n")));
    QSignalSpy shown(tab, &InteractivePage::resultShown);
    tab->scoreButton()->click();
    QVERIFY(shown.wait(60000));
    QCOMPARE(panel->layers(), 0);
    QVERIFY(!panel->layerSlider()->isEnabled());
    QCOMPARE(panel->layerLabel()->text(), QStringLiteral("layer: —"));
    QCOMPARE(panel->topList()->count(), 0);
    QVERIFY(!panel->attribution());
    QCOMPARE(tab->displayed(), tab->shown());
    QVERIFY(tab->legend()->valueTitle().isEmpty());
    QVERIFY(!tab->summaryLabel()->text().contains(QStringLiteral("layer")));
}

// Of the completion's topmost own nodes (inside the completion, their parent starting in the prompt), the first
// with the most tokens; -1 when there is none.
static int completionNode(const EvalResult& e)
{
    const auto& nodes = e.tree.nodes();
    int best = -1;
    for (std::size_t k = 1; k < nodes.size(); ++k)
        if (nodes[k].start >= e.scored.promptBytes && !e.nodes[k].tokens.empty() &&
            nodes[std::size_t(nodes[k].parent)].start < e.scored.promptBytes &&
            (best < 0 || e.nodes[k].tokens.size() > e.nodes[std::size_t(best)].tokens.size()))
            best = int(k);
    return best;
}

// The bundled model: the attribution of a completion node colours the prompt's code (sequence view and editor) by
// each attributed node's span, the deepest node winning; an emoji and CJK before a node do not shift its colour;
// "Show AsC-Eval again" gives back the colours of before.
void TestInside::codeColouredByAttribution()
{
    MainWindow w;
    QVERIFY(showAt(w, 1600, 950));
    QVERIFY(loadBundled(w));
    InteractivePage* tab = w.page<InteractivePage>();
    const QString prompt = QStringLiteral("s = \"\U0001F600 \u6F22\u5B57\"\nn = len(s)\nprint(");
    QVERIFY(generate(tab, prompt, 6));
    const AnalysisPtr a = tab->shown();
    QVERIFY(a && a->generatedTokens() >= 1);
    const EvalResult& e = *a->eval;
    const std::string& utf8 = e.scored.text;
    QCOMPARE(e.scored.promptBytes, toUtf8(prompt).size());
    const int target = completionNode(e);
    QVERIFY2(target >= 0, utf8.c_str());
    tab->selectNode(target);

    SequenceView* seq = tab->sequenceView();
    const QString text = seq->toPlainText();
    QCOMPARE(text, toQString(utf8));
    QVector<QColor> before;
    for (int p = 0; p < text.size(); ++p)
        before << seq->backgroundAt(p);
    QVERIFY(before[0].isValid());

    auto* panel = w.findChild<InsidePanel*>();
    QSignalSpy done(panel, &InsidePanel::jobDone);
    panel->methodBox()->setCurrentIndex(0); // occlusion
    panel->attributeSelection();
    QVERIFY(done.wait(120000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    const auto r = panel->attribution();
    QVERIFY(r && r->targetNode && *r->targetNode == target);
    QVERIFY(panel->showsAttribution() && panel->clearButton()->isEnabled());
    double maxAbs = 0;
    for (const auto& n : r->nodes)
        maxAbs = std::max(maxAbs, std::abs(n.attribution));
    QVERIFY(maxAbs > 0);
    QVERIFY(panel->scaleNote()->text().contains(QString::number(maxAbs, 'g', 3)));
    QVERIFY(tab->legend()->showsSignedScale()); // the views' legend says which scale they show

    // Every character: the colour of the deepest attributed node over it (grey where none is).
    const TextPositions pos(utf8);
    int attributed = 0;
    for (int p = 0; p < text.size(); ++p) {
        if (text.at(p) == QLatin1Char('\n'))
            continue;
        const std::size_t byte = pos.toByte(p);
        const NodeAttribution* deepest = nullptr;
        for (const auto& n : r->nodes)
            if (n.start <= byte && byte < n.end &&
                (!deepest || n.depth > deepest->depth ||
                 (n.depth == deepest->depth && n.end - n.start < deepest->end - deepest->start)))
                deepest = &n;
        const QColor want = deepest ? attributionColor(deepest->attribution / maxAbs) : notAttributedColor();
        QVERIFY2(seq->backgroundAt(p) == want, qPrintable(QStringLiteral("position %1 ('%2'): %3, want %4")
                                                              .arg(p)
                                                              .arg(text.at(p))
                                                              .arg(seq->backgroundAt(p).name(), want.name())));
        attributed += deepest != nullptr;
    }
    QVERIFY(attributed > 0);

    // After the emoji (2 UTF-16 units, 4 bytes) and the CJK (1 unit, 3 bytes each): found by QString and by byte
    // search, independently of the byte-to-position map.
    const NodeAttribution* len = nullptr;
    const std::size_t lenByte = utf8.find("len(");
    for (const auto& n : r->nodes)
        if (n.start == lenByte && n.end == lenByte + 3)
            len = &n;
    QVERIFY(len);
    const int lenPos = text.indexOf(QStringLiteral("len("));
    QVERIFY(lenPos > 0 && std::size_t(lenPos) < lenByte); // the multi-byte characters do shift bytes
    for (int p = lenPos; p < lenPos + 3; ++p)
        QCOMPARE(seq->backgroundAt(p), attributionColor(len->attribution / maxAbs));

    // The editor (it holds the prompt): the last colour over "len" is the same.
    QCOMPARE(tab->editor()->toPlainText(), prompt);
    QColor inEditor;
    for (const auto& sel : tab->editor()->extraSelections())
        if (sel.cursor.selectionStart() <= lenPos && lenPos + 3 <= sel.cursor.selectionEnd())
            inEditor = sel.format.background().color();
    QCOMPARE(inEditor, attributionColor(len->attribution / maxAbs));
    shoot(&w, QStringLiteral("attribution-emoji.png"));

    // Back to AsC-Eval: the colours of before, no colours in the editor, the AST views on AsC-Eval's scale.
    panel->clearButton()->click();
    QVERIFY(!panel->showsAttribution());
    QVERIFY(!panel->clearButton()->isEnabled());
    QVERIFY(!tab->legend()->showsSignedScale());
    for (int p = 0; p < text.size(); ++p)
        QCOMPARE(seq->backgroundAt(p), before[p]);
    QVERIFY(tab->codeColours().empty());
    QVERIFY(tab->editor()->extraSelections().isEmpty());
    for (auto kind : {ascviz::AstView::Partial, ascviz::AstView::Complete})
        for (AstNodeItem* item : tab->astView(kind)->nodeItems())
            QCOMPARE(item->fillColor(), ascQColor(e.nodes[std::size_t(item->node())].value));
    QCOMPARE(tab->selectedNode(), target); // the selection stays
    QVERIFY(seq->highlightedTokens() ==
            QVector<int>(e.nodes[std::size_t(target)].tokens.begin(), e.nodes[std::size_t(target)].tokens.end()));

    // Choosing another node is the other way back; choosing the target again is not.
    panel->attributeSelection();
    QVERIFY(done.wait(120000));
    QVERIFY(done.takeFirst().at(0).toBool());
    QVERIFY(panel->showsAttribution());
    tab->selectNode(target);
    QVERIFY(panel->showsAttribution());
    QCOMPARE(seq->backgroundAt(lenPos), attributionColor(len->attribution / maxAbs));
    tab->selectNode(len->id);
    QVERIFY(!panel->showsAttribution());
    for (int p = 0; p < text.size(); ++p)
        QCOMPARE(seq->backgroundAt(p), before[p]);
    QVERIFY(tab->codeColours().empty());
}

void TestInside::layerMatrixTab()
{
    MainWindow w;
    QVERIFY(showAt(w, 1300, 800));
    auto* layers = w.findChild<LayerTab*>();
    QVERIFY(layers);
    QSignalSpy computed(layers, &LayerTab::computed);
    layers->compute(); // no model yet: says so
    QCOMPARE(computed.count(), 1);
    QCOMPARE(computed.takeFirst().at(0).toBool(), false);
    QVERIFY(layers->statusLabel()->text().contains(QStringLiteral("Load a model")));
    QVERIFY(loadTiny(w));
    layers->limitBox()->setValue(4);
    layers->compute();
    QVERIFY(computed.wait(120000));
    QCOMPARE(computed.takeFirst().at(0).toBool(), true);
    const auto m = layers->matrix();
    QVERIFY(m);
    QCOMPARE(m->layers, 2);
    QCOMPARE(m->snippets + m->skipped, 4);
    QVERIFY(layers->svg().contains(QStringLiteral("AsC-Eval by category and layer")));
    QVERIFY(layers->svg().contains(QStringLiteral(">L2<")));
    auto* analysis = w.page<AnalysisPage>();
    analysis->tabs()->setCurrentWidget(layers);
    for (auto* tabs : w.findChildren<QTabWidget*>())
        if (tabs->indexOf(analysis) >= 0)
            tabs->setCurrentWidget(analysis);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("layers-tab.png"));
}

// The bundled model on a sample-corpus function: generate a completion, the layer lens at a middle layer, then the
// attribution of the completion to the prompt's nodes, shot for the documentation (only with a screenshot folder).
void TestInside::bundledModelScreenshot()
{
    if (qEnvironmentVariableIsEmpty("ASCVIZ_SCREENSHOT_DIR"))
        QSKIP("documentation screenshot: set ASCVIZ_SCREENSHOT_DIR");
    std::string code;
    for (const auto& e : readCorpus(sampleCorpus()).entries) {
        const auto lines = std::count(e.code.begin(), e.code.end(), '\n');
        if (lines >= 7 && lines <= 10 && e.code.find("\"\"\"") == std::string::npos) {
            code = e.code;
            break;
        }
    }
    QVERIFY(!code.empty());
    // all but the last 2 lines, and the first word of the next one (a prompt that stops mid-statement)
    const std::size_t line = code.rfind('\n', code.rfind('\n', code.size() - 2) - 1) + 1;
    const std::size_t cut = std::min(code.size() - 1, code.find_first_not_of(' ', line) + 3);
    MainWindow w;
    QVERIFY(showAt(w, 1600, 950));
    QVERIFY(loadBundled(w));
    InteractivePage* tab = w.page<InteractivePage>();
    QVERIFY(generate(tab, toQString(code.substr(0, cut)), 16));
    auto* panel = w.findChild<InsidePanel*>();
    QSignalSpy done(panel, &InsidePanel::jobDone);
    panel->computeLens();
    QVERIFY(done.wait(120000));
    done.clear();
    panel->layerSlider()->setValue(panel->layers() - 2);
    tab->showView(InteractivePage::View::Partial);
    if (auto* tabs = qobject_cast<QTabWidget*>(panel->parentWidget()->parentWidget()))
        tabs->setCurrentWidget(panel);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("bundled-layer-6.png"));
    panel->layerSlider()->setValue(panel->layers());
    panel->attributeSelection();
    QVERIFY(done.wait(300000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    tab->showView(InteractivePage::View::Complete);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("bundled-attribution.png"));
    // A node of the completion: its reliance on the prompt's nodes colours the prompt's code and AST.
    const int target = completionNode(*tab->shown()->eval);
    QVERIFY(target >= 0);
    tab->selectNode(target);
    panel->attributeSelection();
    QVERIFY(done.wait(300000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    QVERIFY(panel->showsAttribution() && !tab->codeColours().empty());
    tab->showView(InteractivePage::View::Partial);
    tab->astView(ascviz::AstView::Partial)->fitWhole();
    QTest::qWait(50);
    shoot(&w, QStringLiteral("attribution.png"));
    tab->showView(InteractivePage::View::Sequence);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("attribution-sequence.png"));
}

QTEST_MAIN(TestInside)
#include "test_inside.moc"
