// Faithfulness of an attribution and the ablation surrogate (method.md §14.2): AUCs hand-computed on an additive
// log-probability whose best order is known, a Lasso solved by hand on an orthogonal design, the surrogate
// recovering known weights, and attribute --faithfulness on a fixture checkpoint against the model room's primitive.
#include "ascviz/attribution/attribution.h"
#include "ascviz/attribution/faithfulness.h"
#include "ascviz/base/error.h"
#include "testdata.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace {

// log P = −0.5 − Σ w_p over the hidden positions p (each node one position here): hiding a node costs its weight.
ascviz::HiddenLogProbs additive(const std::vector<double>& w, std::size_t* calls = nullptr, std::size_t* sets = nullptr)
{
    return [=](const std::vector<std::vector<std::size_t>>& hidden) {
        if (calls)
            ++*calls;
        if (sets)
            *sets = hidden.size();
        std::vector<double> out;
        for (const auto& h : hidden) {
            double v = -0.5;
            for (const std::size_t p : h)
                v -= w[p];
            out.push_back(v);
        }
        return out;
    };
}

TEST(Faithfulness, CurveAucIsTheTrapezoidMeanOverKOverM)
{
    EXPECT_DOUBLE_EQ(ascviz::curveAuc({0, -1, -3}), (-0.5 - 2.0) / 2); // (1/2)((0−1)/2 + (−1−3)/2)
    EXPECT_DOUBLE_EQ(ascviz::curveAuc({-2}), -2);
    EXPECT_DOUBLE_EQ(ascviz::curveAuc({1, 1, 1, 1}), 1);
    EXPECT_EQ(ascviz::attributionOrder({1, 3, 1, 2}), (std::vector<std::size_t>{1, 3, 0, 2}));
}

TEST(Faithfulness, HandComputedCurvesWhereTheOrderIsKnown)
{
    // Three disjoint nodes of weights 3, 1, 2; the attribution equals the weights: order 0, 2, 1.
    const std::vector<std::vector<std::size_t>> nodes{{0}, {1}, {2}};
    const std::vector<double> w{3, 1, 2};
    std::size_t calls = 0, sets = 0;
    const auto f = ascviz::faithfulness(nodes, w, additive(w, &calls, &sets), 10, 7);
    EXPECT_EQ(calls, 1u) << "every hidden set in one call";
    EXPECT_EQ(sets, f.evaluations);
    EXPECT_EQ(f.evaluations, 8u) << "the 2^3 subsets, each once";
    EXPECT_EQ(f.deletion, (std::vector<double>{-0.5, -3.5, -5.5, -6.5}));
    EXPECT_EQ(f.insertion, (std::vector<double>{-6.5, -3.5, -1.5, -0.5}));
    EXPECT_NEAR(f.deletionAuc, -12.5 / 3, 1e-12); // (1/3)(−2 − 4.5 − 6)
    EXPECT_NEAR(f.insertionAuc, -8.5 / 3, 1e-12); // (1/3)(−5 − 2.5 − 1)
    // The reversed attribution is the worst order: deletion (1/3)(−1 − 2.5 − 5).
    const auto worst = ascviz::faithfulness(nodes, {-3, -1, -2}, additive(w), 0);
    EXPECT_NEAR(worst.deletionAuc, -8.5 / 3, 1e-12);
    EXPECT_NEAR(worst.insertionAuc, -12.5 / 3, 1e-12);
    // Random orders lie between, and for an additive f D(k) + I(k) = 2·(−0.5) − 6 for every order.
    EXPECT_GT(f.randomDeletionAuc, f.deletionAuc);
    EXPECT_LT(f.randomDeletionAuc, worst.deletionAuc);
    EXPECT_LT(f.randomInsertionAuc, f.insertionAuc);
    EXPECT_NEAR(f.randomDeletionAuc + f.randomInsertionAuc, -7.0, 1e-12);
    EXPECT_EQ(f.randomOrders, 10);
}

