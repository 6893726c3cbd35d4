// The CPU thread plan (core/src/model/kernels/cpu_threads.h): which pool gets the threads for each BLAS build.
#include "kernels/cpu_threads.h"

#include "model_test_util.h"

#include "ascviz/base/error.h"
#include "ascviz/model/model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace ascviz;
using modeltest::cpuFloat32;
using modeltest::fixtureModel;

TEST(CpuThreads, OpenBlasPthreadsGetsTheThreadsAndLibTorchKeepsOne)
{
    ::unsetenv("ASCVIZ_TORCH_THREADS");
    ::unsetenv("ASCVIZ_BLAS_THREADS");
    const CpuThreadPlan p = planCpuThreads(4, "pthreads");
    EXPECT_EQ(p.torch, 1);
    EXPECT_EQ(p.blas, 4);
}

TEST(CpuThreads, OtherBlasRunsOnLibTorchsThreads)
{
    ::unsetenv("ASCVIZ_TORCH_THREADS");
    ::unsetenv("ASCVIZ_BLAS_THREADS");
    for (const char* threading : {"", "OpenMP", "sequential"}) {
        const CpuThreadPlan p = planCpuThreads(3, threading);
        EXPECT_EQ(p.torch, 3) << threading;
        EXPECT_EQ(p.blas, 0) << threading;
    }
    EXPECT_EQ(planCpuThreads(0, "").torch, 1); // never fewer than one
}

TEST(CpuThreads, WithOneDnnLinearsLibTorchGetsTheThreadsAndOpenBlasKeepsOne)
{
    ::unsetenv("ASCVIZ_TORCH_THREADS");
    ::unsetenv("ASCVIZ_BLAS_THREADS");
    const CpuThreadPlan p = planCpuThreads(4, "pthreads", /*oneDnnLinears=*/true);
    EXPECT_EQ(p.torch, 4);
    EXPECT_EQ(p.blas, 1);
    const CpuThreadPlan m = planCpuThreads(4, "", /*oneDnnLinears=*/true); // MKL inside LibTorch: nothing to split
    EXPECT_EQ(m.torch, 4);
    EXPECT_EQ(m.blas, 0);
}

TEST(CpuThreads, EnvironmentOverridesThePlan)
{
    ::setenv("ASCVIZ_TORCH_THREADS", "2", 1);
    ::setenv("ASCVIZ_BLAS_THREADS", "1", 1);
    const CpuThreadPlan p = planCpuThreads(4, "pthreads");
    EXPECT_EQ(p.torch, 2);
    EXPECT_EQ(p.blas, 1);
    ::setenv("ASCVIZ_BLAS_THREADS", "nonsense", 1); // not a count: the plan stands
    EXPECT_EQ(planCpuThreads(4, "pthreads").blas, 4);
    ::unsetenv("ASCVIZ_TORCH_THREADS");
    ::unsetenv("ASCVIZ_BLAS_THREADS");
}

TEST(CpuThreads, LoadedModelReportsTheAppliedSetup)
{
    // This process's BLAS decides the split; the description names both pools and agrees with the plan.
    const BlasThreads b = blasThreads();
    const CpuThreadPlan p = planCpuThreads(2, b.threading, model::oneDnnLinearEnabled());
    const std::string d = describeCpuThreads(2);
    EXPECT_EQ(d.rfind(std::to_string(p.torch) + " LibTorch intra-op thread", 0), 0u) << d;
    EXPECT_NE(d.find("BLAS: "), std::string::npos) << d;
    if (!b.name.empty()) {
        EXPECT_NE(d.find(b.threading), std::string::npos) << d;
    }
    EXPECT_NE(d.find("float32 linear layers: " + model::cpuLinearDescription()), std::string::npos) << d;
}

// The linear layers' CPU path (cpu_linear.h) on small integers, whose products and sums are exact in float32:
// 2 × 9 rows go through oneDNN (16 rows and more, when enabled), 1 × 3 rows through at::linear; both must give
// the hand-computed y[r][o] = sum_i x[r][i] w[o][i] + b[o].
TEST(CpuLinear, MatchesHandComputedProductsOnBothPaths)
{
    const int64_t in = 3, out = 2;
    const std::vector<float> w = {1, 2, 3, -1, 0, 2}; // w[0] = (1, 2, 3), w[1] = (-1, 0, 2)
    const std::vector<float> b = {0.5f, -4};
    for (const auto& [batch, rows] : {std::pair<int64_t, int64_t>{2, 9}, {1, 3}}) {
        std::vector<float> x;
        for (int64_t r = 0; r < batch * rows; ++r) // row r = (r, 1, -r)
            x.insert(x.end(), {static_cast<float>(r), 1.0f, static_cast<float>(-r)});
        const std::vector<float> y = model::cpuLinearOnArrays(x, w, b, batch, rows, in, out);
        ASSERT_EQ(y.size(), static_cast<std::size_t>(batch * rows * out));
        for (int64_t r = 0; r < batch * rows; ++r) {
            const auto f = static_cast<float>(r);
            EXPECT_EQ(y[static_cast<std::size_t>(r * out)], f + 2 - 3 * f + 0.5f) << "row " << r; // -2r + 2.5
            EXPECT_EQ(y[static_cast<std::size_t>(r * out + 1)], -f - 2 * f - 4) << "row " << r;   // -3r - 4
        }
        const std::vector<float> noBias = model::cpuLinearOnArrays(x, w, {}, batch, rows, in, out);
        // Row 1 = (1, 1, -1) without b: (1, 2, 3)·row = 0, (-1, 0, 2)·row = -3.
        EXPECT_EQ(noBias[2], 0.0f);
        EXPECT_EQ(noBias[3], -3.0f);
    }
}

