// Linear layers on the CPU through oneDNN, the kernel library both LibTorch builds carry (docs/performance.md,
// "Linear layers"). LibTorch's at::linear calls the BLAS it was built with: MKL, which takes its AVX2 path on
// AMD CPUs (PyPI's LibTorch 2.x), or the system's OpenBLAS (Debian's LibTorch 1.13); oneDNN picks its
// kernels by the CPU's instruction sets (AVX-512 where present) on any vendor.
#pragma once
#include "cpu_threads.h"

#include <ATen/ATen.h>

namespace ascviz::model {

// Rows below which the CPU keeps at::linear: a matrix-vector product (generation's decode step) is bound by
// reading the weights, and oneDNN's per-call setup (the weights are LibTorch's, reordered per call) costs more
// than it saves there.
constexpr int64_t kOneDnnMinRows = 16;

// x Wᵀ + b (oneDnnLinearEnabled: cpu_threads.h) for x [..., in], w [out, in], b [out] or undefined: oneDNN when
// enabled, x is a float32 CPU tensor with at least kOneDnnMinRows rows and w is float32; at::linear otherwise. A plain
// (strided) tensor.
at::Tensor cpuAwareLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b);

} // namespace ascviz::model
