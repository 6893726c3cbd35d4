// Live conformance tier: tiny checkpoints of every architecture and config variant, made at test time by
// transformers (tests/live/make_cases.py, run as the ctest fixture live_make_cases), compared with the
// runtime: NtP within 1e-5 (computed in float32 on the CPU, whatever the checkpoint's dtype) and greedy ids
// identical; variants the runtime does not implement must be refused with a ModelError naming them.
#include "model_test_util.h"

#include "ascviz/base/error.h"
#include "ascviz/model/ablation.h"
#include "ascviz/model/lens.h"

#include <gtest/gtest.h>

#include <algorithm>
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
    int lensTexts = 0, commitCompared = 0, nearTies = 0, ablationTexts = 0;
    double worstAblation = 0, worstUncertainty = 0, worstMasked = 0;
    int maskedTexts = 0;
    int uncertaintyTexts = 0, ranksCompared = 0;
    const auto chosen = liveVariants(manifest);
    for (const auto& v : chosen) {
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
            // The uncertainty of the same pass (method.md §17) against its recomputation from transformers' logits:
            // the entropies, p1 and the margin within 1e-5 (+ 1e-5 relative), the rank equal (unless the actual token's
            // logit is within 1e-4 of another's). Scored as text, compared where the text encodes to the case's ids.
            if (c.contains("uncertainty")) {
                const auto& u = c.at("uncertainty");
                const auto scored = m->score(c.at("text").get<std::string>());
                std::vector<int32_t> scoredIds;
                for (const auto& t : scored.tokens)
                    scoredIds.push_back(t.id);
                if (scoredIds == input) {
                    ASSERT_FALSE(scored.tokens[0].uncertainty.has_value());
                    for (std::size_t i = 1; i < input.size(); ++i) {
                        const auto& got = scored.tokens[i].uncertainty;
                        ASSERT_TRUE(got.has_value()) << "position " << i;
                        for (const auto& [key, value] :
                             {std::pair{"entropy", got->entropy}, std::pair{"topk_entropy", got->topkEntropy},
                              std::pair{"p1", got->p1}, std::pair{"margin", got->margin}}) {
                            // 1e-5 absolute plus 1e-5 relative (numpy.isclose's rtol): the entropies sum over the
                            // distribution, and float32 logits that differ by up to ~4e-5 (the hybrids' chunked delta
                            // rule) move a top-10 entropy of ~2.3 nats by ~1.2e-5 with the same top 10.
                            const double want = u.at(key).at(i - 1).get<double>();
                            const double err = std::abs(value - want);
                            worstUncertainty = std::max(worstUncertainty, err);
                            EXPECT_LE(err, 1e-5 + 1e-5 * std::abs(want)) << key << ", position " << i;
                        }
                        if (u.at("rank_gap").at(i - 1).get<double>() > 1e-4) {
                            EXPECT_EQ(got->rank, u.at("rank").at(i - 1).get<int64_t>()) << "position " << i;
                            ++ranksCompared;
                        }
                    }
                    ++uncertaintyTexts;
                }
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
            // The commitment layer (method.md §14.3) recomputed from transformers' per-layer top-1 ids. A position
            // where some layer's two best logits are within 1e-4 (a near-tie that float rounding may flip) is
            // counted apart, not compared.
            if (c.contains("top1_layers")) {
                const auto wantTop1 = c.at("top1_layers").get<std::vector<std::vector<int32_t>>>();
                const auto gaps = c.at("top1_gaps").get<std::vector<std::vector<double>>>();
                const auto got = ascviz::layerLensOfIds(*m, input);
                ASSERT_EQ(wantTop1.size() + 1, got.top1.size());
                for (std::size_t i = 1; i < got.top1.size(); ++i) {
                    if (*std::min_element(gaps[i - 1].begin(), gaps[i - 1].end()) < 1e-4) {
                        ++nearTies;
                        continue;
                    }
                    EXPECT_EQ(got.top1[i], wantTop1[i - 1]) << "position " << i;
                    EXPECT_EQ(ascviz::commitLayer(got.top1[i]), ascviz::commitLayer(wantTop1[i - 1]))
                        << "position " << i;
                    ++commitCompared;
                }
            }
            // Head ablation (method.md §14.1): transformers with a forward pre-hook on the output projection that
            // zeroes the heads' slices, or replaces them by their mean over the positions predicting a token.
            if (c.contains("ablation")) {
                const auto& a = c.at("ablation");
                std::vector<ascviz::AttentionHead> heads;
                for (const auto& h : a.at("heads"))
                    heads.push_back({h.at(0).get<int>(), h.at(1).get<int>()});
                std::sort(heads.begin(), heads.end());
                const auto zero = ascviz::withAblatedHeads(*m, heads);
                const auto mean = ascviz::withAblatedHeads(*m, heads, ascviz::meanHeadOutputsOfIds(*m, input, heads));
                for (const auto& [mode, model] : {std::pair{"zero", zero.get()}, std::pair{"mean", mean.get()}}) {
                    const auto wantAblated = a.at(mode).get<std::vector<double>>();
                    const auto gotAblated = model->scoreIds({input}).front();
                    double moved = 0;
                    for (std::size_t i = 1; i < input.size(); ++i) {
                        const double err = std::abs(*gotAblated[i] - wantAblated[i - 1]);
                        worstAblation = std::max(worstAblation, err);
                        moved = std::max(moved, std::abs(wantAblated[i - 1] - want[i - 1]));
                        EXPECT_LE(err, 1e-5) << mode << " ablation, position " << i;
                    }
                    EXPECT_GT(moved, 1e-6) << mode << " ablation changes transformers' NtP";
                }
                ++ablationTexts;
            }
            // Positions masked inside the text (occlusion's masked copies): the target's log-probability equals
            // transformers' with those positions' attention_mask 0 (hidden keys; a recurrent layer's inputs zeroed).
            if (c.contains("masked")) {
                const auto& mk = c.at("masked");
                const ascviz::TargetTokens target{mk.at("begin").get<std::size_t>(), mk.at("end").get<std::size_t>()};
                const auto got = ascviz::maskedTargetLogProbs(*m, input, target,
                                                              {mk.at("positions").get<std::vector<std::size_t>>(), {}});
                ASSERT_EQ(got.size(), 2u);
                const double want = mk.at("logprob").get<double>(), clean = mk.at("clean").get<double>();
                EXPECT_NEAR(got[0], want, 1e-4) << "masked log-probability";
                EXPECT_NEAR(got[1], clean, 1e-4) << "unmasked log-probability";
                EXPECT_GT(std::abs(want - clean), 1e-3) << "the mask changes transformers' log-probability";
                worstMasked = std::max(worstMasked, std::abs(got[0] - want));
                ++maskedTexts;
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
                "error %.2e), %d refused; layer lens: %d texts, max error %.2e; commitment layer: %d positions equal, "
                "%d near-ties not compared; head ablation: %d texts, max NtP error %.2e; uncertainty: %d texts, max "
                "error %.2e, %d ranks equal\n",
                manifest.at("transformers").get<std::string>().c_str(), compared, texts, worstNtp, worstLogit, refused,
                lensTexts, worstLayer, commitCompared, nearTies, ablationTexts, worstAblation, uncertaintyTexts,
                worstUncertainty, ranksCompared);
    std::printf("masked positions: %d texts, max log-probability error %.2e\n", maskedTexts, worstMasked);
    EXPECT_GT(uncertaintyTexts, 0) << "no text encoded to its case's ids";
    EXPECT_EQ(compared + refused, static_cast<int>(chosen.size()));
}

} // namespace
