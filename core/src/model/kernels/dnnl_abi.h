// The plain C table between the model room and its oneDNN module (libascviz_dnnl.so, built from dnnl_gemm.cpp).
//
// Why a module: a PyPI LibTorch (libtorch_cpu.so) carries its own oneDNN 3.x and exports, among its weak C++
// symbols, the std::call_once thunks of oneDNN's `gemm_info_t<...>::jit_init()`. Debian's libdnnl.so.2 (2.6.3)
// has the same mangled names, and the dynamic linker binds its references to the first definition in the global
// scope: LibTorch's. Debian's oneDNN then initialises LibTorch's copy of its gemm kernels instead of its own, and
// every primitive that runs `gemm:jit` fails ("could not execute a primitive") -- the float32 path on CPUs
// without AVX-512, where oneDNN 2.6 picks gemm:jit instead of brgemm (issue 39; LD_DEBUG=bindings shows the
// binding). The module is therefore loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND) where the LibTorch bundles
// a oneDNN: Debian's oneDNN, loaded as the module's dependency, resolves its own symbols first and LibTorch's
// oneDNN never sees Debian's. dnnl_module.cpp loads it; nothing else links libdnnl.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

// Bumped whenever the table changes; the loader refuses a module of another version.
#define ASCVIZ_DNNL_ABI_VERSION 1

struct AscvizDnnlAttention {
    int64_t B, H, T, S, D;
    int64_t q[4], k[4], v[4]; // element strides of q, k, v
    int64_t maskBatch;        // 0: no mask; 1 or B
    float scale;
};

// Every function returning int returns 0 on success and otherwise writes a one-line reason into err (errLen bytes,
// NUL-terminated): nothing a module does throws across this boundary.
struct AscvizDnnlApi {
    int abiVersion;
    const char* (*version)(); // "oneDNN 2.6.3"
    const char* (*cpuIsa)();  // oneDNN's name for the best ISA it uses here ("avx2", "avx512_core", ...)
    int (*hasBf16)();         // 1 when the CPU has AVX512-BF16 or AMX (as oneDNN sees it)
    void* (*packedNew)();     // the packed copies of one weight (dnnl_gemm.h, DnnlPackedWeights)
    void (*packedFree)(void* packed);
    int64_t (*packedBytes)(const void* packed);
    // y [rows, out] = act(x [rows, in] wᵀ + b); act: 0 none, 1 GELU tanh, 2 GELU erf, 3 ReLU (cpu_threads.h's DnnlAct).
    int (*matmul)(const float* x, int64_t rows, int64_t in, const float* w, int64_t out, const float* b, int act,
                  float* y, void* packed, int bf16, char* err, std::size_t errLen);
    // phase 0: scores, 1: values (dnnl_gemm.h); returns 1 when this oneDNN has no such path (nothing written).
    int (*attention)(const AscvizDnnlAttention* shape, int phase, const float* q, const float* k, const float* v,
                     const float* mask, float* scores, float* out, char* err, std::size_t errLen);
};

// The one exported symbol of the module.
typedef const AscvizDnnlApi* (*AscvizDnnlApiFn)();
#define ASCVIZ_DNNL_API_SYMBOL "ascviz_dnnl_api"
}
