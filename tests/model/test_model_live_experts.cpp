// Live conformance of the mixture-of-experts routing (issue 42): the intermediates observer's kExperts of every
// sparse layer equals transformers' router output (a forward hook on each *TopKRouter / *TopkRouter, make_cases.py's
// "experts") on every token: the same expert ids in the same order, and their routing weights within 1e-5 in
// float32. Dense models deliver no kExperts at all.
#include "model_test_util.h"

#include "ascviz/model/ablation.h"
#include "ascviz/model/observer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

using namespace modeltest;

namespace {

class ExpertsRecorder : public ascviz::IntermediateObserver {
public:
    struct Layer {
        std::vector<int64_t> shape; // [T, 2, k]
        std::vector<float> data;
    };
    std::map<int, Layer> layers;
    bool wants(std::string_view name, int) const override { return name == ascviz::intermediate::kExperts; }
    void observe(const ascviz::Intermediate& v) override
    {
        layers[v.layer] = {v.shape, {v.data.begin(), v.data.end()}};
    }
};

TEST(LiveConformance, ExpertsEqualTransformersRouter)
{
    const char* d = std::getenv("ASCVIZ_LIVE_CASES");
    ASSERT_NE(d, nullptr) << "ASCVIZ_LIVE_CASES is not set";
    const std::filesystem::path dir(d);
    const auto manifest = readJson(dir / "manifest.json");
    int moeVariants = 0, denseVariants = 0, tokens = 0, ablationTexts = 0;
    std::set<std::string> moeFamilies;
    double worst = 0, worstAblation = 0;
    for (const auto& v : liveVariants(manifest)) {
        if (v.at("expect") != "match")
            continue;
        const std::string name = v.at("name");
        SCOPED_TRACE(name);
        const auto ref = readJson(dir / name / "reference.json");
        const auto m = ascviz::LanguageModel::load(dir / name, liveFloat32());
        bool moe = false;
        for (const auto& c : ref.at("cases")) {
            ASSERT_TRUE(c.contains("experts")) << "make_cases.py wrote no experts";
            const auto& want = c.at("experts");
            const auto ids = c.at("input_ids").get<std::vector<int32_t>>();
            ExpertsRecorder rec;
            ascviz::ScoreOptions o;
            o.topK = 0;
            o.observer = &rec;
            const auto scored = m->score(c.at("text").get<std::string>(), o);
            ASSERT_EQ(scored.tokens.size(), ids.size());
            ASSERT_EQ(rec.layers.size(), want.size()) << "mixture-of-experts layers";
            moe = !want.empty();
            for (const auto& w : want) {
                const int layer = w.at("layer").get<int>();
                ASSERT_TRUE(rec.layers.count(layer)) << "no experts for layer " << layer;
                const auto& got = rec.layers.at(layer);
                const auto wantIds = w.at("ids").get<std::vector<std::vector<int64_t>>>();
                const auto wantProbs = w.at("probs").get<std::vector<std::vector<double>>>();
                ASSERT_EQ(got.shape.size(), 3u);
                const int64_t T = got.shape[0], K = got.shape[2];
                ASSERT_EQ(T, static_cast<int64_t>(ids.size())); // the fixtures' tokenizer adds no BOS
                ASSERT_EQ(got.shape[1], 2);
                ASSERT_EQ(static_cast<std::size_t>(T), wantIds.size());
                for (int64_t t = 0; t < T; ++t) {
                    ASSERT_EQ(static_cast<int64_t>(wantIds[static_cast<std::size_t>(t)].size()), K);
                    for (int64_t k = 0; k < K; ++k) {
                        const float gotId = got.data[static_cast<std::size_t>((t * 2) * K + k)];
                        const double gotP = got.data[static_cast<std::size_t>((t * 2 + 1) * K + k)];
                        const auto st = static_cast<std::size_t>(t), sk = static_cast<std::size_t>(k);
                        ASSERT_EQ(static_cast<int64_t>(gotId), wantIds[st][sk])
                            << "layer " << layer << " token " << t << " choice " << k;
                        const double err = std::abs(gotP - wantProbs[st][sk]);
                        worst = std::max(worst, err);
                        EXPECT_LE(err, 1e-5) << "layer " << layer << " token " << t << " choice " << k;
                    }
                    ++tokens;
                }
            }
        }
        // Expert ablation (method.md §14.1): the router's choice of the case's experts masked equals transformers
        // with those router logits set to −∞ (make_cases.py's expert_ablated_ntp).
        for (const auto& c : ref.at("cases")) {
            if (!c.at("ablation").contains("experts"))
                continue;
            std::vector<ascviz::ExpertRef> blocked;
            for (const auto& e : c.at("ablation").at("experts"))
                blocked.push_back({e.at(0).get<int>(), e.at(1).get<int>()});
            const auto ablated = ascviz::withAblatedExperts(*m, blocked);
            const auto want = c.at("ablation").at("experts_ntp").get<std::vector<double>>();
            const auto clean = c.at("ntp").get<std::vector<double>>();
            const auto got = ablated->score(c.at("text").get<std::string>());
            ASSERT_EQ(got.tokens.size(), want.size() + 1);
            double moved = 0, textErr = 0;
            for (std::size_t i = 0; i < want.size(); ++i) {
                ASSERT_TRUE(got.tokens[i + 1].ntp);
                const double err = std::abs(*got.tokens[i + 1].ntp - want[i]);
                worstAblation = std::max(worstAblation, err);
                textErr = std::max(textErr, err);
                EXPECT_LE(err, 1e-5) << "expert ablation, position " << i;
                moved = std::max(moved, std::abs(want[i] - clean[i]));
            }
            EXPECT_GT(moved, 1e-6) << "the expert ablation changes transformers' NtP";
            // the tiny checkpoints' NtP are near 1/vocab, so the ablation moves them little: the error must be
            // small against that movement, not only below 1e-5
            EXPECT_LT(textErr, 0.05 * moved) << "the comparison tells the ablated model from the clean one";
            ++ablationTexts;
        }
        ++(moe ? moeVariants : denseVariants);
        if (moe)
            moeFamilies.insert(v.at("model_type").get<std::string>());
    }
    std::printf("live experts (transformers %s): %d mixture-of-experts variants, %d token-layers, max weight error "
                "%.2e; %d dense variants deliver none; expert ablation: %d texts, max NtP error %.2e\n",
                manifest.at("transformers").get<std::string>().c_str(), moeVariants, tokens, worst, denseVariants,
                ablationTexts, worstAblation);
    if (liveStride() > 1) { // a sample (ASCVIZ_LIVE_STRIDE): some mixture-of-experts variant among it
        EXPECT_GT(moeVariants, 0);
        return;
    }
    EXPECT_GE(ablationTexts, 9); // mixtral, qwen2_moe, qwen3_moe (make_cases.py: the reference's router hook)
    // mixtral, qwen2_moe, qwen3_moe: 9; deepseek_v2: 3, deepseek_v3: 4; mellum 4, gpt_oss 5; olmoe 4, granitemoe 3,
    // granitemoeshared 2, hunyuan_v1_moe 2; flex_olmo 2 (its expert ablation 4 texts), ernie4_5_moe 3, glm4_moe 3,
    // dots1 2, minimax_m2 3, phimoe 3; lfm2_moe 2, granitemoehybrid 3, nemotron_h 3
    EXPECT_GE(moeVariants, 60);
    // gpt_oss and granitemoe route by the top k of the logits, then a softmax over them; the others softmax first.
    for (const char* family : {"mixtral",        "qwen2_moe",   "qwen3_moe",    "mellum",           "gpt_oss",
                               "deepseek_v2",    "deepseek_v3", "olmoe",        "granitemoe",       "granitemoeshared",
                               "hunyuan_v1_moe", "flex_olmo",   "ernie4_5_moe", "glm4_moe",         "dots1",
                               "minimax_m2",     "phimoe",      "lfm2_moe",     "granitemoehybrid", "nemotron_h"})
        EXPECT_EQ(moeFamilies.count(family), 1u) << family << ": no routing compared";
}

} // namespace
