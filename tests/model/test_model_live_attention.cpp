// Live conformance of the attention probabilities (method.md §11): the intermediates observer's kAttention of
// every layer equals transformers' output_attentions=True (eager attention) within 1e-5 in float32, every
// head and every row, on every fixture variant make_cases.py writes (GQA/MQA, local and sliding-window layers).
#include "model_test_util.h"

#include "ascviz/model/observer.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace modeltest;

namespace {

// Keeps every layer's attention [heads, T, T] of one scored text.
class AttentionRecorder : public ascviz::IntermediateObserver {
public:
    struct Layer {
        std::vector<int64_t> shape;
        std::vector<float> data;
        int64_t position = 0;
    };
    std::map<int, Layer> layers;
    bool wants(std::string_view name, int) const override { return name == ascviz::intermediate::kAttention; }
    void observe(const ascviz::Intermediate& v) override
    {
        layers[v.layer] = {v.shape, {v.data.begin(), v.data.end()}, v.position};
    }
};

TEST(LiveConformance, AttentionEqualsTransformersEager)
{
    const char* d = std::getenv("ASCVIZ_LIVE_CASES");
    ASSERT_NE(d, nullptr) << "ASCVIZ_LIVE_CASES is not set";
    const std::filesystem::path dir(d);
    const auto manifest = readJson(dir / "manifest.json");
    int compared = 0, rows = 0;
    double worst = 0;
    for (const auto& v : liveVariants(manifest)) {
        if (v.at("expect") != "match")
            continue;
        const std::string name = v.at("name");
        SCOPED_TRACE(name);
        const auto ref = readJson(dir / name / "reference.json");
        const auto m = ascviz::LanguageModel::load(dir / name, liveFloat32());
        const int bos = m->tokenizer().addsBos() ? 1 : 0;
        for (const auto& c : ref.at("cases")) {
            ASSERT_TRUE(c.contains("attentions")) << "make_cases.py wrote no attentions";
            const auto want = c.at("attentions").get<std::vector<std::vector<std::vector<std::vector<double>>>>>();
            const auto ids = c.at("input_ids").get<std::vector<int32_t>>();
            AttentionRecorder rec;
            ascviz::ScoreOptions o;
            o.topK = 0;
            o.observer = &rec;
            const auto scored = m->score(c.at("text").get<std::string>(), o);
            ASSERT_EQ(scored.tokens.size(), ids.size());
            // A hybrid's gated DeltaNet layers have no attention probabilities: [] in the reference, none observed.
            const auto withAttention =
                std::count_if(want.begin(), want.end(), [](const auto& layer) { return !layer.empty(); });
            ASSERT_EQ(static_cast<std::ptrdiff_t>(rec.layers.size()), withAttention) << "layers with attention";
            for (const auto& [layer, got] : rec.layers) {
                const auto& w = want[static_cast<std::size_t>(layer)];
                ASSERT_FALSE(w.empty()) << "layer " << layer << " has no attention in transformers";
                const int64_t H = got.shape[0], T = got.shape[1];
                ASSERT_EQ(got.position, 0);
                ASSERT_EQ(H, static_cast<int64_t>(w.size())) << "heads of layer " << layer;
                ASSERT_EQ(T, static_cast<int64_t>(ids.size()) + bos);
                for (int64_t h = 0; h < H; ++h)
                    for (int64_t q = 0; q < static_cast<int64_t>(ids.size()); ++q) {
                        const auto& row = w[static_cast<std::size_t>(h)][static_cast<std::size_t>(q)];
                        const int64_t gq = q + bos;
                        for (int64_t k = 0; k < T; ++k) {
                            // The reference has no BOS; a model that adds one is compared on the text's keys only
                            // when it has none (the fixtures' tokenizer adds none).
                            const double expect =
                                k - bos >= 0 && k - bos <= q ? row[static_cast<std::size_t>(k - bos)] : 0.0;
                            const double err =
                                std::abs(got.data[static_cast<std::size_t>((h * T + gq) * T + k)] - expect);
                            worst = std::max(worst, err);
                            if (err > 1e-5) {
                                ADD_FAILURE()
                                    << "layer " << layer << " head " << h << " query " << q << " key " << k << ": "
                                    << got.data[static_cast<std::size_t>((h * T + gq) * T + k)] << " vs " << expect;
                                return;
                            }
                        }
                        ++rows;
                    }
            }
        }
        ++compared;
    }
    std::printf("live attention (transformers %s): %d variants, %d rows, max error %.2e\n",
                manifest.at("transformers").get<std::string>().c_str(), compared, rows, worst);
    EXPECT_GE(compared, liveStride() > 1 ? 1 : 30); // every variant, or a sample (ASCVIZ_LIVE_STRIDE)
}

} // namespace
