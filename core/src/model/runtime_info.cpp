#include "ascviz/model/model.h"

#include <torch/cuda.h>
#include <torch/version.h>

namespace ascviz {

std::string torchVersion()
{
    return TORCH_VERSION;
}

std::string torchBuild()
{
    return ASCVIZ_TORCH_BUILD;
}

bool cudaAvailable()
{
    return torch::cuda::is_available();
}

} // namespace ascviz
