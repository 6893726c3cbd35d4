// Loads the oneDNN module (libascviz_dnnl.so; why a module: dnnl_abi.h), checks it on a few products whose
// results are computed here by hand, and forwards dnnl_gemm.h's calls to it. Torch-free.
#if ASCVIZ_HAVE_DNNL
#include "kernels/dnnl_abi.h"
#include "kernels/dnnl_gemm.h"
#include "settings/settings.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace fs = std::filesystem;

namespace ascviz::model {
namespace {

struct Module {
    const AscvizDnnlApi* api = nullptr;
    std::string why; // why api is null
};

// Where the module may be: $ASCVIZ_DNNL_MODULE alone when set; else beside the object holding this code (the
// Python extension's folder), in <that folder>/<bin → lib/ascviz> (an installed executable), and where the build
// tree made it.
std::vector<fs::path> candidates()
{
    if (const char* env = setting(Setting::DnnlModule))
        return {fs::path(env)};
    std::vector<fs::path> out;
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&candidates), &info) && info.dli_fname) {
        std::error_code ec;
        const fs::path self = fs::canonical(fs::path(info.dli_fname), ec);
        if (!ec) {
            out.push_back(self.parent_path() / ASCVIZ_DNNL_MODULE_NAME);
            out.push_back(
                (self.parent_path() / ASCVIZ_DNNL_MODULE_INSTALL_REL / ASCVIZ_DNNL_MODULE_NAME).lexically_normal());
        }
    }
    out.push_back(fs::path(ASCVIZ_DNNL_MODULE_BUILD_PATH));
    return out;
}

// act(x wᵀ + b) by hand.
std::vector<float> reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                             int64_t rows, int64_t in, int64_t out, DnnlAct act)
{
    std::vector<float> y(static_cast<std::size_t>(rows * out));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t o = 0; o < out; ++o) {
            double s = b.empty() ? 0.0 : b[o];
            for (int64_t i = 0; i < in; ++i)
                s += static_cast<double>(x[r * in + i]) * w[o * in + i];
            if (act == DnnlAct::Relu)
                s = s > 0 ? s : 0;
            else if (act == DnnlAct::GeluErf)
                s = 0.5 * s * (1 + std::erf(s / std::sqrt(2.0)));
            else if (act == DnnlAct::GeluTanh)
                s = 0.5 * s * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (s + 0.044715 * s * s * s)));
            y[r * out + o] = static_cast<float>(s);
        }
    return y;
}

// The products the model room asks for, on this CPU: one and several rows, packed and in place, with and without
// bias and epilogue. "" when all equal the hand-computed results.
std::string selfTest(const AscvizDnnlApi& api)
{
    const int64_t in = 72, out = 40;
    std::vector<float> w(in * out), b(out);
    for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = static_cast<float>(static_cast<int>((i * 7919) % 23) - 11) / 16.0f;
    for (std::size_t i = 0; i < b.size(); ++i)
        b[i] = static_cast<float>(static_cast<int>(i % 5) - 2) / 4.0f;
    void* packed = api.packedNew();
    std::string why;
    for (const int64_t rows : {int64_t{1}, int64_t{9}, int64_t{33}}) {
        std::vector<float> x(rows * in);
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = static_cast<float>(static_cast<int>((i * 104729) % 19) - 9) / 8.0f;
        for (const DnnlAct act : {DnnlAct::None, DnnlAct::GeluTanh, DnnlAct::Relu})
            for (void* p : {packed, static_cast<void*>(nullptr)}) {
                const bool bias = act != DnnlAct::Relu;
                const std::vector<float> want = reference(x, w, bias ? b : std::vector<float>{}, rows, in, out, act);
                std::vector<float> y(want.size(), std::nanf(""));
                char err[512] = {0};
                if (api.matmul(x.data(), rows, in, w.data(), out, bias ? b.data() : nullptr, static_cast<int>(act),
                               y.data(), p, 0, err, sizeof err) != 0) {
                    why = err;
                } else {
                    for (std::size_t i = 0; i < y.size() && why.empty(); ++i)
                        if (!(std::fabs(y[i] - want[i]) <= 1e-4f * (1.0f + std::fabs(want[i]))))
                            why = "a " + std::to_string(rows) + "-row product differs from the hand-computed one (" +
                                  std::to_string(y[i]) + " instead of " + std::to_string(want[i]) + ")";
                }
                if (!why.empty()) {
                    api.packedFree(packed);
                    return why;
                }
            }
    }
    api.packedFree(packed);
    return {};
}

