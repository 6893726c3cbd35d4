// Linear layers on the CPU through oneDNN, the kernel library both LibTorch builds carry (docs/performance.md,
// "Linear layers"). LibTorch's at::linear calls the BLAS it was built with: MKL, which takes its AVX2 path on
// AMD CPUs (PyPI's LibTorch 2.x), or the system's OpenBLAS (Debian's LibTorch 1.13); oneDNN picks its
// kernels by the CPU's instruction sets (AVX-512 where present) on any vendor.
#pragma once
#include "kernels/cpu_threads.h"
#include "kernels/dnnl_linear.h"

#include <ATen/ATen.h>

#include <optional>

namespace ascviz::model {

// Rows below which the CPU keeps at::linear: a matrix-vector product (generation's decode step) is bound by
// reading the weights, and oneDNN's per-call setup (the weights are LibTorch's, reordered per call) costs more
// than it saves there.
constexpr int64_t kOneDnnMinRows = 16;
// The same for the direct oneDNN path (dnnl_linear.h), whose weights are packed once: measured in
// docs/performance.md.
constexpr int64_t kDnnlMinRows = 1;

// x Wᵀ + b (oneDnnLinearEnabled: cpu_threads.h) for x [..., in], w [out, in], b [out] or undefined: oneDNN when
// enabled, x is a float32 CPU tensor with at least kOneDnnMinRows rows and w is float32; at::linear otherwise. A plain
// (strided) tensor.
at::Tensor cpuAwareLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b);

// Packs w for the direct oneDNN path now (as its first product would), when cpuAwareLinear takes that path for a
// float32 CPU w; nothing otherwise. A weight on a file mapping then leaves the resident set (dnnl_linear.cpp), so
// packing at load, largest first, keeps the peak near one copy of the weights.
void cpuPrepackLinear(const at::Tensor& w);

// act(x Wᵀ + b) as one oneDNN primitive (the activation fused as the product's epilogue) when cpuAwareLinear would
// take the direct oneDNN path; nullopt otherwise, and the caller computes the product and the activation apart.
// ASCVIZ_CPU_FUSE=0 turns the fusion off (benchmarks).
// softmax(scale · q kᵀ + mask) v through oneDNN (dnnl_linear.h, dnnlAttend) when the linear layers take the direct
// oneDNN path, q, k, v are float32 CPU tensors with as many key/value heads as query heads and nothing records a
// graph; an undefined tensor otherwise (the caller computes it with LibTorch). `causal` without a mask: the causal
// mask. ASCVIZ_CPU_FUSE=0 turns it off.
at::Tensor cpuFusedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                             bool causal, double scale);

// Whether the CPU's fusions are on: ASCVIZ_CPU_FUSE is not 0 (the linear layers' epilogues, attention, the vocabulary
// head of fused_head.h).
bool cpuFusionEnabled();

std::optional<at::Tensor> cpuFusedLinearActivation(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                                                   DnnlAct act);

} // namespace ascviz::model
