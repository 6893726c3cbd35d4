// The layer lens and the attribution primitives (ascviz/model/lens.h) on the fixture checkpoints: the last
// layer equals NtP bit for bit, occlusion with nothing masked equals scoring, a hand-computable occlusion (a
// rope model whose every earlier key is hidden predicts as from the last token alone), gradient × input
// against central finite differences, and the refusals.
#include "model_test_util.h"

#include "ascviz/base/error.h"
#include "ascviz/model/lens.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

using namespace modeltest;

namespace {

const std::string kText = "def count(xs, c):\n    n = 0\n    for x in xs:\n        if x == c:\n            n += 1\n"
                          "    return n\n";

std::unique_ptr<ascviz::LanguageModel> fixture(const std::string& name)
{
    return ascviz::LanguageModel::load(fixtureModel("tiny-" + name), cpuFloat32());
}

std::vector<int32_t> encode(const ascviz::LanguageModel& m, const std::string& text)
{
    return m.tokenizer().encode(text, false).ids;
}

TEST(LayerLens, LastLayerIsTheNtpAndEveryLayerAProbability)
{
    for (const std::string name : {"gpt2", "llama", "gpt_neox", "codegen"}) {
        SCOPED_TRACE(name);
        const auto m = fixture(name);
        ascviz::LayerLensOptions o;
        o.topK = 3;
        const auto lens = ascviz::scoreLayers(*m, kText, o);
        ASSERT_EQ(lens.layers, m->info().layers);
        ASSERT_EQ(lens.ntp.size(), lens.scored.tokens.size());
        const auto plain = m->score(kText);
        ASSERT_EQ(plain.tokens.size(), lens.scored.tokens.size());
        int scored = 0;
        for (std::size_t i = 0; i < lens.ntp.size(); ++i) {
            const auto& t = lens.scored.tokens[i];
            ASSERT_EQ(t.ntp.has_value(), !lens.ntp[i].empty()) << i;
            ASSERT_EQ(plain.tokens[i].ntp.has_value(), t.ntp.has_value()) << i;
            if (!t.ntp)
                continue;
            ++scored;
            ASSERT_EQ(lens.ntp[i].size(), static_cast<std::size_t>(lens.layers) + 1);
            EXPECT_EQ(lens.ntp[i].back(), *t.ntp) << "token " << i << ": layer L is NtP exactly";
            EXPECT_NEAR(*t.ntp, *plain.tokens[i].ntp, 1e-5) << "token " << i;
            for (const double p : lens.ntp[i]) {
                EXPECT_GT(p, 0.0);
                EXPECT_LE(p, 1.0);
            }
            ASSERT_EQ(lens.top[i].size(), lens.ntp[i].size());
            for (std::size_t l = 0; l < lens.top[i].size(); ++l) {
                ASSERT_EQ(lens.top[i][l].size(), 3u);
                // the target's probability never beats the layer's most likely token
                EXPECT_LE(lens.ntp[i][l], lens.top[i][l][0].prob + 1e-9);
            }
        }
        EXPECT_GT(scored, 20);
        // The id-level lens agrees with the text-level one.
        std::vector<int32_t> ids = encode(*m, kText);
        if (m->tokenizer().addsBos())
            ids.insert(ids.begin(), *m->tokenizer().bosId());
        const auto byIds = ascviz::layerNtpOfIds(*m, ids);
        const std::size_t prefix = m->tokenizer().addsBos() ? 1 : 0;
        for (std::size_t i = 1; i < lens.ntp.size(); ++i)
            EXPECT_EQ(byIds[i + prefix], lens.ntp[i]);
    }
}

// A text longer than the context (128 ids) goes through the lens as scoring windows it: windows of 128 ids
// starting every 64, each position from the first window that predicts it; layer L is the lens's NtP exactly and
// scoring's within float rounding.
TEST(LayerLens, LongTextIsWindowedAsScoring)
{
    for (const std::string name : {"gpt2", "llama"}) {
        SCOPED_TRACE(name);
        const auto m = fixture(name);
        std::string text;
        while (encode(*m, text).size() < 300)
            text += kText;
        std::vector<int32_t> ids = encode(*m, text);
        const std::size_t prefix = m->tokenizer().addsBos() ? 1 : 0;
        if (prefix)
            ids.insert(ids.begin(), *m->tokenizer().bosId());
        ASSERT_GT(ids.size(), 256u); // at least 4 windows: [0,128) [64,192) [128,256) [192,…)
        const auto lens = ascviz::scoreLayers(*m, text);
        const auto plain = m->score(text);
        ASSERT_EQ(lens.scored.tokens.size(), plain.tokens.size());
        for (std::size_t i = 0; i < lens.ntp.size(); ++i) {
            const auto& t = lens.scored.tokens[i];
            ASSERT_EQ(t.ntp.has_value(), plain.tokens[i].ntp.has_value()) << i;
            if (!t.ntp)
                continue;
            ASSERT_EQ(lens.ntp[i].size(), static_cast<std::size_t>(lens.layers) + 1) << i;
            EXPECT_EQ(lens.ntp[i].back(), *t.ntp) << "token " << i << ": layer L is NtP exactly";
            EXPECT_NEAR(*t.ntp, *plain.tokens[i].ntp, 1e-5) << "token " << i;
        }
        // By hand: position p of window [s, s + 128) is position p - s of the lens of those ids alone (within
        // float rounding: the windowed lens applies the head to the window's new positions only).
        const auto byIds = ascviz::layerNtpOfIds(*m, ids);
        auto window = [&](std::size_t s) {
            return ascviz::layerNtpOfIds(*m, std::vector<int32_t>(ids.begin() + static_cast<std::ptrdiff_t>(s),
                                                                  ids.begin() + static_cast<std::ptrdiff_t>(s + 128)));
        };
        auto maxDiff = [](const std::vector<double>& a, const std::vector<double>& b) { // relative, over layers
            double d = a.size() == b.size() ? 0.0 : 1.0;
            for (std::size_t l = 0; l < a.size() && l < b.size(); ++l)
                d = std::max(d, std::abs(a[l] - b[l]) / std::max(std::abs(a[l]), std::abs(b[l])));
            return d;
        };
        const auto w0 = window(0), w1 = window(64), w2 = window(128);
        for (const std::size_t p : {1u, 100u, 127u})
            EXPECT_EQ(byIds[p], w0[p]) << "position " << p << " from window 0 (the whole window, as unwindowed)";
        for (const std::size_t p : {128u, 150u, 191u})
            EXPECT_LT(maxDiff(byIds[p], w1[p - 64]), 1e-5) << "position " << p << " from window 1";
        EXPECT_LT(maxDiff(byIds[192], w2[192 - 128]), 1e-5) << "position 192 from window 2";
        EXPECT_GT(maxDiff(byIds[150], w0[127]), 1e-2) << "another position";
        EXPECT_GT(maxDiff(w0[100], window(1)[99]), 1e-3) << "the history a window holds changes the lens";
        for (std::size_t i = 1; i < lens.ntp.size(); ++i)
            ASSERT_EQ(byIds[i + prefix], lens.ntp[i]) << "token " << i;
    }
}

// method.md §14.3: the lens's top-1 per layer is its top-k's first id, the last layer's is the model's own top-1, and
// the commitment layer is the first from which the top-1 stays the final one; the id-level lens agrees.
TEST(LayerLens, TopOnePerLayerAndTheCommitmentLayer)
{
    for (const std::string name : {"gpt2", "llama"}) {
        SCOPED_TRACE(name);
        const auto m = fixture(name);
        ascviz::LayerLensOptions o;
        o.topK = 1;
        o.finalTopK = 1;
        const auto lens = ascviz::scoreLayers(*m, kText, o);
        ASSERT_EQ(lens.top1.size(), lens.scored.tokens.size());
        ASSERT_EQ(lens.commit.size(), lens.scored.tokens.size());
        const auto L = static_cast<std::size_t>(lens.layers);
        std::vector<int> histogram(L + 1, 0);
        for (std::size_t i = 0; i < lens.top1.size(); ++i) {
            if (lens.ntp[i].empty()) {
                EXPECT_TRUE(lens.top1[i].empty());
                EXPECT_FALSE(lens.commit[i].has_value()) << "no prediction, no commitment";
                continue;
            }
            ASSERT_EQ(lens.top1[i].size(), L + 1);
            for (std::size_t l = 0; l <= L; ++l)
                EXPECT_EQ(lens.top1[i][l], lens.top[i][l][0].id) << "token " << i << " layer " << l;
            EXPECT_EQ(lens.top1[i][L], lens.scored.tokens[i].top[0].id) << "the final top-1 is the model's";
            ASSERT_TRUE(lens.commit[i].has_value());
            const auto c = static_cast<std::size_t>(*lens.commit[i]);
            ASSERT_LE(c, L);
            for (std::size_t l = c; l <= L; ++l)
                EXPECT_EQ(lens.top1[i][l], lens.top1[i][L]) << "token " << i << " layer " << l;
            if (c > 0) {
                EXPECT_NE(lens.top1[i][c - 1], lens.top1[i][L]) << "token " << i;
            }
            ++histogram[c];
        }
        int early = 0;
        for (std::size_t l = 0; l < L; ++l)
            early += histogram[l];
        EXPECT_GT(early, 0) << "some token commits before the last layer";
        std::vector<int32_t> ids = encode(*m, kText);
        if (m->tokenizer().addsBos())
            ids.insert(ids.begin(), *m->tokenizer().bosId());
        const auto byIds = ascviz::layerLensOfIds(*m, ids);
        const std::size_t prefix = m->tokenizer().addsBos() ? 1 : 0;
        for (std::size_t i = 1; i < lens.top1.size(); ++i)
            EXPECT_EQ(byIds.top1[i + prefix], lens.top1[i]);
    }
}

TEST(LayerLens, EmbeddingLayerIsTheHeadOfTheNormedEmbeddings)
{
    // Layer 0 of a tied gpt2 with one block can be recomputed by hand only through the weights; what is checked
    // here is that it differs from the last layer (the blocks do something) yet stays a distribution.
    const auto m = fixture("gpt2");
    const auto lens = ascviz::scoreLayers(*m, kText);
    double diff = 0;
    for (const auto& row : lens.ntp)
        if (!row.empty())
            diff += std::abs(row.front() - row.back());
    EXPECT_GT(diff, 1e-3);
}

TEST(Occlusion, NothingMaskedIsScoring)
{
    const auto m = fixture("gpt2");
    const auto ids = encode(*m, kText);
    const ascviz::TargetTokens target{10, 14};
    const auto ntp = m->scoreIds({ids}).front();
    double want = 0;
    for (std::size_t p = target.begin; p < target.end; ++p)
        want += std::log(*ntp[p]);
    const auto got = ascviz::maskedTargetLogProbs(*m, ids, target, {{}, {}, {3}});
    ASSERT_EQ(got.size(), 3u);
    EXPECT_NEAR(got[0], want, 1e-4);
    EXPECT_EQ(got[0], got[1]);
    EXPECT_NE(got[2], got[0]) << "masking a context token changes the target's probability";
}

TEST(Occlusion, EveryEarlierKeyHiddenPredictsFromTheLastTokenAlone)
{
    // llama has no learned positions and rotary q·k: a query that sees only its own key gives it weight 1
    // whatever its position, so its block outputs are those of the same token alone at position 0. Hiding every
    // key before position b-1 therefore makes p(id_b) equal the NtP of the two-token text [id_{b-1}, id_b].
    const auto m = fixture("llama");
    const auto ids = encode(*m, kText);
    for (const std::size_t b : {5u, 12u, 20u}) {
        std::vector<std::size_t> mask(b - 1);
        std::iota(mask.begin(), mask.end(), 0);
        const auto got = ascviz::maskedTargetLogProbs(*m, ids, {b, b + 1}, {mask}, {});
        const auto alone = m->scoreIds({{ids[b - 1], ids[b]}}).front();
        EXPECT_NEAR(got[0], std::log(*alone[1]), 1e-5) << "target position " << b;
    }
}

TEST(Occlusion, BatchedEqualsOneByOne)
{
    const auto m = fixture("gpt_neo");
    const auto ids = encode(*m, kText);
    const std::vector<std::vector<std::size_t>> masks = {{0, 1}, {4}, {2, 3, 7}, {8, 9}, {1}};
    ascviz::MaskedRunOptions one;
    one.batch = 1;
    ascviz::MaskedRunOptions all;
    all.batch = 8;
    std::size_t calls = 0;
    all.progress = [&](std::size_t done, std::size_t total) {
        ++calls;
        EXPECT_EQ(total, masks.size());
        EXPECT_LE(done, total);
    };
    const auto a = ascviz::maskedTargetLogProbs(*m, ids, {12, 16}, masks, one);
    const auto b = ascviz::maskedTargetLogProbs(*m, ids, {12, 16}, masks, all);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], 1e-5);
    EXPECT_EQ(calls, 1u);
}

