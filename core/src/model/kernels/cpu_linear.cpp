#include "kernels/cpu_linear.h"
#include "settings/settings.h"

#include "kernels/dnnl_linear.h"
#include "kernels/lowp_linear.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/grad_mode.h>
#include <torch/version.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace ascviz::model {
namespace {

#if TORCH_VERSION_MAJOR >= 2
using Pointwise = at::Tensor(const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&, c10::string_view,
                             c10::List<std::optional<at::Scalar>>, std::optional<c10::string_view>);

// mkldnn::_linear_pointwise(X, W, B, attr, scalars, algorithm), registered when LibTorch is built with oneDNN.
// Its GELU epilogue is not used: fused, the bundled model's NtP moved 1.04e-5 from Hugging Face's on the 100
// benchmark functions (8.6e-6 with LibTorch's GELU after the product) for 4 % less CPU time.
const c10::TypedOperatorHandle<Pointwise>* pointwiseOp()
{
    static const std::optional<c10::TypedOperatorHandle<Pointwise>> op =
        []() -> std::optional<c10::TypedOperatorHandle<Pointwise>> {
        const auto h = c10::Dispatcher::singleton().findSchema({"mkldnn::_linear_pointwise", ""});
        if (!h)
            return std::nullopt;
        return h->typed<Pointwise>();
    }();
    return op ? &*op : nullptr;
}
#endif

bool compiledWithOneDnn()
{
#if TORCH_VERSION_MAJOR >= 2
    return at::hasMKLDNN() && pointwiseOp() != nullptr;
#else
    return at::hasMKLDNN();
#endif
}

} // namespace

namespace {

enum class LinearPath { Aten, TorchOneDnn, Dnnl };

LinearPath linearPath()
{
    static const LinearPath path = [] {
        // The default is the fastest path this build has, measured (docs/performance.md, "Linear layers"): the
        // system's oneDNN called directly (pre-packed weights) when CMake found it, else LibTorch's own oneDNN
        // operator on LibTorch 2.x, else LibTorch's BLAS. ASCVIZ_CPU_LINEAR=dnnl|onednn|aten overrides.
        const char* v = setting(Setting::CpuLinear);
        if (v && std::strcmp(v, "aten") == 0)
            return LinearPath::Aten;
        if (v && std::strcmp(v, "onednn") == 0)
            return compiledWithOneDnn() ? LinearPath::TorchOneDnn : LinearPath::Aten;
        if (dnnlLinearAvailable())
            return LinearPath::Dnnl;
#if TORCH_VERSION_MAJOR >= 2
        return compiledWithOneDnn() ? LinearPath::TorchOneDnn : LinearPath::Aten;
#else
        return LinearPath::Aten;
#endif
    }();
    return path;
}

} // namespace

bool oneDnnLinearEnabled()
{
    return linearPath() != LinearPath::Aten;
}

namespace {
// Whether x Wᵀ + b may leave at::linear at all: a float32 CPU product that records no graph (oneDNN's products
// have no autograd kernel; gradient x input, attribution/, takes at::linear).
bool offAtenApplies(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b)
{
    const bool recording =
        at::GradMode::is_enabled() && (x.requires_grad() || w.requires_grad() || (b.defined() && b.requires_grad()));
    return !recording && x.device().is_cpu() && x.scalar_type() == at::kFloat && w.scalar_type() == at::kFloat &&
           (!b.defined() || b.scalar_type() == at::kFloat);
}
} // namespace

void cpuPrepackLinear(const at::Tensor& w)
{
    if (linearPath() != LinearPath::Dnnl || !w.defined() || w.dim() != 2 || !w.device().is_cpu() ||
        w.scalar_type() != at::kFloat || !w.is_contiguous() || isLowpWeight(w) || w.size(1) == 0)
        return;
    const at::Tensor x = at::zeros({kDnnlMinRows, w.size(1)}, w.options());
    (void)dnnlLinear(x, w, {}); // packs w (within the budget); undefined when oneDNN cannot, then LibTorch computes
}