Module load()
{
    // RTLD_DEEPBIND where the LibTorch carries its own oneDNN (dnnl_abi.h); sanitizer runtimes refuse it, and
    // Debian's LibTorch links the very same libdnnl, so those builds load it plainly.
    const int flags = RTLD_NOW | RTLD_LOCAL | (ASCVIZ_DNNL_DEEPBIND ? RTLD_DEEPBIND : 0);
    std::string tried;
    for (const fs::path& path : candidates()) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            tried += (tried.empty() ? "" : ", ") + path.string();
            continue;
        }
        void* handle = ::dlopen(path.c_str(), flags);
        if (!handle) {
            const char* e = ::dlerror();
            return {nullptr, "cannot load " + path.string() + ": " + (e ? e : "unknown error")};
        }
        auto fn = reinterpret_cast<AscvizDnnlApiFn>(::dlsym(handle, ASCVIZ_DNNL_API_SYMBOL));
        const AscvizDnnlApi* api = fn ? fn() : nullptr;
        if (!api || api->abiVersion != ASCVIZ_DNNL_ABI_VERSION)
            return {nullptr, path.string() + " is not this build's oneDNN module"};
        // Kept loaded for the life of the process (its primitives and packed weights live in it).
        if (std::string why = selfTest(*api); !why.empty())
            return {nullptr, std::string(api->version()) + " (" + api->cpuIsa() + ") failed its self-test: " + why};
        return {api, {}};
    }
    return {nullptr, "the oneDNN module was not found (" + tried + ")"};
}

const Module& module()
{
    static const Module m = load();
    return m;
}

} // namespace

bool dnnlAvailable()
{
    return module().api != nullptr;
}

std::string dnnlUnavailableReason()
{
    return module().why;
}

DnnlPackedWeights::DnnlPackedWeights() : m_handle(dnnlAvailable() ? module().api->packedNew() : nullptr)
{
}

DnnlPackedWeights::~DnnlPackedWeights()
{
    if (m_handle)
        module().api->packedFree(m_handle);
}

int64_t DnnlPackedWeights::bytes() const
{
    return m_handle ? module().api->packedBytes(m_handle) : 0;
}

bool dnnlMatmul(const float* x, int64_t rows, int64_t in, const float* w, int64_t out, const float* b, DnnlAct act,
                float* y, DnnlPackedWeights* packed, bool bf16, std::string* why)
{
    const AscvizDnnlApi* api = module().api;
    if (!api) {
        if (why)
            *why = module().why;
        return false;
    }
    char err[512] = {0};
    void* handle = packed ? packed->handle() : nullptr;
    if (api->matmul(x, rows, in, w, out, b, static_cast<int>(act), y, handle, bf16 && handle ? 1 : 0, err,
                    sizeof err) == 0)
        return true;
    if (why)
        *why = err;
    return false;
}

bool dnnlHasBf16()
{
    return dnnlAvailable() && module().api->hasBf16() != 0;
}

std::string dnnlCpuIsa()
{
    return dnnlAvailable() ? module().api->cpuIsa() : "unknown (no oneDNN module)";
}

bool dnnlAttention(const DnnlAttention& shape, DnnlAttentionPhase phase, const float* q, const float* k, const float* v,
                   const float* mask, float* scores, float* out)
{
    if (!dnnlAvailable())
        return false;
    AscvizDnnlAttention a{};
    a.B = shape.B, a.H = shape.H, a.T = shape.T, a.S = shape.S, a.D = shape.D;
    for (int i = 0; i < 4; ++i)
        a.q[i] = shape.q[i], a.k[i] = shape.k[i], a.v[i] = shape.v[i];
    a.maskBatch = shape.maskBatch;
    a.scale = shape.scale;
    char err[512] = {0};
    return module().api->attention(&a, phase == DnnlAttentionPhase::Scores ? 0 : 1, q, k, v, mask, scores, out, err,
                                   sizeof err) == 0;
}

std::string dnnlVersionString()
{
    return dnnlAvailable() ? module().api->version() : "";
}

} // namespace ascviz::model
#endif // ASCVIZ_HAVE_DNNL
