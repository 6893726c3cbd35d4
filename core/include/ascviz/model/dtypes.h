// Which compute precisions this build can run on the CPU, for choosers that should not offer one a load refuses.
#pragma once
#include "ascviz/model/loadoptions.h"

namespace ascviz {

// True when LanguageModel::load with this dtype on the CPU does not refuse it for the build's LibTorch and CPU
// (Debian's 1.13 has no float16 matrix products on the CPU; bfloat16-matmul needs the system oneDNN and
// AVX512-BF16). Probed once per dtype with products of the sizes LibTorch sends to its oneDNN.
bool cpuSupportsDtype(Dtype dtype);

} // namespace ascviz