at::Tensor cpuAwareLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b)
{
    // Weights kept in the checkpoint's 16-bit dtype (LoadOptions::weights): float32 products on widened tiles.
    if (isLowpWeight(w) && x.device().is_cpu() && x.scalar_type() == at::kFloat)
        return lowpLinear(x, w, b);
    const int64_t in = x.size(-1);
    const int64_t rows = in > 0 ? x.numel() / in : 0;
    const LinearPath path = linearPath();
    const int64_t minRows = path == LinearPath::Dnnl ? kDnnlMinRows : kOneDnnMinRows;
    if (path == LinearPath::Aten || !offAtenApplies(x, w, b) || rows < minRows || rows == 0)
        return at::linear(x, w, b);
    auto outSizes = x.sizes().vec();
    outSizes.back() = w.size(0);
    const at::Tensor x2 = x.reshape({rows, in}).contiguous();
    if (path == LinearPath::Dnnl) {
        // A product oneDNN cannot create or execute on this CPU is LibTorch's (dnnlLinearFallbackNote says so).
        if (w.is_contiguous() && (!b.defined() || b.is_contiguous()))
            if (at::Tensor y = dnnlLinear(x2, w, b); y.defined())
                return y.view(outSizes);
        return at::linear(x, w, b);
    }
#if TORCH_VERSION_MAJOR >= 2
    if (!pointwiseOp())
        return at::linear(x, w, b);
    std::optional<at::Tensor> bias;
    if (b.defined())
        bias = b;
    return pointwiseOp()
        ->call(x2, w, bias, "none", c10::List<std::optional<at::Scalar>>(), std::nullopt)
        .view(outSizes);
#else
    // LibTorch 1.13: aten::mkldnn_linear takes its input in oneDNN's layout; the weights stay LibTorch's.
    return at::mkldnn_linear(x2.to_mkldnn(), w, b).to_dense().view(outSizes);
#endif
}

namespace {
bool fuseEnabled()
{
    static const bool fuse = [] {
        const char* v = setting(Setting::CpuFuse);
        return !(v && std::strcmp(v, "0") == 0);
    }();
    return fuse;
}
} // namespace

bool cpuFusionEnabled()
{
    return fuseEnabled();
}

at::Tensor cpuFusedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                             bool causal, double scale)
{
#if TORCH_VERSION_MAJOR >= 2
    // LibTorch 2.x computes attention with its fused scaled-dot-product kernel (decoder.cpp), measured against Hugging
    // Face with it. (The failures once seen here from the system oneDNN's gemm:jit were the symbol clash that
    // dnnl_abi.h describes, not this path's own.)
    (void)q, (void)k, (void)v, (void)mask, (void)causal, (void)scale;
    return {};
#else
    const bool recording = at::GradMode::is_enabled() && (q.requires_grad() || k.requires_grad() || v.requires_grad());
    if (!fuseEnabled() || recording || linearPath() != LinearPath::Dnnl || !q.device().is_cpu() || q.dim() != 4 ||
        k.dim() != 4 || v.dim() != 4 || q.scalar_type() != at::kFloat || k.scalar_type() != at::kFloat ||
        v.scalar_type() != at::kFloat || k.size(1) != q.size(1) || v.size(1) != q.size(1) || q.size(2) < 1 ||
        v.size(3) != q.size(3)) // latent attention's values are narrower than its keys
        return {};
    at::Tensor m = mask;
    const int64_t T = q.size(2), S = k.size(2);
    if (!m.defined() && causal && T > 1) {
        const auto longOpts = at::TensorOptions().dtype(at::kLong).device(q.device());
        const at::Tensor row = at::arange(S - T, S, longOpts), col = at::arange(0, S, longOpts);
        m = (row.unsqueeze(1) >= col.unsqueeze(0)).unsqueeze(0).unsqueeze(0); // [1, 1, T, S]
    }
    return dnnlAttend(q, k, v, m, scale);
#endif
}

