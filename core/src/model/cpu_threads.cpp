#include "cpu_threads.h"

#include <ATen/Parallel.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace ascviz {

namespace {

// OpenBLAS's exported controls (cblas.h), looked up at run time: the BLAS is chosen by the system
// (update-alternatives), not at link time.
using GetConfig = char* (*)();
using GetInt = int (*)();
using SetInt = void (*)(int);

template <typename F> F symbol(const char* name)
{
    return reinterpret_cast<F>(::dlsym(RTLD_DEFAULT, name));
}

} // namespace

BlasThreads blasThreads()
{
    BlasThreads b;
    const auto config = symbol<GetConfig>("openblas_get_config");
    const auto parallel = symbol<GetInt>("openblas_get_parallel");
    const auto threads = symbol<GetInt>("openblas_get_num_threads");
    if (!config || !parallel || !threads)
        return b;
    b.name = config();
    switch (parallel()) {
    case 0:
        b.threading = "sequential";
        break;
    case 1:
        b.threading = "pthreads";
        break;
    default:
        b.threading = "OpenMP";
        break;
    }
    b.threads = threads();
    return b;
}

int blasThreadsFor(int threads, const std::string& threading)
{
    // ASCVIZ_BLAS_THREADS=N overrides the policy (for benchmarks comparing thread setups).
    if (const char* env = std::getenv("ASCVIZ_BLAS_THREADS"); env && std::atoi(env) > 0)
        return std::atoi(env);
    // OpenBLAS's own pthreads beside LibTorch's OpenMP threads oversubscribe the cores whenever LibTorch runs
    // more than one thread: both pools busy-wait between calls. One BLAS thread per LibTorch thread that calls
    // it keeps one runnable thread per core (measured: docs/performance.md). The OpenMP build shares
    // LibTorch's OpenMP runtime and follows its thread count.
    if (threading == "pthreads")
        return 1;
    return threads;
}

BlasThreads applyCpuThreads(int threads)
{
    at::set_num_threads(threads);
    const BlasThreads b = blasThreads();
    if (b.threading == "pthreads" || std::getenv("ASCVIZ_BLAS_THREADS")) {
        if (const auto set = symbol<SetInt>("openblas_set_num_threads"))
            set(blasThreadsFor(threads, b.threading));
    }
    return blasThreads();
}

std::string describeCpuThreads(int threads)
{
    const BlasThreads b = blasThreads();
    std::string s = std::to_string(threads) + " LibTorch intra-op thread" + (threads == 1 ? "" : "s");
    if (b.name.empty())
        return s + "; BLAS: LibTorch's own (on its threads)";
    const int n = blasThreadsFor(threads, b.threading);
    return s + "; BLAS: " + b.name + " (" + b.threading + "), " + std::to_string(n) + " thread" + (n == 1 ? "" : "s");
}

} // namespace ascviz
