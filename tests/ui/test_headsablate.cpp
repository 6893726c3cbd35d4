// The Heads page's Ablate action (issue 47, method.md §14.1) on the tiny GPT-2 fixture: heads picked on the heat map
// are ablated, the complete AST view shows AsC-Eval under the ablation equal to scoring with withAblatedHeads (zero
// and mean), the difference view colours ablated − clean on its signed scale; a head outside the model is refused
// with a message naming it. Screenshots go to $ASCVIZ_SCREENSHOT_DIR when it is set.
#include "uitest_util.h"

#include "common/textpos.h"
#include "pages/heads/ablationview.h"
#include "pages/heads/headspage.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"
#include "views/astview.h"

#include "ascviz/base/resources.h"
#include "ascviz/eval/eval.h"
#include "ascviz/model/ablation.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

#include <cmath>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

const QString kCode = QStringLiteral("def count(s, c):\n    n = 0\n    for x in s:\n        if x == c:\n"
                                     "            n += 1\n    return n\n");

// AsC-Eval per node of `code` scored by `model` (θ = median, the bundled categories).
std::vector<std::optional<double>> nodeValues(const LanguageModel& model, const QString& code = kCode)
{
    const std::string text = toUtf8(code);
    const EvalResult r = evaluate(model.score(text), SyntaxTree::parse("python", text), Aggregation::Median,
                                  CategoryMap::forLanguage("python"));
    std::vector<std::optional<double>> out;
    for (const auto& n : r.nodes)
        out.push_back(n.value);
    return out;
}

} // namespace

