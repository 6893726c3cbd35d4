// The CPU thread setup of a process that runs models on the CPU (docs/performance.md, "Threads"): LibTorch's
// intra-op threads (OpenMP) and the threads of the BLAS that LibTorch's matrix products call. Debian's
// LibTorch 1.13 calls whatever libblas.so.3 the system selects; OpenBLAS's pthreads build then starts threads
// of its own beside LibTorch's OpenMP threads, and the two sets spin against each other on the same cores
// (issue 29: 23 s instead of 4.75 s on 2 cores). PyPI's LibTorch has MKL inside, on LibTorch's own threads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ascviz {

struct BlasThreads {
    std::string name;      // "OpenBLAS 0.3.21 ..." (openblas_get_config), or "" when not OpenBLAS
    std::string threading; // OpenBLAS's build: "pthreads", "OpenMP" or "sequential"; "" when not OpenBLAS
    int threads = 0;       // OpenBLAS's thread count now (0 when not OpenBLAS)
};

// The OpenBLAS this process calls, if any (found by its exported functions, dlsym).
BlasThreads blasThreads();

// How `threads` CPU threads are split between LibTorch's intra-op pool and the BLAS's own pool.
struct CpuThreadPlan {
    int torch = 1; // at::set_num_threads
    int blas = 0;  // openblas_set_num_threads (0: the BLAS runs on LibTorch's threads, nothing to set)
};
// With OpenBLAS's pthreads build the matrix products (most of the work) run on OpenBLAS's threads and LibTorch
// keeps one thread: two pools of `threads` each oversubscribe the cores (both spin between calls), and
// LibTorch's own parallel operations gain less than its spinning costs (measured on 2 cores, 100 functions,
// bundled model: torch 1 + BLAS 2: 5.4 s; torch 2 + BLAS 1: 9.4 s; 1 + 1: 7.7 s; 2 + 2: 25.5 s). Otherwise
// LibTorch gets every thread. `oneDnnLinears`: the linear layers run on oneDNN (cpu_linear.h), which computes on
// LibTorch's OpenMP threads; LibTorch then gets every thread and OpenBLAS (left with attention's small products
// and the matrix-vector products of generation) one. ASCVIZ_TORCH_THREADS / ASCVIZ_BLAS_THREADS override the
// plan (benchmarks).
CpuThreadPlan planCpuThreads(int threads, const std::string& threading, bool oneDnnLinears = false);

// Gives the calling thread the process's CPU thread setting (OpenMP keeps the count per thread), once per thread
// and per applyCpuThreads: every entry point of the model room calls it.
void prepareCpuThread();

// Applies planCpuThreads(threads, this process's BLAS, whether its linear layers run on oneDNN) and returns the
// plan applied.
CpuThreadPlan applyCpuThreads(int threads);

// "2 LibTorch intra-op threads; BLAS: OpenBLAS 0.3.21 ... (pthreads), 1 thread; linear layers: oneDNN ..." for
// `threads` CPU threads.
std::string describeCpuThreads(int threads);

namespace model {
// An activation the CPU's direct oneDNN path can run as a linear layer's epilogue (dnnl_linear.h).
enum class DnnlAct { None, GeluTanh, GeluErf, Relu };
// Whether float32 linear layers on the CPU go through oneDNN in this process (cpu_linear.h): LibTorch was built
// with it, and the build default (LibTorch 2.x: on; 1.13: off) or ASCVIZ_CPU_LINEAR=onednn|aten says so.
bool oneDnnLinearEnabled();
// What computes the CPU's float32 linear layers, for --version: "oneDNN (...) from 16 rows" or "LibTorch's BLAS".
std::string cpuLinearDescription();
// x Wᵀ + b through the CPU's linear-layer path (cpu_linear.h) on plain float32 arrays, for tests without torch
// headers: x [batch, rows, in], w [out, in], b [out] (empty: none), all row-major; returns [batch, rows, out].
std::vector<float> cpuLinearOnArrays(const std::vector<float>& x, const std::vector<float>& w,
                                     const std::vector<float>& b, int64_t batch, int64_t rows, int64_t in, int64_t out);
// act(x Wᵀ + b) through cpuFusedLinearActivation when it applies, else cpuAwareLinear and LibTorch's activation
// (GELU tanh/erf, ReLU): the same arrays as cpuLinearOnArrays, for tests.
std::vector<float> cpuLinearActivationOnArrays(const std::vector<float>& x, const std::vector<float>& w,
                                               const std::vector<float>& b, int64_t batch, int64_t rows, int64_t in,
                                               int64_t out, DnnlAct act);
// Bytes of pre-packed weights the direct oneDNN path holds now (0 without it).
int64_t cpuPackedWeightBytes();
} // namespace model

} // namespace ascviz
