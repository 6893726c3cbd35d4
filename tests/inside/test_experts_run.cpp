// analyzeExperts on the corpus-run engine's loop (experts.h, corpusrun/engine.h): progress after every text, a text
// over the size limit left out but counted as done, and cancel between texts (Cancelled, nothing returned).
#include "ascviz/base/error.h"
#include "ascviz/experts/experts.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace {

using namespace ascviz;

std::vector<ExpertText> someTexts()
{
    std::vector<ExpertText> t;
    for (int i = 0; i < 4; ++i)
        t.push_back({"def f" + std::to_string(i) + "(x):\n    return x + " + std::to_string(i) + "\n", "python",
                     "text " + std::to_string(i)});
    t.push_back({std::string(300, '#') + "\n", "python", "text 4 (long)"});
    return t;
}

TEST(ExpertsRun, ReportsProgressPerTextAndLeavesOutTheLongOne)
{
    const auto model = LanguageModel::load(testdata::fixtureModel("tiny-qwen3_moe"));
    ExpertRunOptions o;
    o.maxTextBytes = 200;
    std::vector<int> done;
    int total = -1;
    o.controls.progress = [&](const RunProgress& p) {
        done.push_back(p.done);
        total = p.total;
    };
    const ExpertRun run = analyzeExperts(*model, someTexts(), o);
    EXPECT_EQ(run.snippets, 4);
    EXPECT_EQ(run.skipped, 1);
    EXPECT_GT(run.tokens, 0);
    EXPECT_EQ(total, 5);
    ASSERT_FALSE(done.empty());
    EXPECT_EQ(done.back(), 5); // the left-out text is done too
    for (std::size_t i = 1; i < done.size(); ++i)
        EXPECT_GE(done[i], done[i - 1]);
}

TEST(ExpertsRun, CancelStopsBetweenTexts)
{
    const auto model = LanguageModel::load(testdata::fixtureModel("tiny-qwen3_moe"));
    std::atomic<bool> cancel{false};
    ExpertRunOptions o;
    o.controls.cancel = &cancel;
    int last = 0;
    o.controls.progress = [&](const RunProgress& p) {
        last = p.done;
        if (p.done == 2)
            cancel = true;
    };
    EXPECT_THROW(analyzeExperts(*model, someTexts(), o), Cancelled);
    EXPECT_EQ(last, 2); // no text after the cancel
}

} // namespace

namespace {

// Issue 54: routing the tokens of a result as they are. On a scored text (whose tokens are its encoding) it equals
// scoreExperts; on a generated text it routes the generated ids, which a re-encoding of the text need not give.
TEST(ExpertsRun, RoutingOfTokensAsTheyAreEqualsTheTextsOnAScoredText)
{
    using namespace ascviz;
    const auto model = LanguageModel::load(testdata::fixtureModel("tiny-qwen3_moe"));
    const std::string text = "def add(a, b):\n    return a + b  # 中文 😀\n";
    const ScoredExperts byText = scoreExperts(*model, text);
    const ScoredExperts byTokens = scoreExpertsOfTokens(*model, byText.scored);
    ASSERT_EQ(byTokens.tokens.size(), byText.tokens.size());
    ASSERT_GT(byText.tokens.size(), 5u);
    for (std::size_t t = 0; t < byText.tokens.size(); ++t) {
        ASSERT_EQ(byTokens.tokens[t].size(), byText.tokens[t].size()) << t;
        for (std::size_t l = 0; l < byText.tokens[t].size(); ++l) {
            EXPECT_EQ(byTokens.tokens[t][l].layer, byText.tokens[t][l].layer);
            EXPECT_EQ(byTokens.tokens[t][l].ids, byText.tokens[t][l].ids) << "token " << t << " layer " << l;
            for (std::size_t k = 0; k < byText.tokens[t][l].probs.size(); ++k)
                EXPECT_NEAR(byTokens.tokens[t][l].probs[k], byText.tokens[t][l].probs[k], 1e-6);
        }
    }
    // Other ids than the text's encoding: routed as given (one row per token), and a changed token changes the
    // routing at its position or after it.
    ScoredText other = byText.scored;
    other.tokens[2].id = (other.tokens[2].id + 7) % 100;
    const ScoredExperts changed = scoreExpertsOfTokens(*model, other);
    ASSERT_EQ(changed.tokens.size(), other.tokens.size());
    EXPECT_EQ(changed.tokens[0][0].ids, byText.tokens[0][0].ids); // before the change: the same
    bool differs = false;
    for (std::size_t t = 2; t < changed.tokens.size(); ++t)
        for (std::size_t l = 0; l < changed.tokens[t].size(); ++l)
            differs = differs || changed.tokens[t][l].probs != byText.tokens[t][l].probs;
    EXPECT_TRUE(differs);
    // A dense model has nothing to route.
    const auto dense = LanguageModel::load(testdata::fixtureModel("tiny-gpt2"));
    EXPECT_THROW(scoreExpertsOfTokens(*dense, byText.scored), ModelError);
}

} // namespace
