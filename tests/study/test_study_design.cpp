// The study design: counterbalanced assignment (balance, reproducibility), the study file (round trip,
// refusals of bad input, nothing overwritten).
#include "study_test_util.h"
#include "testdata.h"

#include "ascviz/base/error.h"
#include "ascviz/study/study.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace ascviz;
using ascviz::testdata::TempDir;

namespace {

std::string readText(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Checks every balance property of an assignment; returns the number of violations (0 = balanced).
void expectBalanced(const std::vector<StudyParticipant>& ps, int samples, const std::vector<std::string>& conds)
{
    const int k = int(conds.size());
    for (const auto& p : ps) {
        ASSERT_EQ(int(p.trials.size()), samples) << p.id;
        std::map<std::string, int> perCondition;
        std::set<int> seen;
        for (const auto& t : p.trials) {
            ++perCondition[t.condition];
            EXPECT_TRUE(seen.insert(t.sample).second) << p.id << " sees sample " << t.sample << " twice";
        }
        for (const auto& c : conds)
            EXPECT_EQ(perCondition[c], samples / k) << p.id << " condition " << c;
    }
    // Each complete group of k consecutive participants shows every sample under every condition once.
    for (std::size_t g = 0; g + std::size_t(k) <= ps.size(); g += std::size_t(k)) {
        std::map<std::pair<int, std::string>, int> cell;
        for (std::size_t p = g; p < g + std::size_t(k); ++p)
            for (const auto& t : ps[p].trials)
                ++cell[{t.sample, t.condition}];
        EXPECT_EQ(int(cell.size()), samples * k) << "group " << g / std::size_t(k);
        for (const auto& [key, n] : cell)
            EXPECT_EQ(n, 1) << "sample " << key.first << " condition " << key.second;
    }
}

} // namespace

TEST(StudyAssignment, BalancedForEveryConditionCount)
{
    const std::vector<std::string> all = {"C", "S1", "S2", "S3"};
    for (int k = 1; k <= 4; ++k) {
        const std::vector<std::string> conds(all.begin(), all.begin() + k);
        for (int per : {1, 2, 3}) {
            SCOPED_TRACE("k=" + std::to_string(k) + " samples=" + std::to_string(per * k));
            expectBalanced(assignTrials(per * k, conds, 3 * k, 42), per * k, conds);
        }
    }
}

TEST(StudyAssignment, SeededAndReproducible)
{
    const auto a = assignTrials(8, studyConditionNames(), 8, 1);
    const auto b = assignTrials(8, studyConditionNames(), 8, 1);
    const auto c = assignTrials(8, studyConditionNames(), 8, 2);
    auto flat = [](const std::vector<StudyParticipant>& ps) {
        std::string s;
        for (const auto& p : ps)
            for (const auto& t : p.trials)
                s += p.id + ":" + std::to_string(t.sample) + t.condition + ";";
        return s;
    };
    EXPECT_EQ(flat(a), flat(b));
    EXPECT_NE(flat(a), flat(c));
    EXPECT_EQ(a[0].id, "P01");
    EXPECT_EQ(a[7].id, "P08");
    // Presentation orders differ between participants (shuffled per participant).
    EXPECT_NE(a[0].trials[0].sample * 10 + a[0].trials[1].sample, a[4].trials[0].sample * 10 + a[4].trials[1].sample);
}

TEST(StudyAssignment, RefusesSamplesNotAMultipleOfConditions)
{
    try {
        assignTrials(6, studyConditionNames(), 4, 1);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("multiple of the 4 conditions"), std::string::npos) << e.what();
    }
    EXPECT_THROW(assignTrials(4, {"C", "S9"}, 4, 1), InputError);
    EXPECT_THROW(assignTrials(4, {"C", "C"}, 4, 1), InputError);
    EXPECT_THROW(assignTrials(4, studyConditionNames(), 0, 1), InputError);
}

