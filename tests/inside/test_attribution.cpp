// Attribution by AST node (attribution/attribution.h) on a fixture checkpoint: every occlusion value is the
// target's log-probability minus its value with exactly that node's tokens hidden (the model room's primitive,
// called here on its own), nodes with the same tokens get the same value, the budget keeps the deepest nodes,
// gradient × input sums the per-token values of the node's tokens, and bad targets and prompts are refused.
#include "ascviz/attribution/attribution.h"
#include "ascviz/attribution/reliance.h"
#include "ascviz/base/error.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace {

const std::string kText = "def area(w, h):\n    s = w * h\n    return s\n\nprint(area(2, 3))\n";
const std::size_t kPrompt = 32; // "def area(w, h):\n    s = w * h\n" — the completion starts at "    return"

std::unique_ptr<ascviz::LanguageModel> model()
{
    ascviz::LoadOptions o;
    o.device = ascviz::Device::Cpu;
    o.dtype = ascviz::Dtype::Float32;
    o.threads = 2;
    return ascviz::LanguageModel::load(ascviz::testdata::fixtureModel("tiny-gpt2"), o);
}

template <class F> std::string errorOf(F f)
{
    try {
        f();
    } catch (const ascviz::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Attribution, TargetsParse)
{
    EXPECT_EQ(ascviz::parseAttributionTarget("all").kind, ascviz::AttributionTargetSpec::Kind::Completion);
    const auto n = ascviz::parseAttributionTarget("12");
    EXPECT_EQ(n.kind, ascviz::AttributionTargetSpec::Kind::Node);
    EXPECT_EQ(n.index, 12);
    const auto t = ascviz::parseAttributionTarget("token:7");
    EXPECT_EQ(t.kind, ascviz::AttributionTargetSpec::Kind::Token);
    EXPECT_EQ(t.index, 7);
    for (const std::string bad : {"", "x1", "-3", "token:", "token:a", "12345678901"})
        EXPECT_THROW(ascviz::parseAttributionTarget(bad), ascviz::InputError) << bad;
    EXPECT_THROW(ascviz::parseAttributionMethod("saliency"), ascviz::InputError);
    EXPECT_THROW(ascviz::parseNodeOrder("random"), ascviz::InputError);
}

TEST(Attribution, OcclusionIsTheDropWhenExactlyThatNodeIsHidden)
{
    const auto m = model();
    ascviz::AttributionOptions o;
    o.budget = 0;
    const auto r = ascviz::attribute(*m, kText, kPrompt, "python", {}, o);
    ASSERT_FALSE(r.nodes.empty());
    EXPECT_EQ(r.nodes.size(), r.promptNodes);
    EXPECT_LT(r.forwardPasses, r.nodes.size() + 1) << "nodes with the same tokens share one masked copy";
    // The same by hand through the primitive: ids, target positions, each node's token positions.
    const auto enc = m->tokenizer().encode(kText, false);
    std::size_t firstCompletion = 0;
    while (enc.offsets[firstCompletion].first < kPrompt)
        ++firstCompletion;
    EXPECT_EQ(r.tokenBegin, firstCompletion);
    EXPECT_EQ(r.tokenEnd, enc.ids.size());
    const ascviz::TargetTokens target{r.tokenBegin, r.tokenEnd};
    std::vector<std::vector<std::size_t>> masks{{}};
    for (const auto& n : r.nodes) {
        std::vector<std::size_t> mask;
        for (std::size_t t = 0; t < enc.ids.size(); ++t)
            if (enc.offsets[t].first < n.end && enc.offsets[t].second > n.start && t < firstCompletion)
                mask.push_back(t);
        masks.push_back(mask);
    }
    const auto lp = ascviz::maskedTargetLogProbs(*m, enc.ids, target, masks);
    EXPECT_NEAR(r.targetLogProb, lp[0], 1e-4);
    std::map<std::vector<std::size_t>, double> byMask;
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
        EXPECT_NEAR(r.nodes[i].attribution, lp[0] - lp[i + 1], 1e-3) << r.nodes[i].type << " " << r.nodes[i].id;
        const auto [it, fresh] = byMask.emplace(masks[i + 1], r.nodes[i].attribution);
        if (!fresh) {
            EXPECT_EQ(it->second, r.nodes[i].attribution) << "same tokens, same value";
        }
    }
}

TEST(Attribution, BudgetKeepsTheDeepestOrTheShallowest)
{
    const auto m = model();
    ascviz::AttributionOptions all;
    all.budget = 0;
    const auto full = ascviz::attribute(*m, kText, kPrompt, "python", {}, all);
    ascviz::AttributionOptions o;
    o.budget = 4;
    const auto deep = ascviz::attribute(*m, kText, kPrompt, "python", {}, o);
    ASSERT_EQ(deep.nodes.size(), 4u);
    int minKept = 1000, maxAll = 0, maxKept = 0, minAll = 1000;
    for (const auto& n : deep.nodes)
        minKept = std::min(minKept, n.depth);
    for (const auto& n : full.nodes) {
        maxAll = std::max(maxAll, n.depth);
        minAll = std::min(minAll, n.depth);
    }
    EXPECT_EQ(std::count_if(full.nodes.begin(), full.nodes.end(), [&](const auto& n) { return n.depth > minKept; }) <=
                  4,
              true);
    o.order = ascviz::NodeOrder::Level;
    const auto level = ascviz::attribute(*m, kText, kPrompt, "python", {}, o);
    ASSERT_EQ(level.nodes.size(), 4u);
    for (const auto& n : level.nodes)
        maxKept = std::max(maxKept, n.depth);
    EXPECT_LT(maxKept, maxAll);
    EXPECT_EQ(std::count_if(full.nodes.begin(), full.nodes.end(), [&](const auto& n) { return n.depth < maxKept; }) <=
                  4,
              true);
    EXPECT_GE(minKept, minAll);
}

