// What a trial presents as the model's completion (issue 44) and how condition C words the questions
// (issue 43): study.h generatedSpan and questionTextFor, without Qt.
#include "study_test_util.h"

#include "ascviz/base/scored.h"
#include "ascviz/study/study.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ascviz;

namespace {

const std::string kCode = "def f(x):\n    y = x + 1\n    return y\n";

} // namespace

// A sample whose prompt is shorter than its text but whose tokens are not flagged generated (human-written
// code, e.g. a corpus entry with a `prompt` field): nothing is the model's. The old rule (prompt length)
// called the rest "the model's completion".
TEST(StudyGenerated, PromptLengthAloneIsNotACompletion)
{
    ScoredText s = studytest::handScored(kCode);
    s.promptBytes = 10; // shorter than the text, but no token is flagged generated
    const StudySample human = makeStudySample("h", "python", s, Aggregation::Median);
    ASSERT_LT(human.eval->scored.promptBytes, human.eval->scored.text.size());
    EXPECT_FALSE(generatedSpan(human).has_value());
}

TEST(StudyGenerated, SpanOfTheTokensRecordedAsGenerated)
{
    ScoredText s = studytest::handScored(kCode);
    s.promptBytes = 10; // "def f(x):\n" is the prompt; the tokens holding the rest were generated (the first,
                        // "\n    y", begins with the prompt's line break)
    for (auto& t : s.tokens)
        t.generated = t.end > s.promptBytes;
    const StudySample model = makeStudySample("m", "python", s, Aggregation::Median);
    const auto span = generatedSpan(model);
    ASSERT_TRUE(span.has_value());
    EXPECT_EQ(span->first, 10u);
    EXPECT_EQ(span->second, kCode.size());
    // tokens flagged from a later one on: the completion starts there
    ScoredText later = s;
    for (auto& t : later.tokens)
        t.generated = t.start >= 15;
    const auto fromLater = generatedSpan(makeStudySample("m2", "python", later, Aggregation::Median));
    ASSERT_TRUE(fromLater.has_value());
    EXPECT_EQ(fromLater->first, 15u);
    // what the study file records is what counts: written and read back, the same span; with the flags
    // cleared in the file (human code), none — whatever "prompt_bytes" says
    StudyDesign d;
    d.id = "g";
    d.conditions = {"C"};
    d.participants = 1;
    const Study st = makeStudy(d, {model});
    nlohmann::json j = studyToJson(st);
    const Study back = studyFromJson(j);
    ASSERT_TRUE(generatedSpan(back.samples[0]).has_value());
    EXPECT_EQ(*generatedSpan(back.samples[0]), *span);
    for (auto& t : j["samples"][0]["eval"]["tokens"])
        t["generated"] = false;
    j.erase("fingerprint");
    const Study human = studyFromJson(j);
    EXPECT_LT(human.samples[0].eval->scored.promptBytes, kCode.size());
    EXPECT_FALSE(generatedSpan(human.samples[0]).has_value());
}

// Condition C has no visualization (the paper's Table III: "C Control: Prompt, predicted tokens").
TEST(StudyGenerated, ConditionCIsNotAskedAboutAVisualization)
{
    const auto qs = defaultStudyQuestions(5);
    for (const auto& q : qs) {
        EXPECT_EQ(questionTextFor(q, "S1", true), q.text);
        EXPECT_EQ(questionTextFor(q, "S2", false), q.text);
        const std::string c = questionTextFor(q, "C", true);
        EXPECT_EQ(c.find("visualization"), std::string::npos) << c;
        EXPECT_EQ(c.rfind("The code (prompt and predicted tokens) is ", 0), 0u) << c;
        const std::string human = questionTextFor(q, "C", false);
        EXPECT_EQ(human.find("visualization"), std::string::npos) << human;
        EXPECT_EQ(human.find("predicted"), std::string::npos) << human;
    }
    EXPECT_EQ(questionTextFor(qs[0], "C", true),
              "The code (prompt and predicted tokens) is useful to understand the model's prediction.");
    EXPECT_EQ(questionTextFor(qs[1], "C", false), "The code is readable.");
    // a researcher's own wording is left as it is
    const StudyQuestion own{"x", "I trust this prediction.", defaultLikertLabels(5)};
    EXPECT_EQ(questionTextFor(own, "C", true), own.text);
}