// The activation epilogue (fused into the oneDNN primitive where the direct path is built, LibTorch's activation
// after the product otherwise) against the formulas by hand: GELU tanh = 0.5 y (1 + tanh(√(2/π) (y + 0.044715 y³))),
// GELU erf = 0.5 y (1 + erf(y / √2)), ReLU = max(y, 0), on products y = 0.25 r - 1 that span both signs.
TEST(CpuLinear, ActivationEpilogueMatchesTheFormulas)
{
    const int64_t rows = 40, in = 2, out = 1;
    const std::vector<float> w = {0.25f, -1.0f};
    std::vector<float> x;
    for (int64_t r = 0; r < rows; ++r)
        x.insert(x.end(), {static_cast<float>(r) - 20.0f, 1.0f}); // y = 0.25 (r - 20) - 1
    const double k = std::sqrt(2.0 / M_PI);
    for (const model::DnnlAct act : {model::DnnlAct::GeluTanh, model::DnnlAct::GeluErf, model::DnnlAct::Relu}) {
        const std::vector<float> y = model::cpuLinearActivationOnArrays(x, w, {}, 1, rows, in, out, act);
        ASSERT_EQ(y.size(), static_cast<std::size_t>(rows));
        for (int64_t r = 0; r < rows; ++r) {
            const double v = 0.25 * (static_cast<double>(r) - 20.0) - 1.0;
            const double want = act == model::DnnlAct::GeluTanh
                                    ? 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)))
                                : act == model::DnnlAct::GeluErf ? 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)))
                                                                 : std::max(v, 0.0);
            EXPECT_NEAR(y[static_cast<std::size_t>(r)], want, 2e-6 * std::max(1.0, std::abs(want)))
                << "act " << static_cast<int>(act) << " row " << r;
        }
    }
}

// Pre-packed weights are keyed by their storage: a new weight each call (freed after it) must give its own
// product every time, never a stale packed copy, and the packed copies of freed weights must be released.
TEST(CpuLinear, PackedWeightsFollowTheirTensors)
{
    const int64_t rows = 20, in = 4, out = 3;
    std::vector<float> x(static_cast<std::size_t>(rows * in), 1.0f); // every row (1, 1, 1, 1)
    for (int i = 0; i < 30; ++i) {
        const std::vector<float> w(static_cast<std::size_t>(out * in), static_cast<float>(i)); // row sums 4 i
        const std::vector<float> y = model::cpuLinearOnArrays(x, w, {}, 1, rows, in, out);
        for (float v : y)
            ASSERT_EQ(v, 4.0f * static_cast<float>(i)) << "call " << i;
        EXPECT_EQ(model::cpuPackedWeightBytes(), 0) << "call " << i << ": the freed weight's packed copy is kept";
    }
}

// A loaded model's weights are packed on its first forward pass and kept while it lives (that is the point: no
// per-call reordering), with the same NtP on a second pass; unloading the model releases them.
TEST(CpuLinear, ModelWeightsStayPackedWhileTheModelLives)
{
    const bool packs = model::cpuLinearDescription().find("pre-packed") != std::string::npos;
    {
        auto m = LanguageModel::load(fixtureModel("tiny-gpt2"), cpuFloat32());
        const auto first = m->score("def f(x):\n    return x + 1\n");
        const int64_t held = model::cpuPackedWeightBytes();
        if (packs)
            EXPECT_GT(held, 0);
        else
            EXPECT_EQ(held, 0);
        const auto second = m->score("def f(x):\n    return x + 1\n");
        ASSERT_EQ(first.tokens.size(), second.tokens.size());
        for (std::size_t i = 0; i < first.tokens.size(); ++i)
            EXPECT_EQ(first.tokens[i].ntp, second.tokens[i].ntp) << "token " << i;
        EXPECT_EQ(model::cpuPackedWeightBytes(), held);
    }
    EXPECT_EQ(model::cpuPackedWeightBytes(), 0);
}

