// The system oneDNN's matmul on plain float32 arrays, torch-free: the model room's side of the oneDNN module
// (libascviz_dnnl.so, dnnl_gemm.cpp, loaded by dnnl_module.cpp; why a module: dnnl_abi.h). dnnl_linear.h puts
// LibTorch tensors and their lifetimes on top. Nothing here throws for oneDNN's sake: a product oneDNN cannot
// create or execute returns false with the reason, and the caller computes it with LibTorch instead.
#pragma once
#include "kernels/cpu_threads.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ascviz::model {

// Whether the module is loaded and passed its self-test (a small product of every kind checked against the
// hand-computed result); otherwise why not ("" when it is).
bool dnnlAvailable();
std::string dnnlUnavailableReason();

// The packed copies of one weight matrix w [out, in] (row-major float32) in the blocked layouts oneDNN's matmul
// picks for this CPU, made on first use (one per layout the primitives ask for; in practice one).
class DnnlPackedWeights {
public:
    DnnlPackedWeights();
    ~DnnlPackedWeights();
    DnnlPackedWeights(const DnnlPackedWeights&) = delete;
    DnnlPackedWeights& operator=(const DnnlPackedWeights&) = delete;
    int64_t bytes() const;
    void* handle() const { return m_handle; }

private:
    void* m_handle = nullptr;
};

// y [rows, out] = act(x [rows, in] wᵀ + b) with x, y row-major, w [out, in] row-major, b [out] or null. `packed`:
// the weight's packed copies, added to on first use (null: w is read in place, no copy).
// `bf16`: the product in bfloat16 (x and w rounded to bfloat16, products accumulated in float32; the opt-in
// `--dtype bfloat16-matmul`), which needs `packed` and a CPU with AVX512-BF16 (dnnlHasBf16).
// Returns false with *why set when oneDNN could not create or execute the product (y is then undefined).
bool dnnlMatmul(const float* x, int64_t rows, int64_t in, const float* w, int64_t out, const float* b, DnnlAct act,
                float* y, DnnlPackedWeights* packed, bool bf16, std::string* why);

// Whether this CPU has oneDNN's bfloat16 instructions (AVX512-BF16 or AMX), and oneDNN's name for its best ISA
// (honouring ONEDNN_MAX_CPU_ISA).
bool dnnlHasBf16();
std::string dnnlCpuIsa();

// The two products of attention for B × H heads, with q [B, H, T, D], k and v [B, H, S, D] read through their
// strides (no copies): Scores writes scores [B, H, T, S] (contiguous) = scale · q kᵀ + mask, mask additive
// [maskBatch (0: none, 1 or B), 1, T, S] contiguous; Values writes out = scores v as [B, T, H, D] contiguous. The
// softmax between them is the caller's (LibTorch's, as accurate as Hugging Face's: oneDNN 2.6's own softmax moved
// the bundled model's largest NtP difference from Hugging Face from 9.7e-6 to 1.04e-5 on 100 functions). Returns
// false when this oneDNN cannot (the caller then computes everything with LibTorch).
enum class DnnlAttentionPhase { Scores, Values };
struct DnnlAttention {
    int64_t B = 0, H = 0, T = 0, S = 0, D = 0;
    int64_t q[4] = {}, k[4] = {}, v[4] = {}; // element strides of q, k, v
    int64_t maskBatch = 0;
    float scale = 1.0f;
};
bool dnnlAttention(const DnnlAttention& shape, DnnlAttentionPhase phase, const float* q, const float* k, const float* v,
                   const float* mask, float* scores, float* out);

// "oneDNN 2.6.3" ("" when the module is not loaded).
std::string dnnlVersionString();

} // namespace ascviz::model
