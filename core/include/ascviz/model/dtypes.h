// Which compute precisions this build can run on the CPU, for choosers that should not offer one a load refuses.
#pragma once
#include <string>

namespace ascviz {

// True when LanguageModel::load with this dtype ("float32", "float16", "bfloat16", "auto") on the CPU does not
// refuse it for the build's LibTorch (Debian's 1.13 has no float16 matrix products on the CPU). Probed once per
// dtype with a 2 × 2 product; an unknown name is false.
bool cpuSupportsDtype(const std::string& dtype);

} // namespace ascviz
