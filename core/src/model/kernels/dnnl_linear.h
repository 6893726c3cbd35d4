// Float32 linear layers on the CPU through the system's oneDNN (Debian's libdnnl, the library Debian's LibTorch
// 1.13 itself links), called directly: the weights are reordered once into the blocked layout oneDNN's matmul
// picks for this CPU ("pre-packed") and reused by every later call, and each shape's primitive is created once.
// docs/performance.md, "Linear layers", has the measurements behind it. Built only when CMake finds oneDNN
// (ASCVIZ_HAVE_DNNL); cpu_linear.cpp falls back to LibTorch's paths otherwise.
#pragma once
#include "kernels/cpu_threads.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace ascviz::model {

// Whether the direct oneDNN path is usable in this process: the build has it and its module loaded and passed
// its self-test (dnnl_gemm.h); otherwise why not.
bool dnnlLinearAvailable();
std::string dnnlLinearUnavailableReason();

// y = x Wᵀ + b for a contiguous float32 CPU x [rows, in], a contiguous float32 w [out, in] and b [out] or undefined;
// returns [rows, out], or an undefined tensor when oneDNN could not create or execute this product (the caller
// computes it with LibTorch; dnnlLinearFallbackNote says so). Weights are packed on first use, keyed by their storage
// and offset and checked against the storage's lifetime and the tensor's version counter, so a freed or modified weight
// is never read from a stale copy. Packed copies are kept up to a budget (ASCVIZ_DNNL_PACK_MB, default 4096 MiB); past
// it the weights are read in LibTorch's own layout (no copy). `act` (cpu_threads.h) is an element-wise activation
// applied to the result inside the same primitive (oneDNN's eltwise post-op, computed on the product while it is still
// in registers): act(x Wᵀ + b).
at::Tensor dnnlLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, DnnlAct act = DnnlAct::None);

// softmax(scale · q kᵀ + mask) v for float32 CPU q [B, H, T, D] and k, v [B, H, S, D] (any strides, no copies) with
// a boolean mask [B|1, 1, T, S] (true: attend; undefined: none) applied as masked_fill(lowest) is: an additive
// 0 / lowest mask. Returns [B, H, T, D] as a transposed view of a contiguous [B, T, H, D] (the layout the output
// projection reads), or an undefined tensor when this oneDNN has no such path.
at::Tensor dnnlAttend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                      double scale);

// Computes w's later products (dnnlLinear) in bfloat16: x and w rounded to bfloat16, accumulated in float32
// (`--dtype bfloat16-matmul`, CPU only). Throws std::runtime_error naming the CPU's instruction set when it has
// no bfloat16 instructions, or when this build has no oneDNN.
void dnnlMarkBf16(const at::Tensor& w);
bool dnnlBf16Available();
// oneDNN's name for the best instruction set it uses on this CPU ("avx2", "avx512_core_bf16"; ONEDNN_MAX_CPU_ISA
// lowers it).
std::string dnnlCpuIsaName();

// "oneDNN 2.6.3 (matmul, pre-packed weights, avx512_core)" for --version.
std::string dnnlLinearDescription();

// "; LibTorch's linear layer for 2 shapes oneDNN could not run (reason)" once that happened, else "".
std::string dnnlLinearFallbackNote();

// Bytes of packed weights held now (tests).
int64_t dnnlPackedBytes();

} // namespace ascviz::model