TEST(Attribution, GradientTimesInputSumsTheNodesTokens)
{
    const auto m = model();
    ascviz::AttributionOptions o;
    o.method = ascviz::AttributionMethod::GradientTimesInput;
    const auto r = ascviz::attribute(*m, kText, kPrompt, "python", ascviz::parseAttributionTarget("token:15"), o);
    EXPECT_EQ(r.tokenBegin, 15u);
    EXPECT_EQ(r.tokenEnd, 16u);
    const auto enc = m->tokenizer().encode(kText, false);
    const auto g = ascviz::gradientTimesInput(*m, enc.ids, {15, 16});
    double nonzero = 0;
    for (const auto& n : r.nodes) {
        double want = 0;
        for (std::size_t t = 0; t < enc.ids.size(); ++t)
            if (enc.offsets[t].first < n.end && enc.offsets[t].second > n.start && enc.offsets[t].first < kPrompt)
                want += g[t];
        EXPECT_NEAR(n.attribution, want, 1e-9) << n.type;
        nonzero += std::abs(n.attribution);
    }
    EXPECT_GT(nonzero, 0.0);
}

TEST(Attribution, BadInputIsRefusedWithAMessage)
{
    const auto m = model();
    EXPECT_NE(errorOf([&] { ascviz::attribute(*m, kText, 0, "python", {}); }).find("the prompt is empty"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { ascviz::attribute(*m, kText, kText.size(), "python", {}); }).find("completion is empty"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { ascviz::attribute(*m, kText, kText.size() + 5, "python", {}); }).find("beyond the end"),
              std::string::npos);
    // node 1 (function_definition) starts in the prompt
    EXPECT_NE(errorOf([&] {
                  ascviz::attribute(*m, kText, kPrompt, "python", ascviz::parseAttributionTarget("1"));
              }).find("is not inside the completion"),
              std::string::npos);
    EXPECT_NE(errorOf([&] {
                  ascviz::attribute(*m, kText, kPrompt, "python", ascviz::parseAttributionTarget("9999"));
              }).find("does not exist"),
              std::string::npos);
    EXPECT_NE(errorOf([&] {
                  ascviz::attribute(*m, kText, kPrompt, "python", ascviz::parseAttributionTarget("token:2"));
              }).find("is not a token of the completion"),
              std::string::npos);
}

TEST(Reliance, CellsAreMeansOverTargetAndPromptNodePairs)
{
    const auto m = model();
    // 5 lines: the prompt is the first 2 ("def area(w, h):\n    s = w * h\n", 30 bytes).
    ascviz::RelianceOptions o;
    o.attribution.method = ascviz::AttributionMethod::GradientTimesInput;
    o.targetsPerText = 2;
    const auto r = ascviz::relianceMatrix(*m, {{kText, "python"}, {"x", "python"}}, o);
    EXPECT_EQ(r.texts, 1);
    EXPECT_EQ(r.skipped, 1); // one line: no completion
    EXPECT_EQ(r.targets, 2);
    // By hand: the first two categorized nodes starting at or after byte 30, each attributed on its own.
    const auto table = ascviz::CategoryMap::forLanguage("python");
    const auto tree = ascviz::parseForEval("python", kText);
    std::map<std::string, std::map<std::string, std::pair<double, int>>> want;
    int taken = 0;
    for (const auto& n : tree.nodes()) {
        const auto c = table.categoryOf(n.type);
        if (taken == 2 || !c || n.start < 30 || n.end <= n.start)
            continue;
        const auto a = ascviz::attribute(*m, kText, 30, "python", ascviz::parseAttributionTarget(std::to_string(n.id)),
                                         o.attribution, &table);
        for (const auto& p : a.nodes)
            if (p.category) {
                want[*c][*p.category].first += p.attribution;
                ++want[*c][*p.category].second;
            }
        ++taken;
    }
    ASSERT_FALSE(want.empty());
    for (const auto& [x, row] : want)
        for (const auto& [y, sumN] : row) {
            EXPECT_EQ(r.cells.at(x).at(y).n, sumN.second) << x << " <- " << y;
            EXPECT_NEAR(r.cells.at(x).at(y).mean, sumN.first / sumN.second, 1e-9) << x << " <- " << y;
        }
    const auto j = ascviz::relianceJson(r);
    EXPECT_EQ(j.at("method"), "gradxinput");
    EXPECT_EQ(j.at("targets"), 2);
}

} // namespace