TEST(GradientTimesInput, MatchesCentralFiniteDifferences)
{
    for (const std::string name : {"gpt2", "llama"}) {
        SCOPED_TRACE(name);
        const auto m = fixture(name);
        const auto ids = encode(*m, kText);
        const ascviz::TargetTokens target{14, 17};
        const auto g = ascviz::gradientTimesInput(*m, ids, target);
        ASSERT_EQ(g.size(), ids.size());
        for (std::size_t p = target.end; p < ids.size(); ++p)
            EXPECT_EQ(g[p], 0.0);
        const double eps = 1e-2;
        for (const std::size_t p : {0u, 5u, 13u, 15u}) {
            const double up = ascviz::scaledInputTargetLogProb(*m, ids, target, p, 1 + eps);
            const double down = ascviz::scaledInputTargetLogProb(*m, ids, target, p, 1 - eps);
            const double fd = (up - down) / (2 * eps);
            EXPECT_NEAR(g[p], fd, 2e-3 + 0.02 * std::abs(fd)) << "position " << p;
        }
        // scale 1 is the plain target log-probability
        const auto plain = ascviz::maskedTargetLogProbs(*m, ids, target, {{}});
        EXPECT_NEAR(ascviz::scaledInputTargetLogProb(*m, ids, target, 3, 1.0), plain[0], 1e-5);
    }
}

TEST(Attribution, BadTargetsAndMasksAreRefused)
{
    const auto m = fixture("gpt2");
    const auto ids = encode(*m, kText);
    EXPECT_THROW(ascviz::maskedTargetLogProbs(*m, ids, {0, 2}, {{}}), ascviz::InputError);
    EXPECT_THROW(ascviz::maskedTargetLogProbs(*m, ids, {5, ids.size() + 1}, {{}}), ascviz::InputError);
    EXPECT_THROW(ascviz::maskedTargetLogProbs(*m, ids, {5, 6}, {{5}}), ascviz::InputError);
    EXPECT_THROW(ascviz::gradientTimesInput(*m, ids, {4, 4}), ascviz::InputError);
    try {
        ascviz::maskedTargetLogProbs(*m, ids, {5, 6}, {{7}});
        ADD_FAILURE() << "a mask inside the target was accepted";
    } catch (const ascviz::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("before the attribution target"), std::string::npos) << e.what();
    }
}

} // namespace
