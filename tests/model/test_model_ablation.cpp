// Head ablation (method.md §14.1, ascviz/model/ablation.h) on the fixture checkpoints: the head list and its
// refusals, hand-checkable consequences of zero and mean ablation, and generation under ablation (the KV cache
// path equals recomputing); expert ablation (the router never chooses a blocked expert, the refusals).
// transformers' own ablation is compared in the live tier (test_model_live).
#include "model_test_util.h"

#include "ascviz/base/error.h"
#include "ascviz/model/ablation.h"
#include "ascviz/model/lens.h"
#include "ascviz/model/observer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace modeltest;

namespace {

std::unique_ptr<ascviz::LanguageModel> fixture(const std::string& name)
{
    return ascviz::LanguageModel::load(fixtureModel("tiny-" + name), cpuFloat32());
}

std::vector<ascviz::AttentionHead> everyHead(const ascviz::LanguageModel& m, int heads)
{
    std::vector<ascviz::AttentionHead> out;
    for (int l = 0; l < m.info().layers; ++l)
        for (int h = 0; h < heads; ++h)
            out.push_back({l, h});
    return out;
}

// The fixture's heads per layer: the largest h that checkHeads accepts.
int headCount(const ascviz::LanguageModel& m)
{
    int h = 0;
    while (h < 1024) {
        try {
            ascviz::checkHeads(m, {{0, h}});
        } catch (const ascviz::InputError&) {
            return h;
        }
        ++h;
    }
    return h;
}

TEST(HeadAblation, HeadListAndRefusals)
{
    using H = ascviz::AttentionHead;
    EXPECT_EQ(ascviz::parseHeadList("3.1,0.2,3.1,"), (std::vector<H>{{0, 2}, {3, 1}}));
    EXPECT_EQ(ascviz::toString(H{4, 1}), "4.1");
    for (const char* bad : {"3", "a.1", "3.-1", "3.1.2", " 3.1", ",", ""})
        EXPECT_THROW(ascviz::parseHeadList(bad), ascviz::InputError) << bad;
    EXPECT_EQ(ascviz::parseAblationMode("mean"), ascviz::AblationMode::Mean);
    EXPECT_THROW(ascviz::parseAblationMode("resample"), ascviz::InputError);

    const auto m = fixture("llama");
    const int heads = headCount(*m);
    ASSERT_GT(heads, 1);
    try {
        ascviz::checkHeads(*m, {{m->info().layers, 0}});
        ADD_FAILURE() << "a layer past the last was accepted";
    } catch (const ascviz::InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(std::to_string(m->info().layers) + " layers"), std::string::npos) << what;
        EXPECT_NE(what.find(std::to_string(heads) + " attention heads"), std::string::npos) << what;
        EXPECT_NE(what.find(m->info().name), std::string::npos) << what;
    }
    EXPECT_THROW(ascviz::withAblatedHeads(*m, {{0, heads}}), ascviz::InputError);
    EXPECT_THROW(ascviz::withAblatedHeads(*m, {{0, 0}}, {{1.0}}), ascviz::InputError) << "a mean of the wrong width";
    EXPECT_THROW(ascviz::meanHeadOutputsOfIds(*m, {5}, {{0, 0}}), ascviz::InputError) << "one id predicts nothing";
}

// With every head of every layer zeroed, a rope model without learned positions predicts w_{p+1} from w_p alone
// (attention adds only the output projection's bias): the same id at two positions gives the same prediction.
TEST(HeadAblation, ZeroingEveryHeadLeavesOnlyTheCurrentToken)
{
    const auto m = fixture("llama");
    const std::vector<int32_t> ids = {11, 42, 7, 11, 42, 99, 7};
    const auto ablated = ascviz::withAblatedHeads(*m, everyHead(*m, headCount(*m)));
    const auto clean = m->scoreIds({ids}).front();
    const auto cut = ablated->scoreIds({ids}).front();
    // 42 after 11 at positions 1 and 4; 7 after 99 (position 6) vs 7 after 42 (position 2) differ in w_p
    EXPECT_NEAR(*cut[4], *cut[1], 1e-6);
    EXPECT_GT(std::abs(*clean[4] - *clean[1]), 1e-4) << "the clean model uses the history";
    // ablation reaches the layer lens too: its last layer is the ablated NtP
    const auto lens = ascviz::layerNtpOfIds(*ablated, ids);
    for (std::size_t i = 1; i < ids.size(); ++i)
        EXPECT_NEAR(lens[i].back(), *cut[i], 1e-6) << i;
    // the original model is untouched by its ablated copy
    EXPECT_EQ(m->scoreIds({ids}).front(), clean);
}

