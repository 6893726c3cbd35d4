// The between-subjects design (each participant one condition, groups balanced) and the background
// section as data in the study file (method.md §9).
#include "ascviz/base/error.h"
#include "ascviz/study/report.h"
#include "ascviz/study/responses.h"
#include "ascviz/study/study.h"
#include "study_test_util.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace ascviz;

TEST(StudyBetween, EachParticipantOneConditionGroupsBalanced)
{
    const std::vector<std::string> conds = {"C", "S1", "S2"};
    // The paper's n = 7/7/6: 20 participants over 3 groups.
    const auto ps = assignTrialsBetween(4, conds, 20, 11);
    ASSERT_EQ(ps.size(), 20u);
    std::map<std::string, int> groups;
    for (std::size_t p = 0; p < ps.size(); ++p) {
        ASSERT_EQ(ps[p].trials.size(), 4u);
        std::set<int> samples;
        for (const auto& t : ps[p].trials) {
            EXPECT_EQ(t.condition, ps[p].trials.front().condition) << ps[p].id; // one condition each
            samples.insert(t.sample);
        }
        EXPECT_EQ(samples, (std::set<int>{0, 1, 2, 3})) << ps[p].id; // every sample once
        ++groups[ps[p].trials.front().condition];
    }
    // 20 = 6 * 3 + 2: two groups of 7, one of 6; and every block of 3 consecutive participants covers all.
    std::multiset<int> sizes;
    for (const auto& [c, n] : groups)
        sizes.insert(n);
    EXPECT_EQ(sizes, (std::multiset<int>{6, 7, 7}));
    for (std::size_t b = 0; b + 3 <= ps.size(); b += 3) {
        std::set<std::string> block;
        for (std::size_t p = b; p < b + 3; ++p)
            block.insert(ps[p].trials.front().condition);
        EXPECT_EQ(block.size(), 3u) << "block " << b / 3;
    }
    EXPECT_EQ(ps[0].id, "P01");
    // Seeded: the same seed gives the same groups; samples need not be a multiple of the conditions.
    const auto again = assignTrialsBetween(4, conds, 20, 11);
    for (std::size_t p = 0; p < ps.size(); ++p)
        EXPECT_EQ(again[p].trials.front().condition, ps[p].trials.front().condition);
    EXPECT_NO_THROW(assignTrialsBetween(5, conds, 2, 1));
    EXPECT_THROW(assignTrialsBetween(0, conds, 2, 1), InputError);
    EXPECT_THROW(assignTrialsBetween(3, conds, 0, 1), InputError);
    EXPECT_EQ(parseStudyDesign("between"), StudyDesignKind::Between);
    EXPECT_THROW(parseStudyDesign("mixed"), InputError);
}

TEST(StudyBetween, StudyFileKeepsDesignAndEditableBackground)
{
    StudyDesign d;
    d.id = "b";
    d.seed = 5;
    d.design = StudyDesignKind::Between;
    d.conditions = {"C", "S1"};
    d.participants = 3;
    d.background = defaultBackgroundQuestions();
    const Study s = makeStudy(d, studytest::handSamples(3)); // 3 samples: fine between subjects
    EXPECT_EQ(s.design, StudyDesignKind::Between);
    ASSERT_EQ(s.background.size(), 4u);
    EXPECT_EQ(s.background[0].id, "python");
    EXPECT_EQ(s.background[0].options.size(), 5u);
    EXPECT_EQ(s.background[3].kind, "text");
    auto j = studyToJson(s);
    EXPECT_EQ(j["design"], "between");
    // Edited by hand: the background is data, not part of the fingerprint.
    j["background"][0]["text"] = "Years of Python?";
    j["background"][0]["options"] = {"<1", "1-5", ">5"};
    const Study back = studyFromJson(j);
    EXPECT_EQ(back.design, StudyDesignKind::Between);
    EXPECT_EQ(back.background[0].text, "Years of Python?");
    EXPECT_EQ(back.background[0].options.size(), 3u);
    EXPECT_EQ(back.fingerprint(), s.fingerprint());
    // A bad background question is refused, naming it.
    auto bad = j;
    bad["background"][1]["options"] = {"same", "same"};
    try {
        studyFromJson(bad);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("'llm'"), std::string::npos) << e.what();
    }
    // A study file without these fields (made before them) reads as a within design without a background.
    j.erase("design");
    j.erase("background");
    const Study old = studyFromJson(j);
    EXPECT_EQ(old.design, StudyDesignKind::Within);
    EXPECT_TRUE(old.background.empty());
}

