// The responses file (answers as given, resume, refusals) and the report, whose numbers are recomputed here
// from the CSV export.
#include "study_test_util.h"
#include "testdata.h"

#include "ascviz/base/error.h"
#include "ascviz/study/report.h"
#include "ascviz/study/responses.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace ascviz;
using ascviz::testdata::TempDir;

namespace {

// Answers every trial of `pid` with a pattern of the trial and question index; returns the answers given.
int answerAll(ResponsesDb& db, const Study& s, const std::string& pid, int salt)
{
    const auto* p = s.participant(pid);
    int given = 0;
    for (int t = 0; t < int(p->trials.size()); ++t) {
        for (std::size_t q = 0; q < s.questions.size(); ++q) {
            db.recordAnswer(pid, t, s.questions[q].id, 1 + (t * 3 + int(q) + salt) % s.questions[q].points(), 1.5);
            ++given;
        }
        db.completeTrial(pid, t, 2.0 + t, t % 2 ? "comment " + std::to_string(t) : "");
    }
    return given;
}

} // namespace

TEST(StudyResponses, AnswersAreKeptAndResumeAtTheFirstOpenTrial)
{
    TempDir dir("responses");
    const Study s = studytest::handStudy(4, 4);
    {
        auto db = ResponsesDb::open(dir / "r.sqlite", s);
        db.startParticipant("P01", false);
        db.recordAnswer("P01", 0, "useful", 4, 3.0);
        db.recordAnswer("P01", 0, "readable", 2, 3.5);
        db.recordAnswer("P01", 0, "complex", 5, 4.0);
        EXPECT_THROW(db.completeTrial("P01", 1, 1.0, ""), InputError); // nothing answered yet
        db.completeTrial("P01", 0, 6.0, "hard, \"really\"");
        db.recordAnswer("P01", 1, "useful", 1, 1.0);
        db.recordAnswer("P01", 1, "useful", 3, 2.0); // changed: the later answer replaces it
        db.saveCommentDraft("P01", 1, "half typ");
        EXPECT_THROW(db.recordAnswer("P01", 1, "useful", 6, 1.0), InputError);
        EXPECT_THROW(db.recordAnswer("P01", 1, "nice", 1, 1.0), InputError);
        EXPECT_THROW(db.recordAnswer("P09", 1, "useful", 1, 1.0), InputError);
    } // closed mid-trial, as when the window is closed
    auto db = ResponsesDb::open(dir / "r.sqlite", s);
    EXPECT_EQ(db.firstOpenTrial("P01"), 1);
    EXPECT_EQ(db.answers("P01", 1), (std::map<std::string, int>{{"useful", 3}}));
    EXPECT_EQ(db.comment("P01", 0), "hard, \"really\"");
    EXPECT_EQ(db.comment("P01", 1), "half typ"); // the draft of the open trial survives
    // The same id again: refused unless resuming.
    try {
        db.startParticipant("P01", false);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("P01 already has responses"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(db.startParticipant("P01", true));
    EXPECT_THROW(db.startParticipant("P77", false), InputError);

    const auto rows = db.rows();
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].question, "useful");
    EXPECT_EQ(rows[0].seconds, 6.0); // the trial's time once completed
    EXPECT_EQ(rows[0].condition, s.participants[0].trials[0].condition);
    EXPECT_EQ(rows[0].sample, s.samples[std::size_t(s.participants[0].trials[0].sample)].id);
    const auto prog = db.progress();
    ASSERT_EQ(prog.size(), 4u);
    EXPECT_TRUE(prog[0].started);
    EXPECT_EQ(prog[0].completed, 1);
    EXPECT_FALSE(prog[1].started);
}

TEST(StudyResponses, RefusesAnotherStudysFile)
{
    TempDir dir("responses-other");
    const Study a = studytest::handStudy(4, 4, 1);
    const Study b = studytest::handStudy(4, 4, 2); // same id, another assignment
    {
        auto db = ResponsesDb::open(dir / "r.sqlite", a);
        db.startParticipant("P01", false);
        db.recordAnswer("P01", 0, "useful", 4, 1.0);
    }
    std::ifstream in(dir / "r.sqlite", std::ios::binary);
    const std::string before((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(before.empty());
    try {
        ResponsesDb::open(dir / "r.sqlite", b);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("belongs to study 'pilot' (fingerprint " + a.fingerprint()),
                  std::string::npos)
            << e.what();
    }
    std::ifstream again(dir / "r.sqlite", std::ios::binary);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()), before)
        << "the refused file was changed";
    auto db = ResponsesDb::open(dir / "r.sqlite", a); // untouched
    EXPECT_EQ(db.rows().size(), 1u);
    std::ofstream(dir / "notes.txt") << "not a database";
    EXPECT_THROW(ResponsesDb::open(dir / "notes.txt", a), InputError);
    EXPECT_THROW(ResponsesDb::openExisting(dir / "absent.sqlite"), InputError);
}