// Mean ablation over a two-id sequence: the mean over the positions that predict a token is position 0's own
// output, so nothing changes; over three ids it does.
TEST(HeadAblation, MeanOfOnePositionIsItsOwnOutput)
{
    for (const std::string name : {"gpt2", "llama"}) {
        SCOPED_TRACE(name);
        const auto m = fixture(name);
        const auto heads = everyHead(*m, headCount(*m));
        const std::vector<int32_t> two = {11, 42}, three = {11, 42, 7};
        const auto a2 = ascviz::withAblatedHeads(*m, heads, ascviz::meanHeadOutputsOfIds(*m, two, heads));
        EXPECT_NEAR(*a2->scoreIds({two}).front()[1], *m->scoreIds({two}).front()[1], 1e-6);
        const auto a3 = ascviz::withAblatedHeads(*m, heads, ascviz::meanHeadOutputsOfIds(*m, three, heads));
        EXPECT_GT(std::abs(*a3->scoreIds({three}).front()[2] - *m->scoreIds({three}).front()[2]), 1e-5);
        // the means have headDim values each and differ from zero ablation
        const auto means = ascviz::meanHeadOutputsOfIds(*m, three, {{0, 0}});
        ASSERT_EQ(means.size(), 1u);
        EXPECT_FALSE(means[0].empty());
        const auto zero = ascviz::withAblatedHeads(*m, {{0, 0}});
        const auto mean = ascviz::withAblatedHeads(*m, {{0, 0}}, means);
        EXPECT_NE(zero->scoreIds({three}).front()[2], mean->scoreIds({three}).front()[2]);
    }
}

// Generation under ablation: the KV cache path equals recomputing every step, and scoring its own output agrees
// with the greedy choice (the most likely id at each step).
TEST(HeadAblation, GenerationRunsUnderTheAblation)
{
    for (const std::string name : {"gpt2", "llama", "gpt_neox", "codegen"}) {
        SCOPED_TRACE(name);
        const auto m = fixture(name);
        const auto ablated = ascviz::withAblatedHeads(*m, {{0, 1}, {m->info().layers - 1, 0}});
        const std::vector<int32_t> prompt = {11, 42, 7, 300, 5};
        ascviz::GenerationOptions g;
        g.greedy = true;
        g.stopAtEos = false;
        g.maxNewTokens = 12;
        const auto cached = ablated->generateIds(prompt, g);
        g.useCache = false;
        EXPECT_EQ(ablated->generateIds(prompt, g), cached);
        std::vector<int32_t> all = prompt;
        all.insert(all.end(), cached.begin(), cached.end());
        const auto logits = ablated->logits(all);
        const std::size_t V = logits.size() / all.size();
        for (std::size_t i = prompt.size(); i < all.size(); ++i) {
            const auto row = logits.begin() + static_cast<std::ptrdiff_t>((i - 1) * V);
            EXPECT_EQ(std::max_element(row, row + static_cast<std::ptrdiff_t>(V)) - row, all[i]) << i;
        }
        // the scoring paths (packed and padded) agree under ablation
        const auto one = ablated->scoreIds({all}).front();
        const auto batch = ablated->scoreIds({all, prompt}).front();
        for (std::size_t i = 1; i < all.size(); ++i)
            EXPECT_NEAR(*one[i], *batch[i], 1e-6) << i;
        EXPECT_NE(m->scoreIds({all}).front(), one) << "the ablation changes the prediction";
    }
}