TEST(Faithfulness, NestedNodesHideTheUnionOfTheirTokens)
{
    // node 0 = positions {0, 1} (a parent), node 1 = {1} (its child), node 2 = {2}; weights per position 1, 4, 2.
    const std::vector<double> w{1, 4, 2};
    const auto f = ascviz::faithfulness({{0, 1}, {1}, {2}}, {1, 3, 2}, additive(w), 0);
    // order 1, 2, 0: hidden {1}, {1,2}, {0,1,2}
    EXPECT_EQ(f.deletion, (std::vector<double>{-0.5, -4.5, -6.5, -7.5}));
    // insertion: hidden {0,1,2}, {0,1,2} (node 0 still hides 1), {0,1}, {}
    EXPECT_EQ(f.insertion, (std::vector<double>{-7.5, -7.5, -5.5, -0.5}));
    EXPECT_THROW(ascviz::faithfulness({{0}}, {1, 2}, additive(w)), ascviz::InputError);
}

TEST(Lasso, HandSolvedOrthogonalDesign)
{
    // y = −1 + 3·x1 + 2·x2 exactly; centred columns are orthogonal with (1/n)Σx² = 1/4, ρ1 = 0.75, ρ2 = 0.5, so
    // β_j = S(ρ_j, λ) / 0.25 and β_0 = ȳ − x̄·β = 1.5 − 0.5(β1 + β2).
    const std::vector<std::vector<double>> x{{1, 1}, {1, 0}, {0, 1}, {0, 0}};
    const std::vector<double> y{4, 2, 1, -1};
    EXPECT_NEAR(ascviz::lassoLambdaMax(x, y), 0.75, 1e-12);
    const auto ols = ascviz::lasso(x, y, 0);
    EXPECT_NEAR(ols.coef[0], 3, 1e-9);
    EXPECT_NEAR(ols.coef[1], 2, 1e-9);
    EXPECT_NEAR(ols.intercept, -1, 1e-9);
    EXPECT_NEAR(ascviz::rSquared(ols, x, y), 1, 1e-12);
    const auto mid = ascviz::lasso(x, y, 0.25);
    EXPECT_NEAR(mid.coef[0], 2, 1e-9);
    EXPECT_NEAR(mid.coef[1], 1, 1e-9);
    EXPECT_NEAR(mid.intercept, 0, 1e-9);
    const auto sparse = ascviz::lasso(x, y, 0.6);
    EXPECT_NEAR(sparse.coef[0], 0.6, 1e-9);
    EXPECT_EQ(sparse.coef[1], 0.0);
    EXPECT_NEAR(sparse.intercept, 1.2, 1e-9);
    const auto none = ascviz::lasso(x, y, 0.75);
    EXPECT_EQ(none.coef, (std::vector<double>{0, 0}));
    EXPECT_NEAR(none.intercept, 1.5, 1e-12);
    EXPECT_THROW(ascviz::lasso(x, {1, 2}, 0.1), ascviz::InputError);
}

TEST(Surrogate, RecoversTheWeightsOfAnAdditiveLogProb)
{
    const std::vector<double> w{3, 0, 1, 0.5, 2, 0};
    std::vector<std::vector<std::size_t>> nodes;
    for (std::size_t j = 0; j < w.size(); ++j)
        nodes.push_back({j});
    std::size_t sets = 0;
    const auto s = ascviz::surrogateAttribution(nodes, additive(w, nullptr, &sets), 63, 11);
    EXPECT_EQ(sets, 63u);
    EXPECT_EQ(s.masks, 63u);
    EXPECT_EQ(s.trainMasks, 48u);
    EXPECT_GT(s.heldOutR2, 0.99);
    for (std::size_t j = 0; j < w.size(); ++j)
        EXPECT_NEAR(s.attribution[j], w[j], 0.05) << j; // kept nodes raise log P by their weight
    EXPECT_EQ(ascviz::attributionOrder(s.attribution).front(), 0u);
    EXPECT_THROW(ascviz::surrogateAttribution(nodes, additive(w), 3), ascviz::InputError);
}

