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