// The router's choices per sparse layer (kExperts: [T, 2, k], ids then weights).
class RouterRecorder : public ascviz::IntermediateObserver {
public:
    std::map<int, std::vector<float>> ids; // layer → the chosen ids, token by token
    int k = 0;
    bool wants(std::string_view name, int) const override { return name == ascviz::intermediate::kExperts; }
    void observe(const ascviz::Intermediate& v) override
    {
        k = static_cast<int>(v.shape[2]);
        auto& out = ids[v.layer];
        for (int64_t t = 0; t < v.shape[0]; ++t)
            for (int64_t j = 0; j < k; ++j)
                out.push_back(v.data[static_cast<std::size_t>(t * 2 * k + j)]);
    }
};

TEST(ExpertAblation, ListAndRefusals)
{
    using X = ascviz::ExpertRef;
    EXPECT_EQ(ascviz::parseExpertList("1.3,0.2,1.3"), (std::vector<X>{{0, 2}, {1, 3}}));
    EXPECT_EQ(ascviz::toString(X{2, 5}), "2.5");
    for (const char* bad : {"3", "a.1", "1.-2", ""})
        EXPECT_THROW(ascviz::parseExpertList(bad), ascviz::InputError) << bad;
    const auto dense = fixture("llama");
    EXPECT_EQ(ascviz::routedExperts(*dense), 0);
    EXPECT_THROW(ascviz::checkExperts(*dense, {{0, 0}}), ascviz::InputError);
    const auto m = fixture("mixtral");
    const int E = ascviz::routedExperts(*m), K = ascviz::expertsPerToken(*m);
    ASSERT_GT(E, K);
    EXPECT_THROW(ascviz::checkExperts(*m, {{0, E}}), ascviz::InputError);
    EXPECT_THROW(ascviz::checkExperts(*m, {{m->info().layers, 0}}), ascviz::InputError);
    std::vector<X> most, tooMany;
    for (int e = 0; e < E - K; ++e)
        most.push_back({0, e});
    EXPECT_NO_THROW(ascviz::checkExperts(*m, most));
    tooMany = most;
    tooMany.push_back({0, E - K});
    try {
        ascviz::checkExperts(*m, tooMany);
        ADD_FAILURE() << "blocking all but K - 1 experts is accepted";
    } catch (const ascviz::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("leaves fewer than"), std::string::npos) << e.what();
    }
}

TEST(ExpertAblation, TheRouterNeverChoosesABlockedExpert)
{
    for (const std::string name : {"mixtral", "qwen2_moe", "qwen3_moe"}) {
        SCOPED_TRACE(name);
        const auto m = fixture(name);
        const std::string text = "def f(x):\n    return x + 1\n";
        RouterRecorder clean;
        ascviz::ScoreOptions o;
        o.topK = 0;
        o.observer = &clean;
        const auto base = m->score(text, o);
        ASSERT_FALSE(clean.ids.empty());
        const int layer = clean.ids.begin()->first;
        const int chosen = static_cast<int>(clean.ids.begin()->second.front()); // token 0's first choice
        const auto ablated = ascviz::withAblatedExperts(*m, {{layer, chosen}});
        RouterRecorder rec;
        o.observer = &rec;
        const auto under = ablated->score(text, o);
        ASSERT_EQ(rec.ids.at(layer).size(), clean.ids.at(layer).size());
        EXPECT_EQ(std::count(rec.ids.at(layer).begin(), rec.ids.at(layer).end(), static_cast<float>(chosen)), 0);
        // the other layers' routing is that of the ablated residual stream; the first token's first choice moved
        EXPECT_NE(rec.ids.at(layer).front(), clean.ids.at(layer).front());
        double moved = 0;
        for (std::size_t i = 1; i < base.tokens.size(); ++i)
            moved = std::max(moved, std::abs(*base.tokens[i].ntp - *under.tokens[i].ntp));
        EXPECT_GT(moved, 1e-7) << "blocking a chosen expert changes the prediction";
        // scoring without an observer (the packed path) applies the same ablation
        const auto plain = ablated->score(text);
        for (std::size_t i = 1; i < base.tokens.size(); ++i)
            EXPECT_NEAR(*plain.tokens[i].ntp, *under.tokens[i].ntp, 1e-6) << i;
        // the original model is untouched
        const auto again = m->score(text);
        for (std::size_t i = 1; i < base.tokens.size(); ++i)
            EXPECT_EQ(*again.tokens[i].ntp, *base.tokens[i].ntp);
    }
}

} // namespace