class TestHeadsAblate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void diffScale()
    {
        QCOMPARE(ablationDiffColor(0.0), QColor(255, 255, 255));
        QCOMPARE(ablationDiffColor(-1.0), QColor(197, 27, 125));
        QCOMPARE(ablationDiffColor(1.0), QColor(77, 146, 33));
        QCOMPARE(ablationDiffColor(-3.0), QColor(197, 27, 125)); // clamped
        QCOMPARE(ablationDiffColor(0.5), QColor(166, 201, 144));
    }

    void ablatePickedHeads()
    {
        JobTracker jobs;
        ModelService models(&jobs);
        QSignalSpy loaded(&models, &ModelService::modelLoaded);
        QVERIFY(models.loadModel(uitest::tinyModelQ()));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        HeadsPage page(&models, nullptr);
        page.resize(1400, 900);
        AblationView* ab = page.ablationView();
        QVERIFY(ab);
        QSignalSpy done(ab, &AblationView::ablationDone);

        // Before the heads are analysed there is no text to ablate.
        ab->headsEdit()->setText(QStringLiteral("0.1"));
        ab->ablate();
        QCOMPARE(done.count(), 1);
        QVERIFY(!done.takeFirst().at(0).toBool());
        QVERIFY(ab->statusLabel()->text().contains(QStringLiteral("Analyze heads")));

        QSignalSpy analyzed(&page, &HeadsPage::headsAnalyzed);
        page.setCode(kCode);
        page.analyze();
        QTRY_COMPARE_WITH_TIMEOUT(analyzed.count(), 1, 60000);
        QVERIFY2(analyzed.at(0).at(0).toBool(), qPrintable(analyzed.at(0).at(1).toString()));
        ab->headsEdit()->clear();
        page.pickHead(1, 2);
        QVERIFY(ab->addButton()->isEnabled());
        ab->addButton()->click();
        page.pickHead(0, 1);
        ab->addButton()->click();
        ab->addButton()->click(); // once only
        QCOMPARE(ab->headsEdit()->text(), QStringLiteral("1.2,0.1"));

        // Zero ablation: the view's AsC-Eval is the ablated model's, the clean one the model's.
        const auto model = LanguageModel::load(uitest::tinyModel());
        const auto heads = parseHeadList("0.1,1.2");
        const auto clean = nodeValues(*model);
        const auto zero = nodeValues(*withAblatedHeads(*model, heads));
        ab->ablate();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY2(done.first().at(0).toBool(), qPrintable(ab->statusLabel()->text()));
        done.clear();
        QVERIFY(ab->clean() && ab->ablated());
        QCOMPARE(ab->ablated()->eval->nodes.size(), zero.size());
        int differs = 0;
        for (std::size_t k = 0; k < zero.size(); ++k) {
            QCOMPARE(ab->ablated()->eval->nodes[k].value, zero[k]);
            QCOMPARE(ab->clean()->eval->nodes[k].value, clean[k]);
            differs += zero[k] && clean[k] && std::abs(*zero[k] - *clean[k]) > 1e-9;
        }
        QVERIFY(differs > 0); // ablating two of eight heads moves some node
        QVERIFY(!ab->astView()->nodeItems().isEmpty());
        for (AstNodeItem* item : ab->astView()->nodeItems())
            QCOMPARE(item->fillColor(), ascQColor(zero[std::size_t(item->node())]));
        QVERIFY(ab->statusLabel()->text().contains(QStringLiteral("zero ablation of 0.1, 1.2")));

        // The difference view: ablated − clean on the signed scale, scaled by the largest |Δ|; n/a grey.
        ab->showBox()->setCurrentIndex(1);
        double maxAbs = 0;
        for (std::size_t k = 0; k < zero.size(); ++k)
            if (zero[k] && clean[k])
                maxAbs = std::max(maxAbs, std::abs(*zero[k] - *clean[k]));
        QCOMPARE(ab->maxDifference(), maxAbs);
        for (AstNodeItem* item : ab->astView()->nodeItems()) {
            const auto k = std::size_t(item->node());
            const QColor want =
                zero[k] && clean[k] ? ablationDiffColor((*zero[k] - *clean[k]) / maxAbs) : QColor(235, 235, 235);
            QCOMPARE(item->fillColor(), want);
        }
        QVERIFY(ab->statusLabel()->text().contains(QStringLiteral("Pink")));
        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
            auto* tabs = qobject_cast<QTabWidget*>(ab->parentWidget()->parentWidget());
            QVERIFY(tabs);
            tabs->setCurrentWidget(ab);
            page.show();
            QVERIFY(QTest::qWaitForWindowExposed(&page));
            ab->astView()->fitWhole();
            QTest::qWait(50);
            QVERIFY(page.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/heads-ablate-diff.png")));
            ab->showBox()->setCurrentIndex(0);
            QTest::qWait(50);
            QVERIFY(page.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/heads-ablate.png")));
            ab->showBox()->setCurrentIndex(1);
        }

        // Mean ablation: each head's mean output over the text.
        ab->modeBox()->setCurrentIndex(1);
        ab->ablate();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY2(done.first().at(0).toBool(), qPrintable(ab->statusLabel()->text()));
        done.clear();
        const auto mean = nodeValues(*withAblatedHeads(*model, heads, meanHeadOutputs(*model, toUtf8(kCode), heads)));
        for (std::size_t k = 0; k < mean.size(); ++k)
            QCOMPARE(ab->ablated()->eval->nodes[k].value, mean[k]);
        QVERIFY(ab->statusLabel()->text().contains(QStringLiteral("mean ablation")));

        // A head outside the model: refused, naming it; the last result stays.
        ab->headsEdit()->setText(QStringLiteral("0.1,7.0"));
        ab->ablate();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY(!done.first().at(0).toBool());
        QVERIFY2(ab->statusLabel()->text().contains(QStringLiteral("7.0")), qPrintable(ab->statusLabel()->text()));
        QVERIFY(ab->ablated());
        done.clear();
        ab->headsEdit()->setText(QStringLiteral("x"));
        ab->ablate();
        QCOMPARE(done.count(), 1);
        QVERIFY(ab->statusLabel()->text().startsWith(QStringLiteral("Heads:")));

        // Cancel: the job ends and the view can ablate again.
        done.clear();
        ab->headsEdit()->setText(QStringLiteral("0.1"));
        ab->ablate();
        QVERIFY(ab->isRunning() && !ab->ablateButton()->isEnabled());
        ab->cancel();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY(!ab->isRunning());
        QVERIFY(ab->ablateButton()->isEnabled());

        // Another text analysed: the ablation of the old one is not shown beside it.
        analyzed.clear();
        page.setCode(QStringLiteral("x = [1, 2]\nprint(len(x))\n"));
        page.analyze();
        QTRY_COMPARE_WITH_TIMEOUT(analyzed.count(), 1, 60000);
        QVERIFY(!ab->ablated() && !ab->clean());
        QVERIFY(ab->astView()->nodeItems().isEmpty());
        QVERIFY(ab->statusLabel()->text().contains(QStringLiteral("Ablate again")));
    }

    // The bundled model's best head for for→body on the sample corpus (L4 H1, tests/ui/test_headspage.cpp): its
    // ablation changes the text's AsC-Eval; shot for the documentation.
    void bundledModelHead()
    {
        JobTracker jobs;
        ModelService models(&jobs);
        QSignalSpy loaded(&models, &ModelService::modelLoaded);
        const auto dir = resolveModelDir("default");
        QVERIFY(models.loadModel(toQString(dir.string())));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 120000);
        HeadsPage page(&models, nullptr);
        page.resize(1400, 900);
        QSignalSpy analyzed(&page, &HeadsPage::headsAnalyzed);
        page.setCode(kCode);
        page.analyze();
        QTRY_COMPARE_WITH_TIMEOUT(analyzed.count(), 1, 120000);
        QVERIFY2(analyzed.at(0).at(0).toBool(), qPrintable(analyzed.at(0).at(1).toString()));
        QVERIFY(page.selectRelation(QStringLiteral("for_statement:for\u2192body")));
        page.pickHead(4, 1);
        AblationView* ab = page.ablationView();
        ab->addButton()->click();
        QCOMPARE(ab->headsEdit()->text(), QStringLiteral("4.1"));
        QSignalSpy done(ab, &AblationView::ablationDone);
        ab->ablate();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        QVERIFY2(done.first().at(0).toBool(), qPrintable(ab->statusLabel()->text()));
        const auto model = LanguageModel::load(dir);
        const auto want = nodeValues(*withAblatedHeads(*model, parseHeadList("4.1")));
        for (std::size_t k = 0; k < want.size(); ++k)
            QCOMPARE(ab->ablated()->eval->nodes[k].value, want[k]);
        QVERIFY(ab->maxDifference() > 0);
        ab->showBox()->setCurrentIndex(1);
        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
            qobject_cast<QTabWidget*>(ab->parentWidget()->parentWidget())->setCurrentWidget(ab);
            page.show();
            QVERIFY(QTest::qWaitForWindowExposed(&page));
            ab->astView()->fitWhole();
            QTest::qWait(50);
            QVERIFY(page.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/heads-ablate-bundled.png")));
        }
    }
};

QTEST_MAIN(TestHeadsAblate)
#include "test_headsablate.moc"
