// The CPU thread setup of a process that runs models on the CPU (docs/performance.md, "Threads"): LibTorch's
// intra-op threads (OpenMP) and the threads of the BLAS that LibTorch's matrix products call. Debian's
// LibTorch 1.13 calls whatever libblas.so.3 the system selects; OpenBLAS's pthreads build then starts threads
// of its own beside LibTorch's OpenMP threads, and the two sets spin against each other on the same cores
// (issue 29: 23 s instead of 4.75 s on 2 cores). PyPI's LibTorch has MKL inside, on LibTorch's own threads.
#pragma once
#include <string>

namespace ascviz {

struct BlasThreads {
    std::string name;      // "OpenBLAS 0.3.21 ..." (openblas_get_config), or "" when not OpenBLAS
    std::string threading; // OpenBLAS's build: "pthreads", "OpenMP" or "sequential"; "" when not OpenBLAS
    int threads = 0;       // OpenBLAS's thread count now (0 when not OpenBLAS)
};

// The OpenBLAS this process calls, if any (found by its exported functions, dlsym).
BlasThreads blasThreads();

// Sets LibTorch's intra-op threads to `threads` and the BLAS's threads to what is fastest beside them
// (cpuThreadPolicy); returns the BLAS's state afterwards.
BlasThreads applyCpuThreads(int threads);

// The BLAS thread count applyCpuThreads picks for `threads` LibTorch threads and an OpenBLAS of `threading`.
int blasThreadsFor(int threads, const std::string& threading);

// "2 LibTorch intra-op threads; BLAS: OpenBLAS 0.3.21 ... (pthreads), 1 thread" for `threads` LibTorch threads.
std::string describeCpuThreads(int threads);

} // namespace ascviz
