// Live conformance tier: tiny checkpoints of every architecture and config variant, made at test time by
// transformers (tests/live/make_cases.py, run as the ctest fixture live_make_cases), compared with the
// runtime: NtP within 1e-5 (computed in float32 on the CPU, whatever the checkpoint's dtype) and greedy ids
// identical; variants the runtime does not implement must be refused with a ModelError naming them.
#include "model_test_util.h"

#include "ascviz/base/error.h"
#include "ascviz/model/lens.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace modeltest;

namespace {

std::filesystem::path casesDir()
{
    const char* d = std::getenv("ASCVIZ_LIVE_CASES");
    return d ? std::filesystem::path(d) : std::filesystem::path();
}

TEST(LiveConformance, EveryVariantMatchesOrIsRefused)
{
    const auto dir = casesDir();
    ASSERT_FALSE(dir.empty()) << "ASCVIZ_LIVE_CASES is not set";
    const auto manifest = readJson(dir / "manifest.json");
    const auto& variants = manifest.at("variants");
    ASSERT_GE(variants.size(), 30u) << "make_cases.py wrote too few variants";
    int compared = 0, refused = 0, texts = 0;
    double worstNtp = 0, worstLogit = 0, worstLayer = 0;
    int lensTexts = 0;
    for (const auto& v : variants) {
        const std::string name = v.at("name");
        SCOPED_TRACE(name);
        const auto folder = dir / name;
        if (v.at("expect") == "refuse") {
            const std::string want = v.at("error");
            try {
                ascviz::LanguageModel::load(folder, liveFloat32());
                ADD_FAILURE() << name << " loaded, but the runtime does not implement it (expected: " << want << ")";
            } catch (const ascviz::ModelError& e) {
                EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
                ++refused;
            }
            continue;
        }
        std::unique_ptr<ascviz::LanguageModel> m;
        try {
            m = ascviz::LanguageModel::load(folder, liveFloat32());
        } catch (const std::exception& e) {
            ADD_FAILURE() << name << ": " << e.what();
            continue;
        }
        const auto ref = readJson(folder / "reference.json");
        for (const auto& c : ref.at("cases")) {
            const auto input = ids(c.at("input_ids"));
            const auto want = c.at("ntp").get<std::vector<double>>();
            const auto got = m->scoreIds({input}).front();
            ASSERT_EQ(got.size(), input.size());
            for (std::size_t i = 1; i < input.size(); ++i) {
                ASSERT_TRUE(got[i].has_value());
                const double err = std::abs(*got[i] - want[i - 1]);
                worstNtp = std::max(worstNtp, err);
                EXPECT_LE(err, 1e-5) << "position " << i;
            }
            // The layer lens: every layer's NtP against output_hidden_states through the same norm and head.
            if (c.contains("ntp_layers")) {
                const auto wantLayers = c.at("ntp_layers").get<std::vector<std::vector<double>>>();
                const auto gotLayers = ascviz::layerNtpOfIds(*m, input);
                ASSERT_EQ(wantLayers.size() + 1, gotLayers.size());
                for (std::size_t i = 1; i < gotLayers.size(); ++i) {
                    ASSERT_EQ(gotLayers[i].size(), wantLayers[i - 1].size()) << "position " << i;
                    for (std::size_t l = 0; l < gotLayers[i].size(); ++l) {
                        const double err = std::abs(gotLayers[i][l] - wantLayers[i - 1][l]);
                        worstLayer = std::max(worstLayer, err);
                        EXPECT_LE(err, 1e-4) << "position " << i << " layer " << l;
                    }
                }
                ++lensTexts;
            }
            // Logits: HF's five largest at every position, within 1e-4 (and the same ranking).
            const auto logits = m->logits(input);
            const std::size_t V = logits.size() / input.size();
            const auto topIds = c.at("top5_ids").get<std::vector<std::vector<int32_t>>>();
            const auto topLogits = c.at("top5_logits").get<std::vector<std::vector<double>>>();
            for (std::size_t t = 0; t < input.size(); ++t) {
                for (std::size_t r = 0; r < 5; ++r) {
                    const double got = logits[t * V + static_cast<std::size_t>(topIds[t][r])];
                    worstLogit = std::max(worstLogit, std::abs(got - topLogits[t][r]));
                    EXPECT_NEAR(got, topLogits[t][r], 1e-4) << "position " << t << " rank " << r;
                }
            }
            const auto prompt = ids(c.at("greedy_prompt_ids"));
            const auto greedy = ids(c.at("greedy_ids"));
            ascviz::GenerationOptions g;
            g.greedy = true;
            g.stopAtEos = false;
            g.maxNewTokens = static_cast<int>(greedy.size() - prompt.size());
            const std::vector<int32_t> wantNew(greedy.begin() + static_cast<std::ptrdiff_t>(prompt.size()),
                                               greedy.end());
            EXPECT_EQ(m->generateIds(prompt, g), wantNew) << "greedy ids";
            ++texts;
        }
        ++compared;
    }
    RecordProperty("compared", compared);
    RecordProperty("refused", refused);
    std::printf("live conformance (transformers %s): %d variants compared (%d texts, max NtP error %.2e, max logit "
                "error %.2e), %d refused; layer lens: %d texts, max error %.2e\n",
                manifest.at("transformers").get<std::string>().c_str(), compared, texts, worstNtp, worstLogit, refused,
                lensTexts, worstLayer);
    EXPECT_EQ(compared + refused, static_cast<int>(variants.size()));
}

} // namespace
