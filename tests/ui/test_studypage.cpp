// The Study page and participant mode: a whole participant session driven with keys and clicks (the
// responses file holds exactly the answers given), a window destroyed mid-session and a process killed
// mid-session (both resume at the first open trial), bad input refused, the report chart and its SVG, and
// creating a study with the model as a job (progress, cancel).
#include "figureexport_util.h"
#include "uitest_util.h"

#include "study_test_util.h"
#include "testdata.h"

#include "common/textpos.h"
#include "pages/study/likertchart.h"
#include "pages/study/participantwindow.h"
#include "pages/study/studypage.h"
#include "pages/study/trialscreen.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/astview.h"
#include "views/legendwidget.h"
#include "views/sequenceview.h"

#include "ascviz/study/responses.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

#include <csignal>
#include <fstream>
#include <unistd.h>

using namespace ascviz;
using namespace ascviz::ui;
using ascviz::testdata::TempDir;

namespace {

struct Services {
    ModelService models;
    ResultStore results{models.jobs()};
};

struct Given {
    std::string participant;
    int trial;
    std::string question;
    int answer;
};

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// Answers trial `t` of the window: the first question by keyboard (focus + Space), the others by mouse.
std::vector<Given> answerTrial(ParticipantWindow* w, const Study& s, int t, int salt)
{
    std::vector<Given> given;
    TrialScreen* screen = w->screen();
    for (std::size_t qi = 0; qi < s.questions.size(); ++qi) {
        const auto& question = s.questions[qi];
        const int a = 1 + (t + int(qi) * 2 + salt) % question.points();
        QAbstractButton* b = screen->choiceButton(q(question.id), a);
        if (!b)
            return given;
        if (qi == 0) {
            b->setFocus();
            QTest::keyClick(b, Qt::Key_Space);
        } else {
            QTest::mouseClick(b, Qt::LeftButton);
        }
        given.push_back({w->participant().toStdString(), t, question.id, a});
    }
    return given;
}

std::string writeStudy(const TempDir& dir, const Study& s)
{
    const auto path = dir / "study.json";
    writeStudyFile(path, s, true);
    return path.string();
}

} // namespace

class TestStudyPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void wholeParticipantSession();
    void closedMidSessionResumes();
    void killedProcessResumes();
    void refusesBadInput();
    void reportChartAndSvg();
    void createStudyWithTheModel();
};

