#include "kernels/lowp_linear.h"
#include "settings/settings.h"

#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace ascviz::model {
namespace {

// Output rows widened at a time on the tile path: about 8 MiB of float32 per tile, 64 to 1024 rows. Every tile's
// product reads all of x again, so small tiles cost more than their cache locality gains: on a 2048-wide qwen2
// (400 tokens, 2 threads) tiles of 128 rows took 28.6 s of CPU, tiles of 1024 rows 13.6 s (float32 weights: 11.3 s).
int64_t defaultTileRows(int64_t in)
{
    // ASCVIZ_LOWP_TILE_ROWS overrides (benchmarks).
    static const int64_t forced = [] {
        const char* v = setting(Setting::LowpTileRows);
        return v ? std::max<int64_t>(0, std::atoll(v)) : int64_t(0);
    }();
    if (forced > 0)
        return forced;
    const int64_t rows = (int64_t(8) << 20) / (4 * std::max<int64_t>(1, in));
    return std::clamp<int64_t>(rows, 64, 1024);
}

bool cpuHasKernelIsa()
{
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    }();
    return has;
}

#define ASCVIZ_LOWP_TARGET __attribute__((target("avx2,fma,f16c")))

ASCVIZ_LOWP_TARGET inline float hsum(__m256 v)
{
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 s2 = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 0x55)));
}

template <bool Fp16> ASCVIZ_LOWP_TARGET inline __m256 widen8(const uint16_t* p)
{
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if constexpr (Fp16)
        return _mm256_cvtph_ps(h);
    else
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

template <bool Fp16> ASCVIZ_LOWP_TARGET inline float widen1(uint16_t v)
{
    if constexpr (Fp16)
        return _cvtsh_ss(v);
    else {
        const uint32_t bits = static_cast<uint32_t>(v) << 16;
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }
}

// y[r, o] for r < MB rows of x (row stride `in`) and output rows [o0, o1): each weight row is read once for the MB
// rows, 16 columns per step in two accumulators a row, the tail of 1..15 columns in scalar.
template <bool Fp16, int MB>
ASCVIZ_LOWP_TARGET void kernelBlock(const float* x, const uint16_t* w, int64_t in, int64_t o0, int64_t o1,
                                    const float* bias, float* y, int64_t ldy)
{
    const int64_t in16 = in & ~int64_t(15);
    const int64_t in8 = in & ~int64_t(7);
    for (int64_t o = o0; o < o1; ++o) {
        const uint16_t* wr = w + o * in;
        __m256 acc0[MB], acc1[MB];
        for (int r = 0; r < MB; ++r)
            acc0[r] = acc1[r] = _mm256_setzero_ps();
        int64_t k = 0;
        for (; k < in16; k += 16) {
            // 1 KiB ahead: on the AVX2 machine of docs/performance.md, 0.5B bf16 generation took 0.91x the time
            // without it (512 B ahead: 0.97x, 2 KiB: 0.93x). Past a row's end it reads the next row, read next.
            _mm_prefetch(reinterpret_cast<const char*>(wr + k) + 1024, _MM_HINT_T0);
            const __m256 w0 = widen8<Fp16>(wr + k);
            const __m256 w1 = widen8<Fp16>(wr + k + 8);
            for (int r = 0; r < MB; ++r) {
                acc0[r] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + r * in + k), acc0[r]);
                acc1[r] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(x + r * in + k + 8), acc1[r]);
            }
        }
        for (; k < in8; k += 8) {
            const __m256 w0 = widen8<Fp16>(wr + k);
            for (int r = 0; r < MB; ++r)
                acc0[r] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + r * in + k), acc0[r]);
        }
        for (int r = 0; r < MB; ++r) {
            float s = hsum(_mm256_add_ps(acc0[r], acc1[r]));
            for (int64_t t = k; t < in; ++t)
                s += widen1<Fp16>(wr[t]) * x[r * in + t];
            y[r * ldy + o] = bias ? s + bias[o] : s;
        }
    }
}

template <bool Fp16>
void kernelRows(const float* x, int64_t rows, const uint16_t* w, int64_t in, int64_t o0, int64_t o1, const float* bias,
                float* y, int64_t ldy)
{
    for (int64_t r0 = 0; r0 < rows; r0 += 4) {
        const float* xr = x + r0 * in;
        float* yr = y + r0 * ldy;
        switch (std::min<int64_t>(4, rows - r0)) {
        case 1:
            kernelBlock<Fp16, 1>(xr, w, in, o0, o1, bias, yr, ldy);
            break;
        case 2:
            kernelBlock<Fp16, 2>(xr, w, in, o0, o1, bias, yr, ldy);
            break;
        case 3:
            kernelBlock<Fp16, 3>(xr, w, in, o0, o1, bias, yr, ldy);
            break;
        default:
            kernelBlock<Fp16, 4>(xr, w, in, o0, o1, bias, yr, ldy);
            break;
        }
    }
}

