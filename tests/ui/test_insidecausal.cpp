// The Inside panel's causal and routing views (issues 42 and 47): the Experts view on a mixture-of-experts fixture
// (a token's experts per layer equal experts/experts.h's scoreExperts; a node's are its tokens' shares) and the note
// for a dense model; the commitment colouring (the views coloured by commit_layer / asc_commit as the lens computes
// them, with the 0 … L legend); faithfulness numbers beside an attribution equal to attribute()'s. Screenshots go to
// $ASCVIZ_SCREENSHOT_DIR when it is set.
#include "uitest_util.h"

#include "common/textpos.h"
#include "mainwindow.h"
#include "pages/interactive/commitcolours.h"
#include "pages/interactive/expertsview.h"
#include "pages/interactive/insidepanel.h"
#include "pages/interactive/interactivepage.h"
#include "services/modelservice.h"
#include "views/astview.h"
#include "views/legendwidget.h"
#include "views/sequenceview.h"

#include "ascviz/attribution/attribution.h"
#include "ascviz/base/resources.h"
#include "ascviz/experts/experts.h"
#include "ascviz/lens/layers.h"
#include "ascviz/model/lens.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHash>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

using namespace ascviz;
using namespace ascviz::ui;

class TestInsideCausal : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_insidecausal"));
    }
    void nodeRowsAreShares();
    void commitScale();
    void expertsOfTokensAndNodes();
    void denseModelHasNoExperts();
    void commitmentColouring();
    void faithfulnessBesideAttribution();
    void bundledModelCommitsEarlier();