void TestStudyPage::wholeParticipantSession()
{
    TempDir dir("study-ui");
    const Study s = studytest::handStudy(8, 4);
    const QString studyPath = q(writeStudy(dir, s));
    Services sv;
    StudyPage page(&sv.models, &sv.results);
    QString err;
    QVERIFY2(page.openStudy(studyPath, &err), qPrintable(err));
    QCOMPARE(page.participantsTable()->rowCount(), 4);
    QCOMPARE(page.participantsTable()->item(0, 2)->text(), QStringLiteral("not started"));

    ParticipantWindow* w = page.startParticipant(QStringLiteral("P01"), false, false, &err);
    QVERIFY2(w, qPrintable(err));
    QVERIFY(QTest::qWaitForWindowExposed(w));
    QVERIFY(!w->findChild<QMenuBar*>()); // no menus in participant mode
    const auto& trials = s.participant("P01")->trials;
    std::vector<Given> expected;
    std::map<int, std::string> comments;
    QSignalSpy completed(w, &ParticipantWindow::trialCompleted);
    for (int t = 0; t < int(trials.size()); ++t) {
        QCOMPARE(w->currentTrial(), t);
        QCOMPARE(w->screen()->progressLabel()->text(), QStringLiteral("Trial %1 of %2").arg(t + 1).arg(trials.size()));
        // The condition's view only, and no model name anywhere on the screen.
        const std::string& c = trials[std::size_t(t)].condition;
        QCOMPARE(w->screen()->condition(), q(c));
        QWidget* view = w->screen()->conditionView();
        if (c == "S1")
            QVERIFY(qobject_cast<SequenceView*>(view) && view->isVisible());
        else if (c == "S2" || c == "S3") {
            auto* ast = qobject_cast<ascviz::ui::AstView*>(view);
            QVERIFY(ast && ast->isVisible());
            QCOMPARE(int(ast->kind()), int(c == "S2" ? ascviz::AstView::Partial : ascviz::AstView::Complete));
            QVERIFY(!w->findChild<SequenceView*>()->isVisible());
        } else {
            QVERIFY(qobject_cast<QPlainTextEdit*>(view) && view->isVisible());
            QVERIFY(!w->findChild<SequenceView*>()->isVisible());
        }
        for (auto* label : w->findChildren<QLabel*>())
            QVERIFY2(!label->text().contains(QStringLiteral("hand-scored")), qPrintable(label->text()));
        // A participant selects nothing: the legend does not explain a selection mark (issue 44).
        for (auto* legend : w->findChildren<LegendWidget*>()) {
            QVERIFY(!legend->swatchCaptions().isEmpty());
            QVERIFY2(!legend->swatchCaptions().contains(QStringLiteral("selected")),
                     qPrintable(legend->swatchCaptions().join(QLatin1Char(','))));
        }
        QVERIFY(!w->screen()->nextButton()->isEnabled());
        auto given = answerTrial(w, s, t, 0);
        QCOMPARE(int(given.size()), int(s.questions.size()));
        // A changed answer: the last one counts.
        if (t == 2) {
            const int a = given[1].answer % 5 + 1;
            QTest::mouseClick(w->screen()->choiceButton(q(given[1].question), a), Qt::LeftButton);
            given[1].answer = a;
        }
        expected.insert(expected.end(), given.begin(), given.end());
        QVERIFY(w->screen()->nextButton()->isEnabled());
        if (t % 3 == 1) {
            QTest::keyClicks(w->screen()->commentEdit(), QStringLiteral("trial %1, hard").arg(t));
            comments[t] = "trial " + std::to_string(t) + ", hard";
        }
        if (t % 2 == 0)
            QTest::mouseClick(w->screen()->nextButton(), Qt::LeftButton);
        else
            QTest::keyClick(w->screen(), Qt::Key_Return);
        QCOMPARE(completed.count(), t + 1);
    }
    QVERIFY(w->isDone());
    QVERIFY(w->findChild<QLabel*>(QStringLiteral("trialDone"))->isVisible());

    // The responses file holds exactly the answers given.
    {
        auto db = ResponsesDb::openExisting(dir / "study.responses.sqlite");
        const auto rows = db.rows();
        QCOMPARE(rows.size(), expected.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].participant, expected[i].participant);
            QCOMPARE(rows[i].trial, expected[i].trial);
            QCOMPARE(rows[i].question, expected[i].question);
            QCOMPARE(rows[i].answer, expected[i].answer);
            const auto& tr = trials[std::size_t(rows[i].trial)];
            QCOMPARE(rows[i].condition, tr.condition);
            QCOMPARE(rows[i].sample, s.samples[std::size_t(tr.sample)].id);
            QVERIFY(rows[i].seconds >= 0);
        }
        for (int t = 0; t < int(trials.size()); ++t)
            QCOMPARE(db.comment("P01", t), comments.count(t) ? comments[t] : std::string());
        QCOMPARE(db.firstOpenTrial("P01"), int(trials.size()));
    }
    // The page follows: progress and report.
    QCOMPARE(page.participantsTable()->item(0, 1)->text(), QStringLiteral("8 / 8"));
    QCOMPARE(page.participantsTable()->item(0, 2)->text(), QStringLiteral("done"));
    QVERIFY(page.report());
    int n = 0;
    for (const auto& c : s.conditions)
        n += page.report()->at(c, "useful").n;
    QCOMPARE(n, 8);

    // The researcher's key combination ends participant mode.
    QSignalSpy closed(w, &ParticipantWindow::closed);
    QPointer<ParticipantWindow> guard(w);
    QTest::keySequence(w, QKeySequence(q(s.exitKey)));
    QCOMPARE(closed.count(), 1);
    QTRY_VERIFY(guard.isNull()); // deleted on close
}

