#include "ascviz/model/model.h"

#include "kernels/cpu_threads.h"

#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <thread>

namespace ascviz {

std::string torchVersion()
{
    return TORCH_VERSION;
}

std::string torchBuild()
{
    return ASCVIZ_TORCH_BUILD;
}

int defaultCpuThreads()
{
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::string cpuThreadSetup()
{
    return describeCpuThreads(defaultCpuThreads());
}

bool cudaAvailable()
{
    return torch::cuda::is_available();
}

} // namespace ascviz