TEST(StudyFile, RoundTripKeepsEvaluationsAndDesign)
{
    TempDir dir("study-file");
    const Study s = studytest::handStudy(4, 4);
    writeStudyFile(dir / "s.json", s);
    const Study r = readStudyFile(dir / "s.json");
    EXPECT_EQ(r.id, "pilot");
    EXPECT_EQ(r.fingerprint(), s.fingerprint());
    ASSERT_EQ(r.samples.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        ASSERT_EQ(r.samples[i].eval->nodes.size(), s.samples[i].eval->nodes.size());
        for (std::size_t n = 0; n < s.samples[i].eval->nodes.size(); ++n)
            EXPECT_EQ(r.samples[i].eval->nodes[n].value, s.samples[i].eval->nodes[n].value);
        ASSERT_EQ(r.samples[i].eval->scored.tokens.size(), s.samples[i].eval->scored.tokens.size());
        EXPECT_EQ(r.samples[i].eval->scored.tokens[3].ntp, s.samples[i].eval->scored.tokens[3].ntp);
    }
    EXPECT_EQ(r.questions.size(), 3u);
    EXPECT_EQ(r.questions[0].points(), 5);
    EXPECT_EQ(r.exitKey, s.exitKey);
    ASSERT_EQ(r.participants.size(), 4u);
    EXPECT_EQ(r.participants[2].trials[1].condition, s.participants[2].trials[1].condition);

    const auto j = nlohmann::json::parse(readText(dir / "s.json"));
    EXPECT_EQ(j["format"], "ascviz-study");
    EXPECT_EQ(j["version"], 1);
    // Stored values come from the file: a value changed there (and the fingerprint kept) is what is shown.
}

TEST(StudyFile, StoredNodeValuesAreTheOnesShown)
{
    const Study s = studytest::handStudy(4, 4);
    auto j = studyToJson(s);
    j["samples"][0]["eval"]["nodes"][0]["asc_eval"] = 0.125; // the AST values are read, not recomputed
    const Study r = studyFromJson(j);
    EXPECT_EQ(r.samples[0].eval->nodes[0].value, 0.125);
}

TEST(StudyFile, RefusesBadInputAndOverwritesNothing)
{
    TempDir dir("study-bad");
    const Study s = studytest::handStudy(4, 4);
    const auto good = studyToJson(s);

    auto newer = good;
    newer["version"] = 2;
    try {
        studyFromJson(newer);
        FAIL();
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("version 2"), std::string::npos) << m;
        EXPECT_NE(m.find("version 1"), std::string::npos) << m;
    }

    auto missing = good;
    missing["participants"][1]["trials"][0]["sample"] = 9;
    try {
        studyFromJson(missing);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("sample 9, which is missing"), std::string::npos) << e.what();
    }

    auto dup = good;
    dup["participants"][1]["id"] = dup["participants"][0]["id"];
    try {
        studyFromJson(dup);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("two participants have the id 'P01'"), std::string::npos) << e.what();
    }

    auto notStudy = good;
    notStudy["format"] = "ascviz-session";
    EXPECT_THROW(studyFromJson(notStudy), InputError);

    auto edited = good;
    edited["samples"][0]["code"] = "x = 1\n";
    EXPECT_THROW(studyFromJson(edited), InputError);

    // An existing file is never overwritten.
    std::ofstream(dir / "taken.json") << "keep me";
    EXPECT_THROW(writeStudyFile(dir / "taken.json", s), InputError);
    EXPECT_EQ(readText(dir / "taken.json"), "keep me");
}

TEST(StudyFile, ValuesOfTheWrongJsonTypeAreInputErrors)
{
    // Found in review while writing the study fuzz target (tests/fuzz/regressions/study/): a value of the wrong
    // type read with a default threw the JSON library's type_error past the reader, which promises InputError.
    const std::string q = R"("questions":[{"id":"q","text":"t","labels":["a","b","c","d"]}])";
    for (const std::string& text : std::vector<std::string>{
             R"({"format":"ascviz-study","version":"1"})",
             R"({"format":"ascviz-study","version":1,"id":"s","title":7,"conditions":["C"],"questions":[]})",
             R"({"format":"ascviz-study","version":1,"id":"s","conditions":["C"],)" + q + R"(,"participant_mode":5})",
             R"({"format":"ascviz-study","version":1,"id":"s","conditions":["C"],)" + q +
                 R"(,"samples":[{"id":"a","language":"python","code":"x = 1\n","eval":3}]})"}) {
        try {
            studyFromText(text, "bad.json");
            ADD_FAILURE() << "no error for " << text;
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("bad.json: study file: ", 0), 0u) << e.what();
        }
    }
    // Found by the study fuzz target in its first 17 s (regressions/study/number-1e4000-*.json): a number beyond
    // double's range threw the JSON parser's out_of_range, which only parse_error was caught for.
    try {
        studyFromText(R"({"format":"ascviz-study","version":1,"seed":1e4000})", "big.json");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("the study file big.json is not valid JSON"), std::string::npos)
            << e.what();
    }
    // Found by the study fuzz target (regressions/study/token-id-5e19-float-to-int-ub.json): an integer field
    // holding a number beyond its type (a token id of 50777777777777777777, parsed as a float) was converted
    // to int by the JSON library, undefined behaviour (UBSan); integers must be JSON integers in range.
    const auto study = studyToJson(studytest::handStudy(4, 4));
    for (const nlohmann::json& id : {nlohmann::json(50777777777777777777.0), nlohmann::json(uint64_t(1) << 40),
                                     nlohmann::json(-3000000000LL), nlohmann::json(1.5)}) {
        auto bad = study;
        bad["samples"][0]["eval"]["tokens"][0]["id"] = id;
        try {
            studyFromJson(bad);
            ADD_FAILURE() << "no error for id " << id.dump();
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("\"id\" in sample 's0' token is not an integer in range"),
                      std::string::npos)
                << e.what();
        }
    }
    auto seed = study;
    seed["seed"] = 1e30;
    EXPECT_THROW(studyFromJson(seed), InputError);
    // The same mutations of a real study file.
    const auto good = studyToJson(studytest::handStudy(4, 4));
    for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
             {"title", 7}, {"seed", "x"}, {"aggregation", 3}, {"participant_mode", 5}, {"created", false}}) {
        auto bad = good;
        bad[key] = value;
        EXPECT_THROW(studyFromJson(bad), InputError) << key;
    }
    auto badEval = good;
    badEval["samples"][0]["eval"]["prompt_bytes"] = "x";
    EXPECT_THROW(studyFromJson(badEval), InputError);
    EXPECT_EQ(studyFromJson(good).fingerprint(), studytest::handStudy(4, 4).fingerprint());
}