void TestStudyPage::closedMidSessionResumes()
{
    TempDir dir("study-resume");
    const Study s = studytest::handStudy(4, 4);
    const QString studyPath = q(writeStudy(dir, s));
    Services sv;
    StudyPage page(&sv.models, &sv.results);
    QString err;
    QVERIFY(page.openStudy(studyPath, &err));
    std::vector<Given> expected;
    {
        ParticipantWindow* w = page.startParticipant(QStringLiteral("P02"), false, false, &err);
        QVERIFY2(w, qPrintable(err));
        auto g = answerTrial(w, s, 0, 1);
        expected.insert(expected.end(), g.begin(), g.end());
        QTest::mouseClick(w->screen()->nextButton(), Qt::LeftButton);
        // One answer of trial 1, then the window goes away (no Next).
        const int a = 2;
        QTest::mouseClick(w->screen()->choiceButton(QStringLiteral("useful"), a), Qt::LeftButton);
        expected.push_back({"P02", 1, "useful", a});
        // A comment typed but not sent with Next: kept when the field loses focus.
        w->screen()->commentEdit()->setFocus();
        QTest::keyClicks(w->screen()->commentEdit(), QStringLiteral("unclear tree"));
        QMetaObject::invokeMethod(w->screen()->commentEdit(), "editingFinished");
        delete w;
    }
    QCOMPARE(page.participantsTable()->item(1, 1)->text(), QStringLiteral("1 / 4"));
    // The same id again without resuming: refused, nothing changed.
    QVERIFY(!page.startParticipant(QStringLiteral("P02"), false, false, &err));
    QVERIFY2(err.contains(QStringLiteral("P02 already has responses")), qPrintable(err));
    ParticipantWindow* w = page.startParticipant(QStringLiteral("P02"), true, false, &err);
    QVERIFY2(w, qPrintable(err));
    QCOMPARE(w->currentTrial(), 1);
    QCOMPARE(w->screen()->answer(QStringLiteral("useful")), 2); // the answer given before is shown
    QCOMPARE(w->screen()->answer(QStringLiteral("readable")), 0);
    QCOMPARE(w->screen()->comment(), QStringLiteral("unclear tree"));
    for (int t = 1; t < 4; ++t) {
        auto g = answerTrial(w, s, t, 1);
        if (t == 1)
            g.erase(g.begin()); // "useful" of trial 1 is answered again with another value below
        expected.insert(expected.end(), g.begin(), g.end());
        QTest::keyClick(w->screen(), Qt::Key_Enter);
    }
    // Trial 1's "useful" was clicked again by answerTrial: the later answer replaces the earlier one.
    const int usefulAgain = 1 + (1 + 0 + 1) % 5;
    expected[std::size_t(s.questions.size())].answer = usefulAgain;
    QVERIFY(w->isDone());
    delete w;
    auto db = ResponsesDb::openExisting(dir / "study.responses.sqlite");
    const auto rows = db.rows();
    QCOMPARE(rows.size(), std::size_t(4 * s.questions.size()));
    std::map<std::tuple<int, std::string>, int> want;
    for (const auto& g : expected)
        want[{g.trial, g.question}] = g.answer;
    for (const auto& r : rows)
        QCOMPARE(r.answer, (want[{r.trial, r.question}]));
}