std::optional<at::Tensor> cpuFusedLinearActivation(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                                                   DnnlAct act)
{
    bool fuse = fuseEnabled();
#if TORCH_VERSION_MAJOR >= 2
    // Measured on 100 functions against Hugging Face: GELU fused in oneDNN moved the PyTorch build's largest NtP
    // difference to 1.04e-5 (9.7e-6 with LibTorch 2.11's GELU after the product); on 1.13 it stays at 9.7e-6.
    if (act == DnnlAct::GeluTanh || act == DnnlAct::GeluErf)
        fuse = false;
#endif
    const int64_t in = x.size(-1);
    const int64_t rows = in > 0 ? x.numel() / in : 0;
    if (!fuse || act == DnnlAct::None || linearPath() != LinearPath::Dnnl || !offAtenApplies(x, w, b) ||
        (b.defined() && !b.is_contiguous()) || !w.is_contiguous() || rows < kDnnlMinRows)
        return std::nullopt;
    auto outSizes = x.sizes().vec();
    outSizes.back() = w.size(0);
    const at::Tensor y = dnnlLinear(x.reshape({rows, in}).contiguous(), w, b, act);
    if (!y.defined())
        return std::nullopt; // the caller computes the product and the activation apart
    return y.view(outSizes);
}

std::vector<float> cpuLinearOnArrays(const std::vector<float>& x, const std::vector<float>& w,
                                     const std::vector<float>& b, int64_t batch, int64_t rows, int64_t in, int64_t out)
{
    const auto f32 = at::TensorOptions().dtype(at::kFloat);
    // from_blob does not copy: clone so that LibTorch owns what it computes with.
    const at::Tensor xt = at::from_blob(const_cast<float*>(x.data()), {batch, rows, in}, f32).clone();
    const at::Tensor wt = at::from_blob(const_cast<float*>(w.data()), {out, in}, f32).clone();
    const at::Tensor bt = b.empty() ? at::Tensor() : at::from_blob(const_cast<float*>(b.data()), {out}, f32).clone();
    const at::Tensor y = cpuAwareLinear(xt, wt, bt).contiguous();
    if (y.sizes() != at::IntArrayRef({batch, rows, out}))
        throw std::logic_error("cpuAwareLinear returned the wrong shape");
    return std::vector<float>(y.data_ptr<float>(), y.data_ptr<float>() + y.numel());
}

std::vector<float> cpuLinearActivationOnArrays(const std::vector<float>& x, const std::vector<float>& w,
                                               const std::vector<float>& b, int64_t batch, int64_t rows, int64_t in,
                                               int64_t out, DnnlAct act)
{
    const auto f32 = at::TensorOptions().dtype(at::kFloat);
    const at::Tensor xt = at::from_blob(const_cast<float*>(x.data()), {batch, rows, in}, f32).clone();
    const at::Tensor wt = at::from_blob(const_cast<float*>(w.data()), {out, in}, f32).clone();
    const at::Tensor bt = b.empty() ? at::Tensor() : at::from_blob(const_cast<float*>(b.data()), {out}, f32).clone();
    at::Tensor y;
    if (auto fused = cpuFusedLinearActivation(xt, wt, bt, act)) {
        y = *fused;
    } else {
        y = cpuAwareLinear(xt, wt, bt);
        if (act == DnnlAct::GeluTanh)
            y = at::gelu(y, "tanh");
        else if (act == DnnlAct::GeluErf)
            y = at::gelu(y);
        else if (act == DnnlAct::Relu)
            y = at::relu(y);
    }
    y = y.contiguous();
    return std::vector<float>(y.data_ptr<float>(), y.data_ptr<float>() + y.numel());
}

int64_t cpuPackedWeightBytes()
{
    return dnnlPackedBytes();
}

std::string cpuLinearDescription()
{
    if (linearPath() == LinearPath::Dnnl)
        return dnnlLinearDescription() + ", from " + std::to_string(kDnnlMinRows) + " rows" + dnnlLinearFallbackNote();
    // Why the system oneDNN is not used, unless ASCVIZ_CPU_LINEAR chose another path.
    const char* env = setting(Setting::CpuLinear);
    const std::string note = env && *env ? std::string(" (ASCVIZ_CPU_LINEAR=") + env + ")"
                                         : " (the system oneDNN is not used: " + dnnlLinearUnavailableReason() + ")";
    if (linearPath() == LinearPath::Aten)
        return "LibTorch's BLAS" + note;
#if TORCH_VERSION_MAJOR >= 2
    return "oneDNN (mkldnn::_linear_pointwise) from " + std::to_string(kOneDnnMinRows) + " rows" + note;
#else
    return "oneDNN (aten::mkldnn_linear) from " + std::to_string(kOneDnnMinRows) + " rows" + note;
#endif
}

} // namespace ascviz::model