// --dtype bfloat16-matmul (CPU only): the linear layers' products in bfloat16, everything else float32. Where the
// CPU and build have it, NtP moves from float32's by a bfloat16 rounding's worth (measured on the bundled model
// and 100 functions: at most 0.037, mean 0.0013) but not zero; elsewhere loading says why.
TEST(CpuLinear, Bfloat16MatmulIsCloseToFloat32OrRefusedWithAReason)
{
    const std::string text = "def add(a, b):\n    total = a + b\n    return total * 2\n";
    LoadOptions bf = cpuFloat32();
    bf.dtype = ascviz::Dtype::Bfloat16Matmul;
    std::unique_ptr<LanguageModel> low;
    try {
        low = LanguageModel::load(fixtureModel("tiny-gpt2"), bf);
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("bfloat16-matmul needs"), std::string::npos) << e.what();
        return;
    }
    EXPECT_EQ(low->info().dtype, "bfloat16-matmul");
    const auto lowScores = low->score(text);
    low.reset();
    const auto ref = LanguageModel::load(fixtureModel("tiny-gpt2"), cpuFloat32())->score(text);
    ASSERT_EQ(lowScores.tokens.size(), ref.tokens.size());
    double worst = 0;
    for (std::size_t i = 0; i < ref.tokens.size(); ++i) {
        ASSERT_EQ(lowScores.tokens[i].id, ref.tokens[i].id);
        if (ref.tokens[i].ntp)
            worst = std::max(worst, std::abs(*lowScores.tokens[i].ntp - *ref.tokens[i].ntp));
    }
    EXPECT_GT(worst, 0.0) << "the bfloat16 products were not used";
    EXPECT_LT(worst, 0.05);
}

// The direct oneDNN path (issue 39): where the build has it, its module loads and passes its self-test on this CPU
// under whatever ONEDNN_MAX_CPU_ISA the run sets (setup.sh test reruns the runtime tests with AVX2 and SSE41), and
// products of many shapes -- one row (generation), odd sizes, with and without bias -- equal the hand-computed
// ones with no product handed back to LibTorch. (Before the fix, the PyTorch build on an AVX2-only CPU failed every
// product with "could not execute a primitive": its oneDNN's gemm kernels were initialised in LibTorch's copy.)
TEST(CpuLinear, DirectOneDnnRunsEveryShapeOnThisCpu)
{
#if ASCVIZ_TEST_EXPECTS_DNNL
    const std::string before = model::cpuLinearDescription();
    ASSERT_EQ(before.rfind("oneDNN ", 0), 0u) << before;
    EXPECT_NE(before.find("matmul"), std::string::npos) << before;
#endif
    for (const int64_t rows : {1, 2, 7, 16, 33})
        for (const auto& [in, out] : {std::pair<int64_t, int64_t>{5, 3}, {64, 48}, {97, 130}})
            for (const bool bias : {true, false}) {
                std::vector<float> x(static_cast<std::size_t>(rows * in)), w(static_cast<std::size_t>(in * out)),
                    b(bias ? static_cast<std::size_t>(out) : 0);
                for (std::size_t i = 0; i < x.size(); ++i)
                    x[i] = static_cast<float>(static_cast<int>((i * 31) % 17) - 8) / 8.0f;
                for (std::size_t i = 0; i < w.size(); ++i)
                    w[i] = static_cast<float>(static_cast<int>((i * 13) % 11) - 5) / 4.0f;
                for (std::size_t i = 0; i < b.size(); ++i)
                    b[i] = static_cast<float>(i % 3) - 1.0f;
                const std::vector<float> y = model::cpuLinearOnArrays(x, w, b, 1, rows, in, out);
                ASSERT_EQ(y.size(), static_cast<std::size_t>(rows * out));
                for (int64_t r = 0; r < rows; ++r)
                    for (int64_t o = 0; o < out; ++o) {
                        double want = bias ? b[static_cast<std::size_t>(o)] : 0.0;
                        for (int64_t i = 0; i < in; ++i)
                            want += static_cast<double>(x[static_cast<std::size_t>(r * in + i)]) *
                                    w[static_cast<std::size_t>(o * in + i)];
                        // Multiples of 1/32 summed: exact in float32 whatever the order of the sums.
                        ASSERT_EQ(y[static_cast<std::size_t>(r * out + o)], static_cast<float>(want))
                            << rows << "x" << in << "x" << out << (bias ? " with bias" : "") << " at " << r << "," << o;
                    }
            }
    const std::string after = model::cpuLinearDescription();
    EXPECT_EQ(after.find("could not run"), std::string::npos) << after;
}
