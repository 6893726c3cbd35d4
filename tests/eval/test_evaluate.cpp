// eval's one entry point (issue 40, eval/evaluate.h): limits → parse → score → split → evaluate → scope, in that
// order; the scorer runs only after the text and its tree passed their limits, and gets the tree the evaluation
// uses. The result equals the pieces assembled by hand (parseForEval, splitAtPrompt, evaluate, reaggregate).
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaluate.h"
#include "eval_test_util.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

using namespace ascviz;

namespace {

const std::string kCode = "def f(a, b):\n    return a + b\n";

// A scorer that cuts the text into 3-byte tokens with NtPs 0.1, 0.2, ... 0.9, 0.1, ..., counting its calls.
ScoredText threeByteTokens(const std::string& text)
{
    std::vector<std::pair<std::string, std::optional<double>>> pieces;
    for (std::size_t i = 0; i < text.size(); i += 3)
        pieces.emplace_back(text.substr(i, 3), 0.1 * static_cast<double>(1 + (i / 3) % 9));
    return evaltest::scoredFromPieces(pieces);
}

std::string message(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no InputError)";
}

} // namespace

TEST(EvaluateText, EqualsThePiecesByHandAndScoresOnce)
{
    EvalRequest req;
    req.language = "python";
    req.aggregation = Aggregation::Mean;
    req.scope = AggregationScope::Children;
    req.promptBytes = 13; // "def f(a, b):\n"
    int calls = 0;
    std::size_t treeNodes = 0;
    const EvalResult r = evaluateText(kCode, req, [&](const std::string& text, const SyntaxTree& tree) {
        ++calls;
        treeNodes = tree.nodes().size();
        EXPECT_EQ(tree.text(), text);
        return threeByteTokens(text);
    });
    EXPECT_EQ(calls, 1);

    ScoredText s = threeByteTokens(kCode);
    splitAtPrompt(s, 13);
    EvalResult byHand =
        evaluate(std::move(s), parseForEval("python", kCode), Aggregation::Mean, CategoryMap::forLanguage("python"));
    reaggregate(byHand, Aggregation::Mean, AggregationScope::Children);

    EXPECT_EQ(treeNodes, byHand.tree.nodes().size());
    EXPECT_EQ(r.scope, AggregationScope::Children);
    EXPECT_EQ(r.aggregation, Aggregation::Mean);
    EXPECT_EQ(r.scored.promptBytes, 13u);
    EXPECT_EQ(r.scored.promptTokens, byHand.scored.promptTokens);
    ASSERT_EQ(r.nodes.size(), byHand.nodes.size());
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
        EXPECT_EQ(r.nodes[i].value, byHand.nodes[i].value) << "node " << i;
        EXPECT_EQ(r.nodes[i].category, byHand.nodes[i].category) << "node " << i;
    }
    EXPECT_EQ(r.features.ascEval, byHand.features.ascEval);
    EXPECT_EQ(r.features.perCategory, byHand.features.perCategory);
}

TEST(EvaluateText, LimitsAndPromptAreCheckedBeforeTheScorerRuns)
{
    int calls = 0;
    const TextScorer scorer = [&](const std::string& text, const SyntaxTree&) {
        ++calls;
        return threeByteTokens(text);
    };
    EvalRequest req;
    req.language = "python";
    req.maxTextBytes = 10;
    req.source = "snippet.py";
    const std::string size = message([&] { evaluateText(kCode, req, scorer); });
    EXPECT_NE(size.find("snippet.py"), std::string::npos) << size;

    req.maxTextBytes = 0;
    req.maxAstDepth = 2;
    EXPECT_NE(message([&] { evaluateText(kCode, req, scorer); }), "(no InputError)");

    req.maxAstDepth = 0;
    req.promptBytes = 99;
    req.promptName = "the prompt setting";
    EXPECT_EQ(message([&] { evaluateText(kCode, req, scorer); }),
              "the prompt setting 99 is beyond the end of the text (" + std::to_string(kCode.size()) + " bytes)");
    EXPECT_EQ(calls, 0);
}

TEST(EvaluateScores, UsesTheGivenCategoriesAndATreeOfAnotherTextIsParsedAgain)
{
    const CategoryMap onlyReturn =
        CategoryMap::fromJson(R"({"categories": {"jump": ["return_statement"]}})", "a test table");
    EvalRequest req;
    req.language = "python";
    req.categories = &onlyReturn;
    const EvalResult r = evaluateScores(threeByteTokens(kCode), req, parseForEval("python", "x = 1\n"));
    EXPECT_EQ(r.tree.text(), kCode);
    ASSERT_EQ(r.features.perCategory.size(), 1u);
    EXPECT_EQ(r.features.perCategory.begin()->first, "jump");
    EXPECT_EQ(r.scored.promptBytes, kCode.size()); // no prompt asked: the scores' own split is kept
}

// categoryMeans (ablate's and the probe's treatment): per category the mean of its nodes' values, by hand.
TEST(CategoryMeans, MeanPerCategoryOverValuedNodes)
{
    EvalResult r;
    auto node = [&](std::optional<double> v, std::optional<std::string> c) {
        NodeEval n;
        n.value = v;
        n.category = std::move(c);
        r.nodes.push_back(n);
    };
    node(0.2, "Scope");          // 0
    node(0.6, "Scope");          // 1
    node(std::nullopt, "Scope"); // 2: n/a, left out
    node(0.9, std::nullopt);     // 3: no category, left out
    node(0.5, "Decision");       // 4
    const auto all = categoryMeans(r);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_DOUBLE_EQ(all.at("Scope"), 0.4);
    EXPECT_DOUBLE_EQ(all.at("Decision"), 0.5);
    const std::set<int> only{1, 3};
    const auto some = categoryMeans(r, &only);
    ASSERT_EQ(some.size(), 1u);
    EXPECT_DOUBLE_EQ(some.at("Scope"), 0.6);
}
