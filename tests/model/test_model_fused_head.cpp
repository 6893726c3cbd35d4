// The fused vocabulary head (core/src/model/kernels/fused_head.h) against today's reference path (log_softmax over
// [chunk, vocab], gather, at::topk) on random heads: vocabularies that are not a multiple of the column block, one
// to several row blocks, a 151,936-column head (Qwen2.5's vocabulary), equal logits in the top-k; and the fixture
// models' scoring (which takes the fused head on the CPU) against the log-softmax of their full logits.
#include "kernels/cpu_linear.h"
#include "kernels/fused_head.h"
#include "model_test_util.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ascviz::model;

namespace {

struct Head {
    at::Tensor w, b; // [V, H], [V] or undefined

    at::Tensor columns(const at::Tensor& x, int64_t col, int64_t cols) const
    {
        return cpuAwareLinear(x, w.narrow(0, col, cols), b.defined() ? b.narrow(0, col, cols) : at::Tensor());
    }
    at::Tensor full(const at::Tensor& x) const { return cpuAwareLinear(x, w, b); }
};

std::vector<int32_t> randomTargets(int64_t n, int64_t vocab)
{
    const at::Tensor t = at::randint(vocab, {n}, at::TensorOptions().dtype(at::kLong));
    std::vector<int32_t> v;
    for (int64_t i = 0; i < n; ++i)
        v.push_back(static_cast<int32_t>(t[i].item<int64_t>()));
    return v;
}

// Every fused prediction equals the reference's within `tol`: NtP, and at each top-k rank the probability; the id
// at a rank is the reference's, or (equal probabilities) an id whose reference probability is that rank's.
void expectSame(const std::vector<HeadPred>& fused, const std::vector<HeadPred>& ref, const at::Tensor& refLogProbs,
                double tol)
{
    ASSERT_EQ(fused.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) {
        EXPECT_NEAR(fused[i].ntp, ref[i].ntp, tol) << "row " << i;
        // The uncertainty of both paths (issue 59): the entropies summed in another order, the rank exactly.
        const auto &fu = fused[i].uncertainty, &ru = ref[i].uncertainty;
        EXPECT_NEAR(fu.entropy, ru.entropy, 1e-5) << "row " << i;
        EXPECT_NEAR(fu.topkEntropy, ru.topkEntropy, 1e-5) << "row " << i;
        EXPECT_NEAR(fu.p1, ru.p1, tol) << "row " << i;
        EXPECT_NEAR(fu.margin, ru.margin, tol) << "row " << i;
        EXPECT_EQ(fu.rank, ru.rank) << "row " << i;
        ASSERT_EQ(fused[i].top.size(), ref[i].top.size()) << "row " << i;
        for (std::size_t j = 0; j < ref[i].top.size(); ++j) {
            EXPECT_NEAR(fused[i].top[j].second, ref[i].top[j].second, tol) << "row " << i << " rank " << j;
            if (fused[i].top[j].first != ref[i].top[j].first) {
                const double p = std::exp(refLogProbs[static_cast<int64_t>(i)][fused[i].top[j].first].item<double>());
                EXPECT_NEAR(p, ref[i].top[j].second, tol) << "row " << i << " rank " << j << ": a different id";
            }
        }
    }
}

void compareOnRandomHead(int64_t vocab, int64_t hidden, int64_t rows, HeadBlocks blocks, int topK, bool bias)
{
    SCOPED_TRACE("vocab " + std::to_string(vocab) + ", rows " + std::to_string(rows));
    Head h;
    h.w = at::randn({vocab, hidden}) * 0.2;
    if (bias)
        h.b = at::randn({vocab});
    const at::Tensor x = at::randn({rows, hidden});
    const auto targets = randomTargets(rows, vocab);
    const auto fused = fusedHeadPreds(
        x, targets, vocab, topK, [&](const at::Tensor& r, int64_t c, int64_t n) { return h.columns(r, c, n); }, blocks);
    const auto ref = chunkedHeadPreds(x, targets, vocab, topK, [&](const at::Tensor& r) { return h.full(r); });
    expectSame(fused, ref, at::log_softmax(h.full(x), -1), 1e-6);
    // NtP is a probability of the given target; the top-k are most likely first.
    for (const HeadPred& p : fused) {
        EXPECT_GT(p.ntp, 0.0);
        EXPECT_LE(p.ntp, 1.0);
        for (std::size_t j = 1; j < p.top.size(); ++j)
            EXPECT_GE(p.top[j - 1].second, p.top[j].second);
    }
}

TEST(FusedHead, MatchesTheReferenceOnRandomHeads)
{
    at::manual_seed(45);
    // Vocabularies that are, and are not, a multiple of the column block; rows from one to several row blocks.
    for (const int64_t rows : {1, 2, 7, 33, 100})
        compareOnRandomHead(1000, 48, rows, HeadBlocks{16, 128}, 5, rows % 2 == 1);
    compareOnRandomHead(1024, 32, 40, HeadBlocks{16, 128}, 3, false);
    compareOnRandomHead(997, 32, 40, HeadBlocks{40, 997}, 0, true); // one block; no top-k
    compareOnRandomHead(50, 16, 9, HeadBlocks{4, 64}, 50, false);   // top-k is the whole vocabulary
}

// Both paths on logits given directly (the head is the identity), worked out by hand: weights w, logits ln w,
// p = w / Σw. Row 0: w = (4, 2, 1, 1): H = 1.75 ln 2 (a vocabulary under K: the top-K entropy is H), p1 = 1/2,
// margin 1/4; the target 2 ties with 3 below two: rank 3 (3: rank 4, its equal 2 has the smaller id). Row 1: w = (8, 4,
// 2, 2, 1 ×8), Σw = 24, Σ w ln w = 36 ln 2: H = ln 24 − 36 ln 2 / 24; the top 10 hold 22: top-K H = ln 22 − 36 ln 2 /
// 22; p1 = 1/3, margin 1/6; the target 11 (w = 1) has four above it and seven equal ones of smaller ids: rank 12; the
// target 0: rank 1.
TEST(FusedHead, UncertaintyWorkedOutByHand)
{
    const auto logitsOf = [](std::vector<double> w, int64_t V) {
        w.resize(static_cast<std::size_t>(V), w.back());
        at::Tensor t = at::empty({1, V}, at::kFloat);
        for (int64_t j = 0; j < V; ++j)
            t[0][j] = std::log(w[static_cast<std::size_t>(j)]);
        return t;
    };
    struct Case {
        at::Tensor logits;
        int32_t target;
        double entropy, topk, p1, margin;
        int64_t rank;
    };
    const double ln2 = std::log(2.0);
    const std::vector<Case> cases{
        {logitsOf({4, 2, 1, 1}, 4), 2, 1.75 * ln2, 1.75 * ln2, 0.5, 0.25, 3},
        {logitsOf({4, 2, 1, 1}, 4), 3, 1.75 * ln2, 1.75 * ln2, 0.5, 0.25, 4},
        {logitsOf({8, 4, 2, 2, 1}, 12), 11, std::log(24.0) - 36 * ln2 / 24, std::log(22.0) - 36 * ln2 / 22, 1.0 / 3,
         1.0 / 6, 12},
        {logitsOf({8, 4, 2, 2, 1}, 12), 4, std::log(24.0) - 36 * ln2 / 24, std::log(22.0) - 36 * ln2 / 22, 1.0 / 3,
         1.0 / 6, 5},
        {logitsOf({8, 4, 2, 2, 1}, 12), 0, std::log(24.0) - 36 * ln2 / 24, std::log(22.0) - 36 * ln2 / 22, 1.0 / 3,
         1.0 / 6, 1},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
        SCOPED_TRACE("case " + std::to_string(c));
        const Case& k = cases[c];
        const int64_t V = k.logits.size(1);
        for (const int topK : {0, 3}) {
            const auto plain =
                chunkedHeadPreds(k.logits, {k.target}, V, topK, [](const at::Tensor& r) { return r; }).front();
            const auto fused = fusedHeadPreds(
                                   k.logits, {k.target}, V, topK,
                                   [&](const at::Tensor& r, int64_t col, int64_t n) { return r.narrow(1, col, n); },
                                   HeadBlocks{1, 5}) // tiles of 5, 5 and 2 columns
                                   .front();
            for (const HeadPred* p : {&plain, &fused}) {
                SCOPED_TRACE(p == &plain ? "plain" : "fused");
                EXPECT_NEAR(p->uncertainty.entropy, k.entropy, 1e-6);
                EXPECT_NEAR(p->uncertainty.topkEntropy, k.topk, 1e-6);
                EXPECT_NEAR(p->uncertainty.p1, k.p1, 1e-6);
                EXPECT_NEAR(p->uncertainty.margin, k.margin, 1e-6);
                EXPECT_EQ(p->uncertainty.rank, k.rank);
                EXPECT_EQ(p->top.size(), static_cast<std::size_t>(std::min<int64_t>(topK, V))); // k kept, not K
            }
        }
    }
}

TEST(FusedHead, MatchesTheReferenceOnA150kVocabulary)
{
    at::manual_seed(7);
    compareOnRandomHead(151936, 64, 70, HeadBlocks{}, 5, false);
    compareOnRandomHead(151936, 64, 3, HeadBlocks{2, 4096}, 10, true);
}

TEST(FusedHead, EqualLogitsRankByIdAcrossColumnBlocks)
{
    at::manual_seed(3);
    const int64_t V = 300, H = 24;
    Head h;
    h.w = at::randn({V, H}) * 0.1;
    // Column 250 (a later block) is the best; 7, 130 and 299 equal it (three blocks of 128 columns); 40 and 200
    // tie below them.
    h.w[250] = at::full({H}, 1.0);
    for (const int64_t c : {7, 130, 299})
        h.w[c] = h.w[250].clone();
    h.w[40] = at::full({H}, 0.5);
    h.w[200] = h.w[40].clone();
    const at::Tensor x = at::ones({4, H});
    const std::vector<int32_t> targets{7, 250, 40, 3};
    const auto fused = fusedHeadPreds(
        x, targets, V, 6, [&](const at::Tensor& r, int64_t c, int64_t n) { return h.columns(r, c, n); },
        HeadBlocks{3, 128});
    const auto ref = chunkedHeadPreds(x, targets, V, 6, [&](const at::Tensor& r) { return h.full(r); });
    expectSame(fused, ref, at::log_softmax(h.full(x), -1), 1e-6);
    for (const HeadPred& p : fused) {
        ASSERT_EQ(p.top.size(), 6U);
        const std::vector<int32_t> ids{p.top[0].first, p.top[1].first, p.top[2].first,
                                       p.top[3].first, p.top[4].first, p.top[5].first};
        EXPECT_EQ(ids, (std::vector<int32_t>{7, 130, 250, 299, 40, 200}));
        EXPECT_EQ(p.top[0].second, p.top[3].second);
        EXPECT_EQ(p.top[4].second, p.top[5].second);
    }
    // Ranks with ties to the smaller id, across column blocks: 7 is first of four equal; 250 has 7 and 130 before it;
    // 40 has the four best above it (200, equal, comes after).
    for (const auto* preds : {&fused, &ref}) {
        EXPECT_EQ((*preds)[0].uncertainty.rank, 1);
        EXPECT_EQ((*preds)[1].uncertainty.rank, 3);
        EXPECT_EQ((*preds)[2].uncertainty.rank, 5);
        EXPECT_EQ((*preds)[0].uncertainty.margin, 0.0); // the top two tie
    }
    EXPECT_NEAR(fused[0].ntp, fused[0].top[0].second, 1e-12);
    EXPECT_NEAR(fused[2].ntp, fused[2].top[4].second, 1e-12);
}

// With ASCVIZ_CPU_HEAD=fused the fixture models score through the fused head on the CPU: their NtP equals the
// log-softmax of their full logits (divisors, soft caps and biases included).
TEST(FusedHead, FixtureScoringEqualsTheFullDistribution)
{
    ::setenv("ASCVIZ_CPU_HEAD", "fused", 1);
    ASSERT_TRUE(cpuFusedHeadEnabled()) << "ASCVIZ_CPU_FUSE=0 in the environment";
    for (const std::string name : {"gpt2", "llama", "qwen2", "gemma2", "phi3", "codegen"}) {
        SCOPED_TRACE(name);
        const auto m = ascviz::LanguageModel::load(modeltest::fixtureModel("tiny-" + name), modeltest::cpuFloat32());
        const std::vector<int32_t> ids = m->tokenizer().encode("def f(x):\n    return x * 2 + 1\n", false).ids;
        ASSERT_GT(ids.size(), 4U);
        const std::vector<float> logits = m->logits(ids);
        const auto V = static_cast<int64_t>(logits.size() / ids.size());
        const at::Tensor lp =
            at::log_softmax(at::from_blob(const_cast<float*>(logits.data()), {static_cast<int64_t>(ids.size()), V},
                                          at::TensorOptions().dtype(at::kFloat)),
                            -1);
        const auto scored = m->scoreIds({ids}).front();
        ASSERT_EQ(scored.size(), ids.size());
        EXPECT_FALSE(scored[0].has_value());
        for (std::size_t p = 1; p < ids.size(); ++p) {
            ASSERT_TRUE(scored[p].has_value()) << p;
            const double want = std::exp(lp[static_cast<int64_t>(p - 1)][ids[p]].item<double>());
            EXPECT_NEAR(*scored[p], want, 1e-6) << "position " << p;
        }
    }
}

} // namespace