// On a fixture checkpoint: the curves are the model room's log P with the order's prefixes hidden.
const std::string kText = "def area(w, h):\n    s = w * h\n    return s\n\nprint(area(2, 3))\n";
const std::size_t kPrompt = 32;

std::unique_ptr<ascviz::LanguageModel> model()
{
    ascviz::LoadOptions o;
    o.device = ascviz::Device::Cpu;
    o.dtype = ascviz::Dtype::Float32;
    o.threads = 2;
    return ascviz::LanguageModel::load(ascviz::testdata::fixtureModel("tiny-gpt2"), o);
}

TEST(Faithfulness, AttributeCurvesAreTheModelsLogProbsInAttributionOrder)
{
    const auto m = model();
    ascviz::AttributionOptions o;
    o.budget = 6;
    o.faithfulness = true;
    const auto r = ascviz::attribute(*m, kText, kPrompt, "python", {}, o);
    ASSERT_TRUE(r.faithfulness);
    ASSERT_EQ(r.nodes.size(), 6u);
    EXPECT_EQ(r.faithfulnessNodes, 6u);
    const auto& f = *r.faithfulness;
    ASSERT_EQ(f.deletion.size(), 7u);
    EXPECT_NEAR(f.deletion.front(), r.targetLogProb, 1e-6);
    EXPECT_NEAR(f.insertion.back(), r.targetLogProb, 1e-6);
    EXPECT_NEAR(f.deletion.back(), f.insertion.front(), 1e-9);
    // By hand: the prompt tokens of each node (nodes are by id; the order is by attribution, largest first).
    const auto enc = m->tokenizer().encode(kText, false);
    std::vector<std::size_t> order(r.nodes.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r.nodes[a].attribution > r.nodes[b].attribution; });
    std::vector<std::vector<std::size_t>> hidden{{}};
    std::set<std::size_t> acc;
    for (const std::size_t i : order) {
        for (std::size_t t = 0; t < enc.ids.size(); ++t)
            if (enc.offsets[t].first < r.nodes[i].end && enc.offsets[t].second > r.nodes[i].start &&
                enc.offsets[t].first < kPrompt)
                acc.insert(t);
        hidden.emplace_back(acc.begin(), acc.end());
    }
    const auto lp = ascviz::maskedTargetLogProbs(*m, enc.ids, {r.tokenBegin, r.tokenEnd}, hidden);
    for (std::size_t k = 0; k < lp.size(); ++k)
        EXPECT_NEAR(f.deletion[k], lp[k], 1e-4) << k;
    EXPECT_NEAR(f.deletionAuc, ascviz::curveAuc(lp), 1e-4);
    const auto j = ascviz::attributionJson(r);
    for (const char* key : {"deletion_auc", "insertion_auc", "random_deletion_auc", "random_insertion_auc"})
        EXPECT_TRUE(j.at("faithfulness").at(key).is_number()) << key;
}

TEST(Surrogate, AttributeRunsTheMasksInOneBatchedCall)
{
    const auto m = model();
    ascviz::AttributionOptions o;
    o.method = ascviz::AttributionMethod::Surrogate;
    o.budget = 8;
    o.surrogateMasks = 16;
    const auto r = ascviz::attribute(*m, kText, kPrompt, "python", {}, o);
    ASSERT_TRUE(r.surrogate);
    EXPECT_EQ(r.nodes.size(), 8u);
    EXPECT_EQ(r.forwardPasses, 17u);
    EXPECT_EQ(r.surrogate->trainMasks, 12u);
    EXPECT_LE(r.surrogate->heldOutR2, 1.0);
    const auto enc = m->tokenizer().encode(kText, false);
    const auto clean = ascviz::maskedTargetLogProbs(*m, enc.ids, {r.tokenBegin, r.tokenEnd}, {{}});
    EXPECT_NEAR(r.targetLogProb, clean[0], 1e-4);
    EXPECT_EQ(ascviz::attributionJson(r).at("method"), "surrogate");
    EXPECT_EQ(ascviz::parseAttributionMethod("surrogate"), ascviz::AttributionMethod::Surrogate);
}

} // namespace
