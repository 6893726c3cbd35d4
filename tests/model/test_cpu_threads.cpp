// The CPU thread plan (core/src/model/cpu_threads.h): which pool gets the threads for each BLAS build.
#include "cpu_threads.h"

#include "ascviz/model/model.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace ascviz;

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
