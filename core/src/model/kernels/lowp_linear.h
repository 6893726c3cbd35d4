// Linear layers whose weights stay in their checkpoint's 16-bit dtype (bfloat16 or float16) on the CPU, with
// float32 activations and float32 accumulation (LoadOptions::weights "checkpoint"; docs/performance.md, "bf16
// weights"). Products of many rows (scoring, prefill) widen the weight a tile of output rows at a time into a float32
// scratch buffer and run the float32 matrix product on the tile; products of a few rows (generation's decode step)
// read the 16-bit weights directly in an AVX2 kernel (bf16 → f32 is a 16-bit shift, f16 → f32 F16C's vcvtph2ps),
// chosen at run time, so the build needs no -mavx2.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace ascviz::model {

// Rows up to which lowpLinear reads the weights directly (the decode kernel) where the CPU has AVX2, FMA and F16C.
constexpr int64_t kLowpKernelMaxRows = 4;

// Whether w is a CPU weight kept in a 16-bit floating dtype (bfloat16 or float16).
bool isLowpWeight(const at::Tensor& w);

// x Wᵀ + b for a float32 CPU x [..., in], a contiguous bfloat16 / float16 w [out, in] and a float32 b [out] or
// undefined; float32 [..., out]. When a graph is recorded (gradient x input) the whole weight is widened and the
// product is at::linear's.
at::Tensor lowpLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b);

// The decode kernel alone (tests): y [rows, out] = x [rows, in] Wᵀ + b for contiguous x (float32), w (bfloat16 or
// float16) and b (float32 or undefined), threaded over output rows, any number of rows. Throws std::logic_error when
// the CPU lacks AVX2, FMA or F16C (lowpKernelAvailable).
at::Tensor lowpKernelLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b);
// The tile path alone (tests): the same product, widening `tileRows` output rows at a time (0: the default).
at::Tensor lowpTiledLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, int64_t tileRows = 0);
bool lowpKernelAvailable();

// "bfloat16 weights widened per tile of N rows; AVX2 kernel up to 4 rows" for --version and the run info.
std::string lowpLinearDescription();

} // namespace ascviz::model