TEST(StudyBetween, ReportByBackgroundAnswersByHand)
{
    const std::vector<std::string> conds = {"C", "S1"};
    const auto questions = defaultStudyQuestions(5);
    // P01 (Expert): C agrees (5), S1 not (2); P02 (Beginner): C not (1), S1 agrees (4); P03 gave no background.
    const std::vector<ResponseRow> rows = {{"P01", 0, "s0", "C", "useful", 5, 1},
                                           {"P01", 1, "s1", "S1", "useful", 2, 1},
                                           {"P02", 0, "s0", "C", "useful", 1, 1},
                                           {"P02", 1, "s1", "S1", "useful", 4, 1},
                                           {"P03", 0, "s0", "C", "useful", 4, 1}};
    const std::map<std::string, std::map<std::string, std::string>> answers = {
        {"P01", {{"python", "Expert"}, {"problems", "hallucinated APIs"}}}, {"P02", {{"python", "Beginner"}}}};
    const auto b = backgroundBreakdown(conds, questions, defaultBackgroundQuestions(), rows, answers);
    ASSERT_EQ(b.size(), 3u); // the three choice questions; the free-text one is not grouped
    EXPECT_EQ(b[0].question, "python");
    // Groups in option order (None, Beginner, Intermediate, Advanced, Expert), then "(no answer)".
    ASSERT_EQ(b[0].groups.size(), 6u);
    EXPECT_EQ(b[0].groups[1].answer, "Beginner");
    EXPECT_EQ(b[0].groups[1].participants, 1);
    EXPECT_DOUBLE_EQ(b[0].groups[1].report.at("C", "useful").agreePct, 0.0);
    EXPECT_DOUBLE_EQ(b[0].groups[1].report.at("S1", "useful").agreePct, 100.0);
    EXPECT_EQ(b[0].groups[4].answer, "Expert");
    EXPECT_DOUBLE_EQ(b[0].groups[4].report.at("C", "useful").agreePct, 100.0);
    EXPECT_EQ(b[0].groups[4].report.at("S1", "useful").n, 1);
    EXPECT_EQ(b[0].groups[0].participants, 0); // None: nobody
    EXPECT_EQ(b[0].groups[5].answer, "(no answer)");
    EXPECT_EQ(b[0].groups[5].participants, 1); // P03
    EXPECT_DOUBLE_EQ(b[0].groups[5].report.at("C", "useful").agreePct, 100.0);
    // llm: nobody answered: every participant under "(no answer)".
    EXPECT_EQ(b[1].groups.back().participants, 3);
    const auto j = backgroundBreakdownJson(b);
    EXPECT_EQ(j[0]["groups"][4]["conditions"]["C"]["questions"]["useful"]["agree_pct"], 100.0);
}

TEST(StudyBetween, ResponsesFileKeepsBackgroundAnswers)
{
    testdata::TempDir dir("background");
    const Study s = studytest::handStudy(4, 2);
    auto db = ResponsesDb::open(dir / "r.db", s);
    EXPECT_TRUE(db.backgroundAnswers().empty());                                  // no table yet
    EXPECT_THROW(db.recordBackground("P01", {{"python", "Expert"}}), InputError); // not started
    db.startParticipant("P01", false);
    db.recordBackground("P01", {{"python", "Expert"}, {"problems", "wrong imports"}});
    db.recordBackground("P01", {{"python", "Advanced"}}); // replaces
    const auto again = ResponsesDb::openExisting(dir / "r.db").backgroundAnswers();
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again.at("P01").at("python"), "Advanced");
    EXPECT_EQ(again.at("P01").at("problems"), "wrong imports");
}

// Issue 54: 2 participants over 4 conditions gave no warning in the GUI that the assignment cannot balance. One note,
// the same for the CLI and the GUI, for each way a design falls short.
TEST(StudyBalance, TheNoteSaysHowADesignCannotBalance)
{
    StudyDesign d; // the paper's four conditions
    ASSERT_EQ(d.conditions.size(), 4u);
    d.participants = 8;
    EXPECT_EQ(studyBalanceNote(d), "");
    d.participants = 2;
    EXPECT_EQ(studyBalanceNote(d), "2 participants over 4 conditions cannot balance: each sample is seen under only 2 "
                                   "of the 4 conditions; a multiple of 4 participants balances it");
    d.participants = 6;
    EXPECT_EQ(studyBalanceNote(d), "6 participants over 4 conditions: each participant is balanced, but the last group "
                                   "does not show every sample under every condition; a multiple of 4 participants "
                                   "balances it");
    d.design = StudyDesignKind::Between;
    d.participants = 3;
    EXPECT_EQ(studyBalanceNote(d), "3 participants over 4 conditions cannot balance: 1 of the conditions have no "
                                   "participant; a multiple of 4 participants balances it");
    d.participants = 5;
    EXPECT_EQ(studyBalanceNote(d),
              "5 participants over 4 conditions give groups of unequal size; a multiple of 4 participants balances it");
    d.participants = 4;
    EXPECT_EQ(studyBalanceNote(d), "");
}
