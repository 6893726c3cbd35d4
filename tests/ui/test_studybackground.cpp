// Participant mode with a background section and model completions (method.md §9): the background form
// comes first and its answers reach the responses file; the completion is highlighted in the code of every
// condition (C, S2, S3; S1's sequence view underlines generated tokens). ASCVIZ_SCREENSHOT_DIR=DIR keeps
// pictures of both screens there.
#include "study_test_util.h"
#include "testdata.h"

#include "common/textpos.h"
#include "pages/study/backgroundform.h"
#include "pages/study/participantwindow.h"
#include "pages/study/trialscreen.h"

#include "ascviz/study/responses.h"

#include <QAbstractButton>
#include <QApplication>
#include <QButtonGroup>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>

using namespace ascviz;
using namespace ascviz::ui;

class TestStudyBackground : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void backgroundFirstThenHighlightedCompletion();
    void humanCodeIsNeverCalledTheModels();
};

void TestStudyBackground::backgroundFirstThenHighlightedCompletion()
{
    testdata::TempDir dir("study-background");
    // Two samples whose last line is the model's completion (prompt = the text before it).
    std::vector<StudySample> samples;
    for (int i = 0; i < 2; ++i) {
        const std::string prompt = "def f" + std::to_string(i) + "(x):\n    if x > 1:\n";
        ScoredText s = studytest::handScored(prompt + "        return x * 2\n");
        s.promptBytes = prompt.size();
        for (auto& t : s.tokens) // what the model generated is what the study file records as generated
            t.generated = t.end > s.promptBytes;
        samples.push_back(makeStudySample("s" + std::to_string(i), "python", s, Aggregation::Median));
    }
    StudyDesign d;
    d.id = "bg";
    d.design = StudyDesignKind::Between;
    d.conditions = {"C", "S1"};
    d.participants = 2;
    d.background = defaultBackgroundQuestions();
    auto study = std::make_shared<const Study>(makeStudy(d, std::move(samples)));
    const std::string pid = study->participants[0].trials[0].condition == "C" ? "P01" : "P02"; // the C group
    QString err;
    ParticipantWindow* w =
        ParticipantWindow::open(study, toQString((dir / "r.db").string()), toQString(pid), false, &err, nullptr);
    QVERIFY2(w, qPrintable(err));
    w->resize(1000, 640);
    w->show();
    BackgroundForm* form = w->backgroundForm();
    QVERIFY(form);
    QVERIFY(form->isVisible());
    QVERIFY(!w->screen()->isVisible());
    QVERIFY(!form->startButton()->isEnabled()); // three choice questions unanswered
    const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR");
    if (!shots.isEmpty())
        w->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/study-background.png"));
    QTest::mouseClick(form->choices(QStringLiteral("python"))->button(4), Qt::LeftButton);
    QTest::mouseClick(form->choices(QStringLiteral("llm"))->button(2), Qt::LeftButton);
    QVERIFY(!form->startButton()->isEnabled());
    QTest::mouseClick(form->choices(QStringLiteral("ast"))->button(1), Qt::LeftButton);
    QVERIFY(form->startButton()->isEnabled());
    QTest::keyClicks(form->textField(QStringLiteral("problems")), QStringLiteral("made-up APIs"));
    QTest::mouseClick(form->startButton(), Qt::LeftButton);
    QVERIFY(!w->backgroundForm());
    QVERIFY(w->screen()->isVisible());
    const auto given = ResponsesDb::openExisting(dir / "r.db").backgroundAnswers();
    QCOMPARE(QString::fromStdString(given.at(pid).at("python")), QStringLiteral("Advanced"));
    QCOMPARE(QString::fromStdString(given.at(pid).at("llm")), QStringLiteral("Slightly familiar"));
    QCOMPARE(QString::fromStdString(given.at(pid).at("ast")), QStringLiteral("None"));
    QCOMPARE(QString::fromStdString(given.at(pid).at("problems")), QStringLiteral("made-up APIs"));

    // Condition C: the code shows the completion ("        return x * 2\n") highlighted, the prompt not.
    QCOMPARE(w->screen()->condition(), QStringLiteral("C"));
    auto* code = w->findChild<QPlainTextEdit*>();
    QVERIFY(code);
    const auto marks = code->extraSelections();
    QCOMPARE(marks.size(), 1);
    const QString text = code->toPlainText();
    QCOMPARE(marks[0].cursor.selectedText(), QStringLiteral("        return x * 2") + QChar(0x2029));
    QCOMPARE(marks[0].cursor.selectionStart(), int(text.indexOf(QStringLiteral("        return"))));
    QVERIFY(marks[0].format.fontUnderline());
    if (!shots.isEmpty())
        w->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/study-trial-C.png"));
    // A resumed participant does not see the background section again.
    delete w;
    ParticipantWindow* again =
        ParticipantWindow::open(study, toQString((dir / "r.db").string()), toQString(pid), true, &err, nullptr);
    QVERIFY2(again, qPrintable(err));
    QVERIFY(!again->backgroundForm());
    delete again;
}

// Issue 44: a sample whose text has a prompt shorter than itself but no token recorded as generated (a
// corpus entry's own code) is shown as "Code", nothing highlighted; under C no question names a visualization.
void TestStudyBackground::humanCodeIsNeverCalledTheModels()
{
    const std::string prompt = "def f(x):\n    if x > 1:\n";
    ScoredText s = studytest::handScored(prompt + "        return x * 2\n");
    s.promptBytes = prompt.size(); // the prompt's length alone (the old rule flagged the rest as the model's)
    StudyDesign d;
    d.id = "human";
    d.conditions = {"C"};
    d.participants = 1;
    auto study = std::make_shared<const Study>(
        makeStudy(d, {makeStudySample("h", "python", std::move(s), Aggregation::Median)}));
    TrialScreen screen(study);
    screen.resize(900, 600);
    screen.show();
    screen.showTrial(0, 1, study->participants[0].trials[0]);
    auto* code = screen.findChild<QPlainTextEdit*>();
    QVERIFY(code);
    QVERIFY(code->extraSelections().isEmpty());
    bool codeTitle = false;
    for (auto* label : screen.findChildren<QLabel*>()) {
        QVERIFY2(!label->text().contains(QStringLiteral("completion")), qPrintable(label->text()));
        QVERIFY2(!label->text().contains(QStringLiteral("visualization")), qPrintable(label->text()));
        codeTitle |= label->text() == QStringLiteral("Code");
    }
    QVERIFY(codeTitle);
}

QTEST_MAIN(TestStudyBackground)
#include "test_studybackground.moc"