void checkOperands(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b)
{
    if (x.dim() != 2 || w.dim() != 2 || x.size(1) != w.size(1) || !x.is_contiguous() || !w.is_contiguous() ||
        x.scalar_type() != at::kFloat || !isLowpWeight(w) ||
        (b.defined() && (b.scalar_type() != at::kFloat || !b.is_contiguous() || b.numel() != w.size(0))))
        throw std::logic_error("lowp linear: expects contiguous float32 x [rows, in], 16-bit w [out, in], float32 b");
}

} // namespace

bool isLowpWeight(const at::Tensor& w)
{
    return w.defined() && w.device().is_cpu() && (w.scalar_type() == at::kBFloat16 || w.scalar_type() == at::kHalf);
}

bool lowpKernelAvailable()
{
    return cpuHasKernelIsa();
}

at::Tensor lowpKernelLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b)
{
    checkOperands(x, w, b);
    if (!cpuHasKernelIsa())
        throw std::logic_error("the 16-bit weight kernel needs AVX2, FMA and F16C");
    const int64_t rows = x.size(0), in = x.size(1), out = w.size(0);
    at::Tensor y = at::empty({rows, out}, x.options());
    const float* xp = x.data_ptr<float>();
    const auto* wp = reinterpret_cast<const uint16_t*>(w.data_ptr());
    const float* bp = b.defined() ? b.data_ptr<float>() : nullptr;
    float* yp = y.data_ptr<float>();
    const bool fp16 = w.scalar_type() == at::kHalf;
    // Grain: enough rows that a thread's share is worth waking it for (about 256 KiB of weights).
    const int64_t grain = std::max<int64_t>(16, (int64_t(128) << 10) / std::max<int64_t>(1, in));
    at::parallel_for(0, out, grain, [&](int64_t o0, int64_t o1) {
        if (fp16)
            kernelRows<true>(xp, rows, wp, in, o0, o1, bp, yp, out);
        else
            kernelRows<false>(xp, rows, wp, in, o0, o1, bp, yp, out);
    });
    return y;
}

at::Tensor lowpTiledLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, int64_t tileRows)
{
    checkOperands(x, w, b);
    const int64_t rows = x.size(0), in = x.size(1), out = w.size(0);
    const int64_t tile = tileRows > 0 ? tileRows : defaultTileRows(in);
    const int64_t tiles = (out + tile - 1) / tile;
    at::Tensor y = at::empty({rows, out}, x.options());
    // Tiles in parallel, each thread with its own float32 scratch; the products inside run on one thread each (a
    // nested at::parallel_for runs inline, and the BLAS sees an active parallel region).
    at::parallel_for(0, tiles, 1, [&](int64_t t0, int64_t t1) {
        at::Tensor scratch = at::empty({tile, in}, x.options());
        for (int64_t t = t0; t < t1; ++t) {
            const int64_t o0 = t * tile, n = std::min(tile, out - o0);
            at::Tensor s = scratch.narrow(0, 0, n);
            s.copy_(w.narrow(0, o0, n));
            at::Tensor ySlice = y.narrow(1, o0, n);
            if (b.defined())
                at::addmm_out(ySlice, b.narrow(0, o0, n).unsqueeze(0).expand({rows, n}), x, s.t());
            else
                at::mm_out(ySlice, x, s.t());
        }
    });
    return y;
}

at::Tensor lowpLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b)
{
    const bool recording =
        at::GradMode::is_enabled() && (x.requires_grad() || w.requires_grad() || (b.defined() && b.requires_grad()));
    if (recording || !w.is_contiguous())
        return at::linear(x, w.to(x.scalar_type()), b.defined() ? b.to(x.scalar_type()) : b);
    const int64_t in = x.size(-1);
    const int64_t rows = in > 0 ? x.numel() / in : 0;
    auto outSizes = x.sizes().vec();
    outSizes.back() = w.size(0);
    if (rows == 0)
        return at::empty(outSizes, x.options());
    const at::Tensor x2 = x.reshape({rows, in}).contiguous();
    const at::Tensor b2 = b.defined() ? b.to(at::kFloat).contiguous() : b;
    at::Tensor y =
        rows <= kLowpKernelMaxRows && cpuHasKernelIsa() ? lowpKernelLinear(x2, w, b2) : lowpTiledLinear(x2, w, b2);
    return y.view(outSizes);
}

std::string lowpLinearDescription()
{
    std::string s = "16-bit weights widened to float32 per tile of 64-1024 output rows";
    if (cpuHasKernelIsa())
        s += "; AVX2 kernel up to " + std::to_string(kLowpKernelMaxRows) + " rows";
    return s;
}

} // namespace ascviz::model
