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