void TestStudyPage::killedProcessResumes()
{
    TempDir dir("study-kill");
    const Study s = studytest::handStudy(4, 4);
    const std::string studyPath = writeStudy(dir, s);
    const std::string responses = (dir / "r.sqlite").string();
    // The child (this executable, see main) answers two trials and one question of the third, then kills
    // itself with SIGKILL: no destructor, no close of the database.
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ASCVIZ_STUDY_CHILD"), q(studyPath + "|" + responses));
    child.setProcessEnvironment(env);
    child.start(QCoreApplication::applicationFilePath(), {});
    QVERIFY(child.waitForFinished(60000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
    QVERIFY2(child.readAllStandardOutput().contains("answered"), "the child did not get to answer");

    Services sv;
    StudyPage page(&sv.models, &sv.results);
    QString err;
    QVERIFY(page.openStudy(q(studyPath), &err));
    QVERIFY2(page.setResponsesFile(q(responses), &err), qPrintable(err));
    ParticipantWindow* w = page.startParticipant(QStringLiteral("P03"), true, false, &err);
    QVERIFY2(w, qPrintable(err));
    QCOMPARE(w->currentTrial(), 2);
    QCOMPARE(w->screen()->answer(QStringLiteral("useful")), 4);
    delete w;
    auto db = ResponsesDb::openExisting(responses);
    QCOMPARE(db.rows().size(), std::size_t(2 * s.questions.size() + 1));
}

void TestStudyPage::refusesBadInput()
{
    TempDir dir("study-bad");
    const Study s = studytest::handStudy(4, 4);
    const QString studyPath = q(writeStudy(dir, s));
    Services sv;
    StudyPage page(&sv.models, &sv.results);
    QString err;
    // A newer study file.
    auto j = studyToJson(s);
    j["version"] = 7;
    std::ofstream(dir / "newer.json") << j.dump();
    QVERIFY(!page.openStudy(q((dir / "newer.json").string()), &err));
    QVERIFY2(err.contains(QStringLiteral("version 7")) && err.contains(QStringLiteral("version 1")), qPrintable(err));
    QVERIFY(!page.study());
    // Another study's responses file: refused, left as it was.
    const Study other = studytest::handStudy(4, 4, 99);
    {
        auto db = ResponsesDb::open(dir / "other.sqlite", other);
        db.startParticipant("P01", false);
        db.recordAnswer("P01", 0, "useful", 1, 1.0);
    }
    QVERIFY(page.openStudy(studyPath, &err));
    QVERIFY(!page.setResponsesFile(q((dir / "other.sqlite").string()), &err));
    QVERIFY2(err.contains(QStringLiteral("belongs to study")), qPrintable(err));
    QCOMPARE(ResponsesDb::openExisting(dir / "other.sqlite").rows().size(), std::size_t(1));
    QCOMPARE(page.responsesFile(), q((dir / "study.responses.sqlite").string()));
    // An unknown participant.
    QVERIFY(!page.startParticipant(QStringLiteral("P99"), false, false, &err));
    QVERIFY2(err.contains(QStringLiteral("P99")), qPrintable(err));
    // Creating over an existing file.
    QVERIFY(!page.createStudy(studyPath, &err));
    QVERIFY2(err.contains(QStringLiteral("not overwritten")), qPrintable(err));
}

void TestStudyPage::reportChartAndSvg()
{
    TempDir dir("study-report");
    const Study s = studytest::handStudy(8, 8);
    const QString studyPath = q(writeStudy(dir, s));
    {
        auto db = ResponsesDb::open(dir / "study.responses.sqlite", s);
        for (const auto& p : s.participants) {
            db.startParticipant(p.id, false);
            for (int t = 0; t < int(p.trials.size()); ++t) {
                const int bias = p.trials[std::size_t(t)].condition == "S3"  ? 2
                                 : p.trials[std::size_t(t)].condition == "C" ? -1
                                                                             : 0;
                for (std::size_t qi = 0; qi < s.questions.size(); ++qi)
                    db.recordAnswer(p.id, t, s.questions[qi].id, std::clamp(3 + bias + (t + int(qi)) % 3 - 1, 1, 5),
                                    2.0);
                db.completeTrial(p.id, t, 3.0, "");
            }
        }
    }
    Services sv;
    StudyPage page(&sv.models, &sv.results);
    page.resize(1500, 900);
    QString err;
    QVERIFY(page.openStudy(studyPath, &err));
    QVERIFY(page.report());
    QCOMPARE(page.report()->at("S2", "readable").n, 16);
    QVERIFY(page.canExport(ExportKind::Svg));
    const QString svg = q((dir / "chart.svg").string());
    QVERIFY2(page.exportTo(ExportKind::Svg, svg, &err), qPrintable(err));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray data = f.readAll();
    QVERIFY(data.contains("<svg"));
    QVERIFY(data.contains("agree, n=16"));
    // The export is the figure room's likertFigure: vector, 85 mm wide; a .pdf name writes a PDF.
    QCOMPARE(uitest::checkFigureExport(svg, false), QString());
    const QString pdf = q((dir / "chart.pdf").string());
    QVERIFY2(page.exportTo(ExportKind::Svg, pdf, &err), qPrintable(err));
    QCOMPARE(uitest::checkFigureExport(pdf, true), QString());
    const QString csv = q((dir / "answers.csv").string());
    QVERIFY(page.exportTo(ExportKind::Csv, csv, &err));
    QCOMPARE(readResponsesCsv(csv.toStdString()).size(), std::size_t(8 * 8 * 3));
    QVERIFY(page.exportTo(ExportKind::Json, q((dir / "report.json").string()), &err));
    // The chart's colours: disagreement red, agreement blue, the middle grey.
    QVERIFY(likertColor(1, 5).red() > likertColor(1, 5).blue());
    QVERIFY(likertColor(5, 5).blue() > likertColor(5, 5).red());
    QCOMPARE(likertColor(3, 5), QColor(0xc8, 0xc8, 0xc8));
    if (const char* shots = std::getenv("ASCVIZ_STUDY_SCREENSHOTS")) {
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/study-page.png"));
        page.chart()->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/study-chart.png"));
        QFile::remove(QString::fromLocal8Bit(shots) + QStringLiteral("/study-chart.svg"));
        QFile::copy(svg, QString::fromLocal8Bit(shots) + QStringLiteral("/study-chart.svg"));
    }
}

void TestStudyPage::createStudyWithTheModel()
{
    TempDir dir("study-create");
    // A corpus of 120 small functions.
    {
        std::ofstream c(dir / "corpus.jsonl");
        for (int i = 0; i < 120; ++i)
            c << nlohmann::json{{"id", "f" + std::to_string(i)},
                                {"code",
                                 "def f" + std::to_string(i) + "(x):\n    return x + " + std::to_string(i) + "\n"}}
                     .dump()
              << '\n';
    }
    Services sv;
    QSignalSpy loaded(&sv.models, &ModelService::modelLoaded);
    QVERIFY(sv.models.loadModel(uitest::tinyModelQ()));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    StudyPage page(&sv.models, &sv.results);
    page.sourceBox()->setCurrentIndex(1);
    page.corpusEdit()->setText(q((dir / "corpus.jsonl").string()));
    page.samplesBox()->setValue(6);
    page.participantsBox()->setValue(3);
    page.conditionBox(QStringLiteral("S3"))->setChecked(false); // C, S1, S2
    page.pointsBox()->setCurrentIndex(1);                       // 4 points
    // The Interactive result is one of the samples (its evaluation as it is, no model run for it).
    const auto interactive = studytest::handSamples(1)[0];
    sv.results.setInteractiveResult(studySampleAnalysis(interactive));
    page.includeInteractiveBox()->setChecked(true);
    QCOMPARE(page.labelsEdit()->text().split(QLatin1Char(',')).size(), 4);
    QString err;
    QSignalSpy created(&page, &StudyPage::studyCreated);
    QSignalSpy failed(&page, &StudyPage::creationFailed);
    const QString path = q((dir / "new.json").string());
    QVERIFY2(page.createStudy(path, &err), qPrintable(err));
    QVERIFY(page.isCreating());
    QTRY_COMPARE_WITH_TIMEOUT(created.count() + failed.count(), 1, 120000);
    QCOMPARE(created.count(), 1);
    QVERIFY(page.study());
    QCOMPARE(int(page.study()->samples.size()), 6);
    QCOMPARE(page.study()->samples[0].id, std::string("interactive"));
    QCOMPARE(page.study()->samples[0].eval->scored.text, interactive.eval->scored.text);
    QCOMPARE(page.study()->samples[0].eval->nodes[0].value, interactive.eval->nodes[0].value);
    page.includeInteractiveBox()->setChecked(false);
    QCOMPARE(page.study()->conditions, (std::vector<std::string>{"C", "S1", "S2"}));
    QCOMPARE(page.study()->questions[0].points(), 4);
    QCOMPARE(page.study()->model, std::string("tiny-gpt2"));
    QVERIFY(page.study()->samples[0].eval->scored.tokens.size() > 3);
    QVERIFY(page.study()->samples[0].eval->scored.tokens[2].ntp.has_value());

    // Cancelled: no file.
    page.samplesBox()->setValue(120);
    const QString path2 = q((dir / "cancelled.json").string());
    QVERIFY2(page.createStudy(path2, &err), qPrintable(err));
    page.cancelCreation();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 120000);
    QVERIFY(!page.isCreating());
    QVERIFY(!QFile::exists(path2));
    // A design that cannot be balanced is refused before any model work.
    page.samplesBox()->setValue(7);
    QVERIFY(!page.createStudy(q((dir / "x.json").string()), &err));
    QVERIFY2(err.contains(QStringLiteral("multiple of the 3 conditions")), qPrintable(err));
}

// The child of killedProcessResumes: participant P03 answers trials 0 and 1 and "useful" = 4 of trial 2,
// then the process is killed.
static int runKilledChild(int argc, char** argv, const QString& spec)
{
    QApplication app(argc, argv);
    const QStringList parts = spec.split(QLatin1Char('|'));
    auto study = std::make_shared<const Study>(readStudyFile(parts[0].toStdString()));
    QString err;
    ParticipantWindow* w = ParticipantWindow::open(study, parts[1], QStringLiteral("P03"), false, &err);
    if (!w)
        return 3;
    w->show();
    for (int t = 0; t < 2; ++t) {
        answerTrial(w, *study, t, 2);
        QTest::mouseClick(w->screen()->nextButton(), Qt::LeftButton);
    }
    QTest::mouseClick(w->screen()->choiceButton(QStringLiteral("useful"), 4), Qt::LeftButton);
    std::fputs("answered\n", stdout);
    std::fflush(stdout);
    ::kill(::getpid(), SIGKILL);
    return 4; // not reached
}

int main(int argc, char** argv)
{
    if (const char* spec = std::getenv("ASCVIZ_STUDY_CHILD"))
        return runKilledChild(argc, argv, QString::fromLocal8Bit(spec));
    QApplication app(argc, argv);
    TestStudyPage t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_studypage.moc"