private:
    static bool load(MainWindow& w, const QString& dir)
    {
        QSignalSpy loaded(w.modelService(), &ModelService::modelLoaded);
        w.loadModel(dir);
        return loaded.wait(120000);
    }
    static bool score(InteractivePage* tab, const QString& code)
    {
        if (!tab->setPrompt(code))
            return false;
        QSignalSpy shown(tab, &InteractivePage::resultShown);
        tab->scoreButton()->click();
        return shown.wait(120000);
    }
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
    static void showInside(MainWindow& w, InsidePanel* panel)
    {
        w.resize(1500, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        if (auto* tabs = qobject_cast<QTabWidget*>(panel->parentWidget()->parentWidget()))
            tabs->setCurrentWidget(panel);
        QTest::qWait(50);
    }
    static void shoot(QWidget* w, const QString& name)
    {
        const QByteArray dir = qgetenv("ASCVIZ_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(w->grab().save(QString::fromUtf8(dir) + QLatin1Char('/') + name));
    }
};

const QString kCode = QStringLiteral("def area(w, h):\n    s = w * h\n    return s\n\nprint(area(2, 3))\n");

void TestInsideCausal::nodeRowsAreShares()
{
    // Two tokens at sparse layers 1 and 2: at layer 1 both go to expert 2 (weights .6, .7), one to 0 (.4), one to
    // 3 (.3); at layer 2 only the first token has a choice.
    std::vector<TokenExperts> ex(3);
    ex[0] = {{1, {2, 0}, {0.6, 0.4}}, {2, {1, 3}, {0.9, 0.1}}};
    ex[1] = {{1, {2, 3}, {0.7, 0.3}}};
    ex[2] = {{1, {0, 1}, {0.5, 0.5}}}; // not in the node
    const auto rows = nodeExpertRows({0, 1}, ex);
    QCOMPARE(rows.size(), std::size_t(2));
    QCOMPARE(rows[0].layer, 1);
    QCOMPARE(rows[0].ids, (std::vector<int>{2, 0, 3}));
    QCOMPARE(rows[0].values, (std::vector<double>{1.0, 0.5, 0.5}));
    QCOMPARE(rows[0].meanProbs[0], 0.65);
    QCOMPARE(rows[0].meanProbs[1], 0.4);
    QCOMPARE(rows[0].meanProbs[2], 0.3);
    QCOMPARE(rows[1].layer, 2);
    QCOMPARE(rows[1].ids, (std::vector<int>{1, 3}));
    QCOMPARE(rows[1].values, (std::vector<double>{1.0, 1.0})); // of the one token with a choice there
    QVERIFY(nodeExpertRows({}, ex).empty());
    QVERIFY(nodeExpertRows({7}, ex).empty()); // out of range: ignored
}

void TestInsideCausal::commitScale()
{
    QCOMPARE(commitColor(0.0), QColor(255, 255, 204));
    QCOMPARE(commitColor(0.5), QColor(65, 182, 196));
    QCOMPARE(commitColor(1.0), QColor(37, 52, 148));
    QCOMPARE(commitColor(2.0), QColor(37, 52, 148));
    QCOMPARE(commitColor(0.25), QColor(160, 219, 200));
    LegendWidget legend(LegendWidget::Mode::Ast);
    legend.setRangeScale(QStringLiteral("commitment layer"), commitColor, 0, 4, noCommitColor(), QStringLiteral("x"));
    QCOMPARE(legend.scaleLabels(), (QStringList{QStringLiteral("0"), QStringLiteral("2"), QStringLiteral("4")}));
    QVERIFY(legend.showsSignedScale());
    legend.setSignedScale(QStringLiteral("a"), attributionColor, 0.5, noCommitColor(), QStringLiteral("x"));
    QCOMPARE(legend.scaleLabels(), (QStringList{QStringLiteral("-0.5"), QStringLiteral("0"), QStringLiteral("0.5")}));
    legend.clearSignedScale();
    QVERIFY(legend.scaleLabels().isEmpty());
}

void TestInsideCausal::expertsOfTokensAndNodes()
{
    MainWindow w;
    const QString dir = uitest::tinyModelQ("qwen3_moe");
    QVERIFY(load(w, dir));
    InteractivePage* tab = w.page<InteractivePage>();
    QVERIFY(score(tab, kCode));
    auto* panel = w.findChild<InsidePanel*>();
    ExpertsView* view = panel->expertsView();
    QSignalSpy done(view, &ExpertsView::jobDone);
    view->computeButton()->click();
    QVERIFY(done.wait(60000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(view->noteLabel()->text()));
    QVERIFY(view->routing());

    // The same routing computed here: a token's row per sparse layer is its ids and weights.
    const auto model = LanguageModel::load(uitest::tinyModel("qwen3_moe"));
    const ScoredExperts want = scoreExperts(*model, toUtf8(kCode));
    const auto& shown = *tab->shown()->eval;
    QCOMPARE(want.tokens.size(), shown.scored.tokens.size());
    const int token = 5;
    tab->selectToken(token);
    const TokenExperts& te = want.tokens[std::size_t(token)];
    QCOMPARE(te.size(), std::size_t(3)); // every layer of the fixture is sparse
    QCOMPARE(view->table()->rowCount(), int(te.size()));
    for (std::size_t r = 0; r < te.size(); ++r) {
        QCOMPARE(view->table()->item(int(r), 0)->text(), QString::number(te[r].layer));
        QStringList ids, probs;
        for (std::size_t k = 0; k < te[r].ids.size(); ++k) {
            ids << QString::number(te[r].ids[k]);
            probs << QString::number(te[r].probs[k], 'f', 3);
        }
        QCOMPARE(te[r].ids.size(), std::size_t(2)); // top-2
        QCOMPARE(view->table()->item(int(r), 1)->text(), ids.join(QStringLiteral(", ")));
        QCOMPARE(view->table()->item(int(r), 2)->text(), probs.join(QStringLiteral(", ")));
    }
    QVERIFY(view->noteLabel()->text().startsWith(QStringLiteral("Token 5")));

    // A node with several tokens: per layer its experts by share of its tokens; the shares sum to k = 2.
    int node = -1;
    for (std::size_t k = 1; k < shown.nodes.size() && node < 0; ++k)
        if (shown.nodes[k].tokens.size() >= 3)
            node = int(k);
    QVERIFY(node > 0);
    tab->selectNode(node);
    const auto rows = nodeExpertRows(shown.nodes[std::size_t(node)].tokens, want.tokens);
    QCOMPARE(view->table()->rowCount(), int(rows.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        double sum = 0;
        for (const double v : rows[r].values)
            sum += v;
        QCOMPARE(sum, 2.0);
        QVERIFY(view->table()->item(int(r), 1)->text().startsWith(QString::number(rows[r].ids[0])));
        QVERIFY(view->table()->item(int(r), 2)->text().startsWith(QString::number(rows[r].values[0], 'f', 2)));
    }
    QVERIFY(view->noteLabel()->text().contains(QStringLiteral("share of its tokens")));
    showInside(w, panel);
    shoot(&w, QStringLiteral("experts-node.png"));

    // A new result: the routing of the old one is gone.
    QVERIFY(score(tab, QStringLiteral("x = 1\n")));
    QVERIFY(!view->routing());
    QCOMPARE(view->table()->rowCount(), 0);

    // Cancel: the job ends (cancelled, or done before the flag was seen) and the view can route again.
    done.clear();
    view->computeButton()->click();
    QVERIFY(view->isRunning() && !view->computeButton()->isEnabled());
    view->cancel();
    QVERIFY(done.count() > 0 || done.wait(60000));
    QVERIFY(!view->isRunning());
    QVERIFY(view->computeButton()->isEnabled());

    // Issue 54: a generated result is routed as shown, with the tokens it was generated with (no "score the text
    // first"): the rows equal core's routing of those tokens.
    QVERIFY(generate(tab, QStringLiteral("def f(x):\n    return"), 12));
    QVERIFY(tab->shown()->generatedTokens() > 0);
    done.clear();
    view->computeButton()->click();
    QVERIFY(done.wait(60000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(view->noteLabel()->text()));
    QVERIFY(view->routing());
    const ScoredExperts gen = scoreExpertsOfTokens(*model, tab->shown()->eval->scored);
    QCOMPARE(view->routing()->size(), tab->shown()->eval->scored.tokens.size());
    for (std::size_t t = 0; t < gen.tokens.size(); ++t) {
        QCOMPARE((*view->routing())[t].size(), gen.tokens[t].size());
        for (std::size_t l = 0; l < gen.tokens[t].size(); ++l)
            QCOMPARE((*view->routing())[t][l].ids, gen.tokens[t][l].ids);
    }
    // The text's own routing agrees where the text re-encodes to the same tokens (scoring is generation's prompt).
    const ScoredExperts again = scoreExpertsOfTokens(*model, want.scored);
    for (std::size_t t = 0; t < want.tokens.size(); ++t)
        for (std::size_t l = 0; l < want.tokens[t].size(); ++l)
            QCOMPARE(again.tokens[t][l].ids, want.tokens[t][l].ids);
    // Another model (a dense one): the routing of the previous model is cleared.
    QVERIFY(load(w, uitest::tinyModelQ()));
    QVERIFY(!view->routing());
    QCOMPARE(view->table()->rowCount(), 0);
    QVERIFY2(view->noteLabel()->text().contains(QStringLiteral("Another model")) ||
                 view->noteLabel()->text().contains(QStringLiteral("new result")),
             qPrintable(view->noteLabel()->text()));
}

void TestInsideCausal::denseModelHasNoExperts()
{
    MainWindow w;
    QVERIFY(load(w, uitest::tinyModelQ()));
    InteractivePage* tab = w.page<InteractivePage>();
    QVERIFY(score(tab, kCode));
    ExpertsView* view = w.findChild<InsidePanel*>()->expertsView();
    QSignalSpy done(view, &ExpertsView::jobDone);
    view->computeButton()->click();
    QCOMPARE(done.count(), 1);
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY2(view->noteLabel()->text().contains(QStringLiteral("dense model")), qPrintable(view->noteLabel()->text()));
    QVERIFY(view->noteLabel()->text().contains(QStringLiteral("gpt2")));
    QVERIFY(!view->routing());
    QCOMPARE(view->table()->rowCount(), 0);
}

void TestInsideCausal::commitmentColouring()
{
    MainWindow w;
    QVERIFY(load(w, uitest::tinyModelQ()));
    InteractivePage* tab = w.page<InteractivePage>();
    QVERIFY(score(tab, kCode));
    auto* panel = w.findChild<InsidePanel*>();
    QVERIFY(!panel->colouringBox()->isEnabled());
    QSignalSpy done(panel, &InsidePanel::jobDone);
    panel->computeLens();
    QVERIFY(done.wait(60000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    QVERIFY(panel->colouringBox()->isEnabled());

    // The commitment layers computed here, through the lens of the text (core: scoreLayers' commit).
    const auto model = LanguageModel::load(uitest::tinyModel());
    const AnalysisPtr a = tab->shown();
    const LayerLens lens = scoreLayers(*model, toUtf8(kCode));
    QCOMPARE(lens.commit.size(), a->eval->scored.tokens.size());
    const int L = lens.layers;
    const LayerEval le = evaluateLayers(*a->eval, lens.ntp, L, lens.commit);
    QVERIFY(panel->lensEval());
    QCOMPARE(panel->lensEval()->tokenCommit, le.tokenCommit);
    QCOMPARE(panel->lensEval()->commit, le.commit);

    panel->layerSlider()->setValue(L);
    QHash<int, QString> ownLabels; // the nodes' labels with their AsC-Eval
    for (AstNodeItem* item : tab->astView(ascviz::AstView::Partial)->nodeItems())
        ownLabels.insert(item->node(), item->label());
    panel->layerSlider()->setValue(0);
    panel->colouringBox()->setCurrentIndex(1);
    QVERIFY(panel->showsCommitment());
    QCOMPARE(panel->layerSlider()->value(), L); // the result's own values beside where they were decided
    QCOMPARE(tab->displayed(), tab->shown());
    // Issue 54: the scale spans the layers the commitments span (whole layers, at least one apart).
    const CommitScale scale = ui::commitScale(le);
    double lo = L, hi = 0.0;
    for (const auto& c : le.commit)
        if (c) {
            lo = std::min(lo, *c);
            hi = std::max(hi, *c);
        }
    for (const auto& c : le.tokenCommit)
        if (c) {
            lo = std::min(lo, double(*c));
            hi = std::max(hi, double(*c));
        }
    QVERIFY(scale.lo <= lo && scale.hi >= hi && scale.hi - scale.lo >= 1);
    QVERIFY(scale.lo > lo - 1 && (scale.hi < hi + 1 || scale.hi - scale.lo == 1));
    int coloured = 0, early = 0, late = 0;
    for (auto kind : {ascviz::AstView::Partial, ascviz::AstView::Complete})
        for (AstNodeItem* item : tab->astView(kind)->nodeItems()) {
            const auto c = le.commit[std::size_t(item->node())];
            QCOMPARE(item->fillColor(), c ? commitColor(scale.t(*c)) : noCommitColor());
            // Issue 54: the node shows its commitment layer, not its AsC-Eval, while the colours are the layers'.
            const QString valueLine = item->label().section(QLatin1Char('\n'), -1);
            QCOMPARE(valueLine, c ? QStringLiteral("L%1").arg(*c, 0, 'g', 3) : QStringLiteral("–"));
            coloured += c.has_value();
        }
    QVERIFY(coloured > 0);
    const TextPositions pos(a->eval->scored.text);
    const auto& tokens = a->eval->scored.tokens;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].end == tokens[i].start || a->eval->scored.text[tokens[i].start] == '\n')
            continue;
        const QColor want = le.tokenCommit[i] ? commitColor(scale.t(*le.tokenCommit[i])) : noCommitColor();
        QCOMPARE(tab->sequenceView()->backgroundAt(pos.toQt(tokens[i].start)), want);
        early += le.tokenCommit[i] && *le.tokenCommit[i] < L;
        late += le.tokenCommit[i] && *le.tokenCommit[i] == L;
    }
    QVERIFY(early + late > 0);
    QVERIFY(tab->legend()->showsSignedScale());
    QCOMPARE(tab->legend()->scaleLabels(),
             (QStringList{QString::number(scale.lo), QString::number((scale.lo + scale.hi) / 2.0, 'g', 3),
                          QString::number(scale.hi)}));
    showInside(w, panel);
    tab->showView(InteractivePage::View::Complete);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("commitment-ast.png"));
    tab->showView(InteractivePage::View::Sequence);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("commitment-sequence.png"));

    // Back to AsC-Eval: the result's colours, labels and legend again; moving the slider also ends the commitment
    // colours.
    panel->colouringBox()->setCurrentIndex(0);
    QVERIFY(!panel->showsCommitment());
    QVERIFY(!tab->legend()->showsSignedScale());
    for (AstNodeItem* item : tab->astView(ascviz::AstView::Partial)->nodeItems()) {
        QCOMPARE(item->fillColor(), ascQColor(a->eval->nodes[std::size_t(item->node())].value));
        QCOMPARE(item->label(), ownLabels.value(item->node()));
    }
    panel->colouringBox()->setCurrentIndex(1);
    QVERIFY(panel->showsCommitment());
    panel->layerSlider()->setValue(1);
    QVERIFY(!panel->showsCommitment());
    QCOMPARE(panel->colouringBox()->currentIndex(), 0);
    QVERIFY(!tab->legend()->showsSignedScale());
    // A new result: the choice goes with the lens.
    QVERIFY(score(tab, QStringLiteral("x = 1\n")));
    QVERIFY(!panel->colouringBox()->isEnabled());
    QVERIFY(!panel->lensEval());
}

void TestInsideCausal::faithfulnessBesideAttribution()
{
    MainWindow w;
    QVERIFY(load(w, uitest::tinyModelQ()));
    InteractivePage* tab = w.page<InteractivePage>();
    const QString prompt = QStringLiteral("def area(w, h):\n    s = w * h\n    return s\n\nprint(area(");
    QVERIFY(generate(tab, prompt, 6));
    auto* panel = w.findChild<InsidePanel*>();
    QVERIFY(!panel->faithfulnessLabel()->isVisible());
    panel->methodBox()->setCurrentIndex(0); // occlusion
    panel->faithfulnessBox()->setChecked(true);
    tab->clearSelection();
    QSignalSpy done(panel, &InsidePanel::jobDone);
    panel->attributeSelection();
    QVERIFY(done.wait(120000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    const auto r = panel->attribution();
    QVERIFY(r && r->faithfulness);

    // attribute() with the same settings (seeded random orders) gives the same AUCs.
    const auto model = LanguageModel::load(uitest::tinyModel());
    AttributionOptions opts;
    opts.faithfulness = true;
    const auto& scored = tab->shown()->eval->scored;
    const AttributionResult want =
        attribute(*model, scored.text, scored.promptBytes, toUtf8(tab->language()), AttributionTargetSpec{}, opts);
    QVERIFY(want.faithfulness);
    QCOMPARE(r->faithfulness->deletionAuc, want.faithfulness->deletionAuc);
    QCOMPARE(r->faithfulness->randomInsertionAuc, want.faithfulness->randomInsertionAuc);
    const QString text = panel->faithfulnessLabel()->text();
    for (const double v : {want.faithfulness->deletionAuc, want.faithfulness->randomDeletionAuc,
                           want.faithfulness->insertionAuc, want.faithfulness->randomInsertionAuc})
        QVERIFY2(text.contains(QString::number(v, 'f', 3)), qPrintable(text));
    QVERIFY(text.contains(QString::number(want.faithfulnessNodes)));
    showInside(w, panel);
    QVERIFY(panel->faithfulnessLabel()->isVisible());
    shoot(&w, QStringLiteral("faithfulness.png"));

    // Without the box: no numbers (and no stale ones).
    panel->faithfulnessBox()->setChecked(false);
    panel->attributeSelection();
    QVERIFY(done.wait(120000));
    QVERIFY(done.takeFirst().at(0).toBool());
    QVERIFY(!panel->attribution()->faithfulness);
    QVERIFY(!panel->faithfulnessLabel()->isVisible());

    // The surrogate: its attribution colours the views and its fit's held-out R² is reported.
    panel->methodBox()->setCurrentIndex(panel->methodBox()->findData(QStringLiteral("surrogate")));
    QVERIFY(panel->methodBox()->currentIndex() > 0);
    panel->attributeSelection();
    QVERIFY(done.wait(120000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    QVERIFY(panel->attribution()->method == AttributionMethod::Surrogate);
    QVERIFY(panel->attribution()->surrogate);
    QVERIFY2(panel->statusLabel()->text().contains(
                 QStringLiteral("R² %1").arg(panel->attribution()->surrogate->heldOutR2, 0, 'f', 3)),
             qPrintable(panel->statusLabel()->text()));
    QVERIFY(panel->showsAttribution());
}

// The bundled (trained) model: unlike the random fixtures, many of its predictions are decided before the last
// block; the commitment colouring shows them (the numbers as the lens computes them), shot for the documentation.
void TestInsideCausal::bundledModelCommitsEarlier()
{
    MainWindow w;
    QVERIFY(load(w, toQString(resolveModelDir("default").string())));
    InteractivePage* tab = w.page<InteractivePage>();
    const QString code = QStringLiteral("def count(s, c):\n    n = 0\n    for x in s:\n        if x == c:\n"
                                        "            n += 1\n    return n\n");
    QVERIFY(score(tab, code));
    auto* panel = w.findChild<InsidePanel*>();
    QSignalSpy done(panel, &InsidePanel::jobDone);
    panel->computeLens();
    QVERIFY(done.wait(120000));
    QVERIFY2(done.takeFirst().at(0).toBool(), qPrintable(panel->statusLabel()->text()));
    const auto model = LanguageModel::load(resolveModelDir("default"));
    const LayerLens lens = scoreLayers(*model, toUtf8(code));
    const LayerEval le = evaluateLayers(*tab->shown()->eval, lens.ntp, lens.layers, lens.commit);
    QCOMPARE(panel->lensEval()->tokenCommit, le.tokenCommit);
    QCOMPARE(panel->lensEval()->commit, le.commit);
    int early = 0;
    for (const auto& c : le.tokenCommit)
        early += c && *c < lens.layers - 1;
    QVERIFY2(early > 0, "a trained model decides some predictions before its last two blocks");
    panel->colouringBox()->setCurrentIndex(1);
    QVERIFY(panel->showsCommitment());
    const CommitScale scale = ui::commitScale(le);
    for (AstNodeItem* item : tab->astView(ascviz::AstView::Partial)->nodeItems()) {
        const auto c = le.commit[std::size_t(item->node())];
        QCOMPARE(item->fillColor(), c ? commitColor(scale.t(*c)) : noCommitColor());
    }
    showInside(w, panel);
    tab->showView(InteractivePage::View::Partial);
    tab->astView(ascviz::AstView::Partial)->fitWhole();
    QTest::qWait(50);
    shoot(&w, QStringLiteral("commitment-bundled.png"));
    tab->showView(InteractivePage::View::Sequence);
    QTest::qWait(50);
    shoot(&w, QStringLiteral("commitment-bundled-sequence.png"));
}

QTEST_MAIN(TestInsideCausal)
#include "test_insidecausal.moc"
