// Every ASCVIZ_* environment setting the model room reads, in one table: what each changes is listed here and in
// docs/building.md ("Environment settings"). Each is for benchmarks and diagnosis; none is needed to use AsC-Viz.
// The readers keep their own timing (most read once per process, the linear path's description on each call).
#pragma once
#include <span>

namespace ascviz::model {

enum class Setting {
    CpuLinear,    // ASCVIZ_CPU_LINEAR: dnnl | onednn | aten, the CPU's linear-layer path
    CpuFuse,      // ASCVIZ_CPU_FUSE: 0 = no fused [gate; up] and [q; k; v] products
    CpuHead,      // ASCVIZ_CPU_HEAD: fused = the fused vocabulary head on the CPU
    HeadRows,     // ASCVIZ_HEAD_ROWS: the fused head's block rows (its microbenchmark only)
    HeadCols,     // ASCVIZ_HEAD_COLS: the fused head's block columns (its microbenchmark only)
    LowpTileRows, // ASCVIZ_LOWP_TILE_ROWS: rows widened per tile of a 16-bit weight matrix
    DnnlPackMb,   // ASCVIZ_DNNL_PACK_MB: MiB of packed weights the direct oneDNN path keeps (default 4096)
    DnnlPrepack,  // ASCVIZ_DNNL_PREPACK: 0 = pack on first use, not at load
    DnnlModule,   // ASCVIZ_DNNL_MODULE: the path of libascviz_dnnl.so to load
    WeightsCopy,  // ASCVIZ_WEIGHTS_COPY: 1 = copy tensors out of the safetensors mapping
};

struct SettingInfo {
    Setting setting;
    const char* name;    // the environment variable
    const char* meaning; // one line, as docs/building.md lists it
};

// The table, in the enum's order.
std::span<const SettingInfo> settingsTable();

// The variable's value now, or nullptr when it is unset.
const char* setting(Setting s);

// The variable's name ("ASCVIZ_CPU_LINEAR"), for messages.
const char* settingName(Setting s);

} // namespace ascviz::model
