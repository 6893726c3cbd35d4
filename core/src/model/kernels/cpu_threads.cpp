#include "kernels/cpu_threads.h"

#include <ATen/Parallel.h>

#include <atomic>

#include <dlfcn.h>

#include <algorithm>
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

int envCount(const char* name)
{
    const char* v = std::getenv(name);
    const int n = v ? std::atoi(v) : 0;
    return n > 0 ? n : 0;
}

std::string plural(int n, const std::string& word)
{
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
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

CpuThreadPlan planCpuThreads(int threads, const std::string& threading, bool oneDnnLinears)
{
    threads = std::max(1, threads);
    CpuThreadPlan p;
    if (threading == "pthreads" && oneDnnLinears) {
        p.torch = threads;
        p.blas = 1;
    } else if (threading == "pthreads") {
        p.torch = 1;
        p.blas = threads;
    } else {
        p.torch = threads;
        p.blas = 0;
    }
    if (const int t = envCount("ASCVIZ_TORCH_THREADS"))
        p.torch = t;
    if (const int b = envCount("ASCVIZ_BLAS_THREADS"))
        p.blas = b;
    return p;
}

namespace {
std::atomic<int> g_threadSetting{0}; // bumped by every applyCpuThreads
} // namespace

void prepareCpuThread()
{
    // at::init_num_threads calls at::set_num_threads, which on Debian's LibTorch 1.13 also destroys and recreates
    // LibTorch's pthreadpool (its new threads spin before they sleep): once per thread and setting, not per call
    // (100 one-text calls on 2 cores: 4.7 s with a call each time).
    thread_local int seen = -1;
    const int now = g_threadSetting.load();
    if (seen != now) {
        at::init_num_threads();
        seen = now;
    }
}

CpuThreadPlan applyCpuThreads(int threads)
{
    const CpuThreadPlan p = planCpuThreads(threads, blasThreads().threading, model::oneDnnLinearEnabled());
    at::set_num_threads(p.torch);
    g_threadSetting.fetch_add(1);
    if (p.blas > 0) {
        if (const auto set = symbol<SetInt>("openblas_set_num_threads"))
            set(p.blas);
    }
    return p;
}

std::string describeCpuThreads(int threads)
{
    const BlasThreads b = blasThreads();
    const CpuThreadPlan p = planCpuThreads(threads, b.threading, model::oneDnnLinearEnabled());
    std::string s = plural(p.torch, "LibTorch intra-op thread");
    if (b.name.empty())
        s += "; BLAS: LibTorch's own (on its threads)";
    else
        s += "; BLAS: " + b.name + " (" + b.threading + "), " + plural(p.blas > 0 ? p.blas : b.threads, "thread");
    return s + "; float32 linear layers: " + model::cpuLinearDescription();
}

} // namespace ascviz
