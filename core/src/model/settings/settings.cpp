#include "settings/settings.h"

#include <array>
#include <cstdlib>

namespace ascviz::model {
namespace {

constexpr std::array<SettingInfo, 10> kSettings{{
    {Setting::CpuLinear, "ASCVIZ_CPU_LINEAR",
     "dnnl | onednn | aten: the CPU's linear-layer path (default: the fastest built)"},
    {Setting::CpuFuse, "ASCVIZ_CPU_FUSE", "0: no fused [gate; up] and [q; k; v] products on the CPU"},
    {Setting::CpuHead, "ASCVIZ_CPU_HEAD", "fused: the fused vocabulary head on the CPU"},
    {Setting::HeadRows, "ASCVIZ_HEAD_ROWS", "the fused head's block rows (its microbenchmark only)"},
    {Setting::HeadCols, "ASCVIZ_HEAD_COLS", "the fused head's block columns (its microbenchmark only)"},
    {Setting::LowpTileRows, "ASCVIZ_LOWP_TILE_ROWS",
     "rows of a 16-bit weight matrix widened per tile (default: 8 MiB of float32)"},
    {Setting::DnnlPackMb, "ASCVIZ_DNNL_PACK_MB", "MiB of packed weights the direct oneDNN path keeps (default 4096)"},
    {Setting::DnnlPrepack, "ASCVIZ_DNNL_PREPACK", "0: pack the oneDNN weights on first use, not at load"},
    {Setting::DnnlModule, "ASCVIZ_DNNL_MODULE", "the path of libascviz_dnnl.so to load"},
    {Setting::WeightsCopy, "ASCVIZ_WEIGHTS_COPY", "1: copy the tensors out of the safetensors mapping"},
}};

} // namespace

std::span<const SettingInfo> settingsTable()
{
    return kSettings;
}

const char* settingName(Setting s)
{
    return kSettings[static_cast<std::size_t>(s)].name;
}

const char* setting(Setting s)
{
    return std::getenv(settingName(s));
}

} // namespace ascviz::model