TEST(StudyReport, NumbersRecomputedFromTheCsv)
{
    TempDir dir("report");
    const Study s = studytest::handStudy(8, 4, 3, {"C", "S1", "S2", "S3"}, 5);
    auto db = ResponsesDb::open(dir / "r.sqlite", s);
    int given = 0;
    for (const auto& p : s.participants) {
        db.startParticipant(p.id, false);
        given += answerAll(db, s, p.id, int(p.id.back()));
    }
    const auto rows = db.rows();
    ASSERT_EQ(int(rows.size()), given);
    writeResponsesCsv(dir / "answers.csv", rows);

    // Recompute from the CSV text alone: count per condition, question and answer.
    std::ifstream in(dir / "answers.csv");
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "participant,trial,sample,condition,question,answer,seconds");
    std::map<std::string, std::map<std::string, std::vector<int>>> counts;
    int lines = 0;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string x;
        while (std::getline(ss, x, ','))
            f.push_back(x);
        ASSERT_EQ(f.size(), 7u) << line;
        auto& v = counts[f[3]][f[4]];
        v.resize(5, 0);
        ++v[std::size_t(std::stoi(f[5]) - 1)];
        ++lines;
    }
    EXPECT_EQ(lines, given);

    const StudyReport fromDb = computeStudyReport(db.conditions(), db.questions(), rows);
    const StudyReport fromCsv = computeStudyReport(s.conditions, s.questions, readResponsesCsv(dir / "answers.csv"));
    const auto j = studyReportJson(fromCsv);
    EXPECT_EQ(j, studyReportJson(fromDb));
    for (const auto& c : s.conditions)
        for (const auto& q : s.questions) {
            const auto& v = counts[c][q.id];
            const int n = v[0] + v[1] + v[2] + v[3] + v[4];
            const auto& qj = j["conditions"][c]["questions"][q.id];
            EXPECT_EQ(qj["n"].get<int>(), n) << c << " " << q.id;
            EXPECT_EQ(qj["distribution"].get<std::vector<int>>(), v) << c << " " << q.id;
            EXPECT_DOUBLE_EQ(qj["agree_pct"].get<double>(), 100.0 * (v[3] + v[4]) / n) << c << " " << q.id;
        }
    EXPECT_EQ(j["conditions"]["S2"]["questions"]["useful"]["n"], 8 * 4 / 4); // 8 trials x 4 participants / 4 conditions
}

TEST(StudyReport, MidpointAndBadRows)
{
    EXPECT_FALSE(isAgreement(3, 5));
    EXPECT_TRUE(isAgreement(4, 5));
    EXPECT_FALSE(isAgreement(2, 4));
    EXPECT_TRUE(isAgreement(3, 4));
    const auto qs = defaultStudyQuestions(4);
    const std::vector<ResponseRow> rows = {{"P01", 0, "s0", "C", "useful", 3, 1.0},
                                           {"P01", 1, "s1", "C", "useful", 1, 1.0},
                                           {"P02", 0, "s0", "C", "useful", 4, 1.0}};
    const auto r = computeStudyReport({"C", "S1"}, qs, rows);
    EXPECT_EQ(r.at("C", "useful").n, 3);
    EXPECT_EQ(r.at("C", "useful").distribution, (std::vector<int>{1, 0, 1, 1}));
    EXPECT_NEAR(r.at("C", "useful").agreePct, 200.0 / 3.0, 1e-12);
    EXPECT_EQ(r.at("S1", "readable").n, 0);
    EXPECT_THROW(computeStudyReport({"C"}, qs, {{"P01", 0, "s0", "C", "useful", 5, 1.0}}), InputError);
    EXPECT_THROW(computeStudyReport({"C"}, qs, {{"P01", 0, "s0", "S3", "useful", 2, 1.0}}), InputError);
    EXPECT_THROW(parseResponsesCsv("participant,trial\nP01,0\n", "x.csv"), InputError);
    EXPECT_THROW(parseResponsesCsv("participant,trial,sample,condition,question,answer,seconds\nP01,0,s,C,useful,x,1\n",
                                   "x.csv"),
                 InputError);
    // Quoted fields survive the round trip.
    const std::vector<ResponseRow> q = {{"P,1", 0, "s \"0\"", "C", "useful", 2, 0.5}};
    const auto back = parseResponsesCsv(responsesCsv(q), "q.csv");
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].participant, "P,1");
    EXPECT_EQ(back[0].sample, "s \"0\"");
}

TEST(StudyResponses, AParticipantIsRecordedByOneProcessAtATime)
{
    TempDir dir("study-lock");
    const Study s = studytest::handStudy(4, 4);
    const auto path = dir / "r.sqlite";
    const std::string pid = std::to_string(::getpid());
    {
        auto first = ResponsesDb::open(path, s);
        first.startParticipant("P01", false);
        first.recordAnswer("P01", 0, s.questions[0].id, 2, 1.0);
        // A second session on the same file and participant (another `ascviz --run-study`): refused, with or
        // without resuming, instead of replacing the first one's answers.
        auto second = ResponsesDb::open(path, s);
        for (const bool resume : {true, false}) {
            try {
                second.startParticipant("P01", resume);
                FAIL() << "a second session recorded P01";
            } catch (const InputError& e) {
                const std::string m = e.what();
                EXPECT_NE(m.find("participant P01 is already being recorded by another process (pid " + pid),
                          std::string::npos)
                    << m;
            }
        }
        second.startParticipant("P02", false); // another participant: fine
        EXPECT_THROW(first.startParticipant("P02", true), InputError);
        EXPECT_EQ(first.answers("P01", 0).at(s.questions[0].id), 2);
    }
    // Both ended: their locks are gone, P01 resumes.
    {
        auto again = ResponsesDb::open(path, s);
        again.startParticipant("P01", true);
        EXPECT_EQ(again.firstOpenTrial("P01"), 0);
    }
    // A session killed while recording (a child that exits without closing the file): its lock is stale and
    // taken over by the next session on this host.
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        try {
            auto db = ResponsesDb::open(path, s);
            db.startParticipant("P03", false);
        } catch (...) {
            _exit(1);
        }
        _exit(0); // no destructor: the lock stays in the file
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    auto next = ResponsesDb::open(path, s);
    EXPECT_NO_THROW(next.startParticipant("P03", true));
}