TEST(StudyDesign, ChecksQuestionsAndSamples)
{
    StudyDesign d;
    d.questions = defaultStudyQuestions(4);
    d.questions[1].labels.pop_back(); // 3 points
    EXPECT_THROW(makeStudy(d, studytest::handSamples(4)), InputError);
    d.questions = defaultStudyQuestions(4);
    auto samples = studytest::handSamples(4);
    samples[1].id = samples[0].id;
    EXPECT_THROW(makeStudy(d, samples), InputError);
    const Study s = makeStudy(d, studytest::handSamples(8));
    EXPECT_EQ(s.id.rfind("study-", 0), 0u); // an id made from the fingerprint
    EXPECT_EQ(s.questions[0].points(), 4);
    EXPECT_EQ(s.participants.size(), 4u);
}

TEST(StudyAssignment, ParticipantsNotAMultipleOfConditionsAreEachBalanced)
{
    const auto ps = assignTrials(8, studyConditionNames(), 5, 9);
    ASSERT_EQ(ps.size(), 5u);
    for (const auto& p : ps) {
        std::map<std::string, int> perCondition;
        for (const auto& t : p.trials)
            ++perCondition[t.condition];
        for (const auto& c : studyConditionNames())
            EXPECT_EQ(perCondition[c], 2) << p.id << " " << c;
    }
    // P05 starts the second group: it rotates like P01.
    std::map<int, std::string> first, fifth;
    for (const auto& t : ps[0].trials)
        first[t.sample] = t.condition;
    for (const auto& t : ps[4].trials)
        fifth[t.sample] = t.condition;
    EXPECT_EQ(first, fifth);
}

TEST(StudySamples, DrawnReproduciblyAndPromptsFlagTheCompletion)
{
    const auto a = drawSamples(100, 10, 5);
    EXPECT_EQ(a, drawSamples(100, 10, 5));
    EXPECT_NE(a, drawSamples(100, 10, 6));
    ASSERT_EQ(a.size(), 10u);
    EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
    EXPECT_EQ(std::set<std::size_t>(a.begin(), a.end()).size(), 10u);
    EXPECT_THROW(drawSamples(5, 6, 1), InputError);
    EXPECT_THROW(drawSamples(5, 0, 1), InputError);

    ScoredText s = studytest::handScored("def f(x):\n    return x\n");
    splitAtPromptText(s, std::string("def f(x):\n"));
    EXPECT_EQ(s.promptBytes, 10u);
    for (const auto& t : s.tokens)
        EXPECT_EQ(t.generated, t.start >= 10) << t.start;
    EXPECT_EQ(s.promptTokens,
              std::size_t(std::count_if(s.tokens.begin(), s.tokens.end(), [](const auto& t) { return !t.generated; })));
    splitAtPromptText(s, std::string("class X"));
    EXPECT_EQ(s.promptBytes, s.text.size());
    for (const auto& t : s.tokens)
        EXPECT_FALSE(t.generated);
}
