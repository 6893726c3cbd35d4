#include "decoder/decoder.h"

#include "kernels/cpu_linear.h"
#include "kernels/fused_head.h"

#include "ascviz/base/error.h"
#include "ascviz/model/observer.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace ascviz::model {

at::Tensor Linear::operator()(const at::Tensor& x) const
{
    return cpuAwareLinear(x, w, b);
}

Decoder::Decoder(ArchSpec spec, DecoderWeights weights, at::Device device, at::ScalarType dtype)
    : m_spec(std::move(spec)), m_w(std::move(weights)), m_device(device), m_dtype(dtype)
{
    if (m_spec.rope != RopeKind::None) {
        // As Hugging Face: inv_freq = 1 / theta^(arange(0, dim, 2) / dim), in float32.
        const auto f32 = at::TensorOptions().dtype(at::kFloat).device(m_device);
        const auto exponents =
            at::arange(0, m_spec.rotaryDim, 2, at::TensorOptions().dtype(at::kLong).device(m_device)).to(at::kFloat) /
            static_cast<double>(m_spec.rotaryDim);
        m_ropeExponents = exponents;
        // Dynamic: at load (and for passes within max_position_embeddings) transformers computes its formula at
        // seq_len = max_position_embeddings in Python floats, which gives theta or a neighbour of it.
        double theta = m_spec.ropeTheta;
        if (m_spec.ropeScaling == ArchSpec::RopeScaling::Dynamic) {
            const double f = m_spec.ropeFactor, orig = static_cast<double>(m_spec.ropeOriginalContext);
            const auto d = static_cast<double>(m_spec.rotaryDim);
            theta = theta * std::pow(f * orig / orig - (f - 1), d / (d - 2));
        }
        const at::Tensor powers = at::pow(at::scalar_tensor(theta, f32), exponents);
        if (m_spec.ropeScaling == ArchSpec::RopeScaling::LongRope) {
            // transformers' _compute_longrope_parameters: 1 / (ext_factors * base ** exponents).
            auto factors = [&](const std::vector<double>& f) {
                return at::tensor(std::vector<float>(f.begin(), f.end()), at::kFloat).to(m_device);
            };
            m_invFreq = 1.0 / (factors(m_spec.ropeShortFactor) * powers);
            m_invFreqLong = 1.0 / (factors(m_spec.ropeLongFactor) * powers);
        } else {
            m_invFreq = scaledInvFreq(1.0 / powers, exponents);
        }
        if (m_spec.ropeLinearFactor != 1.0) // as transformers' linear type: inv_freq /= factor
            m_invFreq = m_invFreq / m_spec.ropeLinearFactor;
        if (m_spec.ropeLocalTheta > 0)
            m_invFreqLocal = 1.0 / at::pow(at::scalar_tensor(m_spec.ropeLocalTheta, f32), exponents);
    }
}

bool Decoder::longRope(int64_t seqLen) const
{
    return m_invFreqLong.defined() && seqLen > m_spec.ropeOriginalContext;
}

int64_t Decoder::ropeVariant(int64_t seqLen) const
{
    if (seqLen <= m_spec.ropeOriginalContext)
        return 0;
    if (m_invFreqLong.defined())
        return 1;
    return m_spec.ropeScaling == ArchSpec::RopeScaling::Dynamic ? seqLen : 0;
}

at::Tensor Decoder::invFreqFor(int64_t seqLen) const
{
    if (longRope(seqLen))
        return m_invFreqLong;
    if (m_spec.ropeScaling != ArchSpec::RopeScaling::Dynamic || seqLen <= m_spec.ropeOriginalContext)
        return m_invFreq;
    // transformers' _compute_dynamic_ntk_parameters with seq_len = max(position_ids) + 1, a tensor: the new base
    // in float32 tensor arithmetic, then 1 / base ** (arange(0, d, 2) / d).
    const auto d = static_cast<double>(m_spec.rotaryDim);
    const double f = m_spec.ropeFactor;
    const at::Tensor s = at::scalar_tensor(seqLen, at::TensorOptions().dtype(at::kLong).device(m_device));
    const at::Tensor base =
        m_spec.ropeTheta * at::pow(s * f / static_cast<double>(m_spec.ropeOriginalContext) - (f - 1), d / (d - 2));
    return 1.0 / at::pow(base, m_ropeExponents);
}

bool Decoder::ropeChangesAt(int64_t seqLen) const
{
    return longRope(seqLen) && !longRope(seqLen - 1);
}

// The rope types that rescale frequencies, computed as transformers' _compute_llama3_parameters and
// _compute_yarn_parameters do (float32 tensors, the same formulas).
at::Tensor Decoder::scaledInvFreq(const at::Tensor& invFreq, const at::Tensor& exponents) const
{
    using RS = ArchSpec::RopeScaling;
    const double factor = m_spec.ropeFactor;
    const auto old = static_cast<double>(m_spec.ropeOriginalContext);
    if (m_spec.ropeScaling == RS::Llama3) {
        const double lowWavelen = old / m_spec.ropeLowFreqFactor, highWavelen = old / m_spec.ropeHighFreqFactor;
        const at::Tensor wavelen = 2.0 * M_PI / invFreq;
        at::Tensor llama = at::where(wavelen > lowWavelen, invFreq / factor, invFreq);
        const at::Tensor smooth =
            (old / wavelen - m_spec.ropeLowFreqFactor) / (m_spec.ropeHighFreqFactor - m_spec.ropeLowFreqFactor);
        const at::Tensor smoothed = (1 - smooth) * llama / factor + smooth * llama;
        const at::Tensor medium = (wavelen < highWavelen).logical_not() & (wavelen > lowWavelen).logical_not();
        return at::where(medium, smoothed, llama);
    }
    if (m_spec.ropeScaling == RS::Yarn) {
        const auto dim = static_cast<double>(m_spec.rotaryDim);
        const double base = m_spec.ropeTheta;
        auto correctionDim = [&](double rotations) {
            return (dim * std::log(old / (rotations * 2 * M_PI))) / (2 * std::log(base));
        };
        double low = correctionDim(m_spec.ropeBetaFast), high = correctionDim(m_spec.ropeBetaSlow);
        if (m_spec.ropeTruncate) {
            low = std::floor(low);
            high = std::ceil(high);
        }
        low = std::max(low, 0.0);
        high = std::min(high, dim - 1);
        if (low == high)
            high += 0.001;
        const auto f32 = at::TensorOptions().dtype(at::kFloat).device(m_device);
        const at::Tensor ramp = ((at::arange(m_spec.rotaryDim / 2, f32) - low) / (high - low)).clamp(0, 1);
        const at::Tensor posFreqs = at::pow(at::scalar_tensor(base, f32), exponents);
        const at::Tensor extrapolation = 1.0 / posFreqs, interpolation = 1.0 / (factor * posFreqs);
        const at::Tensor extrapolationFactor = 1 - ramp;
        return interpolation * (1 - extrapolationFactor) + extrapolation * extrapolationFactor;
    }
    return invFreq;
}

at::Tensor Decoder::norm(const Norm& n, const at::Tensor& x) const
{
    if (m_spec.norm == NormKind::LayerNorm)
        return at::layer_norm(x, {x.size(-1)}, n.w, n.b, m_spec.normEps);
    // RMSNorm as Hugging Face: in float32, then back to the compute dtype, then the weight (llama); Gemma
    // multiplies by 1 + w in float32 before casting back.
    const at::Tensor xf = x.to(at::kFloat);
    const at::Tensor var = xf.pow(2).mean({-1}, /*keepdim=*/true);
    if (m_spec.norm == NormKind::RMSNormWeightFp32)
        return (n.w * (xf * at::rsqrt(var + m_spec.normEps))).to(x.scalar_type());
    if (m_spec.norm == NormKind::RMSNormPlusOne)
        return (xf * at::rsqrt(var + m_spec.normEps) * (1.0 + n.w.to(at::kFloat))).to(x.scalar_type());
    return n.w * (xf * at::rsqrt(var + m_spec.normEps)).to(x.scalar_type());
}

at::Tensor Decoder::activationOf(Activation act, const at::Tensor& x, const LayerWeights* lw) const
{
    switch (act) {
    case Activation::GeluTanh:
        return at::gelu(x, "tanh");
    case Activation::GeluErf:
        return at::gelu(x);
    case Activation::Silu:
        return at::silu(x);
    case Activation::Relu:
        return at::relu(x);
    case Activation::QuickGelu:
        return x * at::sigmoid(1.702 * x);
    case Activation::Relu2:
        return at::square(at::relu(x));
    case Activation::XIelu: {
        if (!lw || !lw->xielu.alphaP.defined())
            throw Error("internal: xIELU without its layer's parameters");
        const auto& p = lw->xielu;
        const at::Tensor alphaP = at::softplus(p.alphaP), alphaN = p.beta + at::softplus(p.alphaN);
        return at::where(x > 0, alphaP * x * x + p.beta * x,
                         (at::expm1(at::minimum(x, p.eps)) - x) * alphaN + p.beta * x);
    }
    }
    return x;
}

at::Tensor Decoder::rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) const
{
    // x [B, heads, T, headDim]; cos/sin [T, rotaryDim]. Float32 tables (ArchSpec::ropeFp32): rotated in float32.
    if (cos.scalar_type() != x.scalar_type())
        return rotary(x.to(cos.scalar_type()), cos, sin).to(x.scalar_type());
    const int64_t rot = m_spec.rotaryDim;
    const int64_t hd = x.size(-1);
    const at::Tensor xr = x.narrow(-1, 0, rot);
    at::Tensor rotated;
    if (m_spec.rope == RopeKind::NeoX) {
        const at::Tensor x1 = xr.narrow(-1, 0, rot / 2);
        const at::Tensor x2 = xr.narrow(-1, rot / 2, rot / 2);
        rotated = at::cat({-x2, x1}, -1);
    } else { // GPT-J: pairs (x0, x1) -> (-x1, x0)
        auto sizes = xr.sizes().vec();
        sizes.back() = rot / 2;
        sizes.push_back(2);
        const at::Tensor pairs = xr.reshape(sizes);
        rotated = at::stack({-pairs.select(-1, 1), pairs.select(-1, 0)}, -1).flatten(-2);
    }
    at::Tensor out = xr * cos + rotated * sin;
    if (rot == hd)
        return out;
    return at::cat({out, x.narrow(-1, rot, hd - rot)}, -1);
}

at::Tensor Decoder::attention(int layer, const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin,
                              const at::Tensor& mask, const at::Tensor& localMask, KvCache* cache, int64_t past,
                              ForwardObserver* probsTo, ForwardObserver* headsTo) const
{
    const auto& lw = m_w.layers[static_cast<std::size_t>(layer)];
    const int64_t B = x.size(0), T = x.size(1);
    const int64_t nh = m_spec.heads, hd = m_spec.valueDim();
    const at::Tensor qkv = m_spec.attention == AttentionKind::Latent ? at::Tensor() : lw.qkv(x);
    auto [q, k, v] = qkv.defined() ? heads(lw, qkv, cos, sin) : latentHeads(lw, x, cos, sin);
    const int64_t S = past + T;
    if (cache) {
        cache->k[static_cast<std::size_t>(layer)].narrow(2, past, T).copy_(k);
        cache->v[static_cast<std::size_t>(layer)].narrow(2, past, T).copy_(v);
        k = cache->k[static_cast<std::size_t>(layer)].narrow(2, 0, S);
        v = cache->v[static_cast<std::size_t>(layer)].narrow(2, 0, S);
    }
    const at::Tensor& m = m_spec.window[static_cast<std::size_t>(layer)] > 0 ? localMask : mask; // [B|1, 1, T, S]
    const at::Tensor out = attend(layer, scaleQueries(q, past), k, v, m, false, probsTo);
    at::Tensor merged = out.transpose(1, 2).reshape({B, T, nh * hd});
    if (m_spec.attnOutputGate) // the gate's rows follow q, k and v in the fused projection
        merged = merged * at::sigmoid(qkv.narrow(-1, (nh + 2 * m_spec.kvHeads) * hd, nh * hd));
    if (headsTo)
        headsTo->observe(kHeadOutputs, layer, merged);
    return lw.o(ablateHeads(layer, merged));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> Decoder::heads(const LayerWeights& lw, const at::Tensor& qkv,
                                                              const at::Tensor& cos, const at::Tensor& sin) const
{
    const int64_t B = qkv.size(0), T = qkv.size(1);
    const int64_t nh = m_spec.heads, nkv = m_spec.kvHeads, hd = m_spec.headDim;
    at::Tensor q = qkv.narrow(-1, 0, nh * hd), k = qkv.narrow(-1, nh * hd, nkv * hd);
    at::Tensor v = qkv.narrow(-1, (nh + nkv) * hd, nkv * hd);
    if (m_spec.qkNorm == QkNorm::Full) {
        q = norm(lw.qNorm, q);
        k = norm(lw.kNorm, k);
    }
    if (m_spec.qkvClip > 0) { // olmoe's clip_qkv: after the q/k norms, before rope
        q = q.clamp(-m_spec.qkvClip, m_spec.qkvClip);
        k = k.clamp(-m_spec.qkvClip, m_spec.qkvClip);
        v = v.clamp(-m_spec.qkvClip, m_spec.qkvClip);
    }
    v = v.reshape({B, T, nkv, hd}).transpose(1, 2);
    q = q.reshape({B, T, nh, hd});
    k = k.reshape({B, T, nkv, hd});
    if (m_spec.qkNorm == QkNorm::PerHead) {
        q = norm(lw.qNorm, q);
        k = norm(lw.kNorm, k);
    }
    q = q.transpose(1, 2);
    k = k.transpose(1, 2);
    if (cos.defined()) { // undefined without rope, and on layers without it (RopeTables::of)
        q = rotary(q, cos, sin);
        k = rotary(k, cos, sin);
    }
    if (m_spec.qkNorm == QkNorm::PerHeadAfterRope) {
        q = norm(lw.qNorm, q);
        k = norm(lw.kNorm, k);
    }
    return {q, k, v};
}

at::Tensor Decoder::attend(int layer, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           const at::Tensor& m, bool causal, ForwardObserver* probsTo) const
{
    const int64_t B = q.size(0), T = q.size(2), S = k.size(2);
    const int64_t nh = m_spec.heads, nkv = m_spec.kvHeads, hd = q.size(-1);
    const double scale = m_spec.attnScale[static_cast<std::size_t>(layer)];
    const int64_t rep = nh / nkv;
    const bool plain = m_spec.attnSoftcap <= 0 && m_spec.attnSink == AttnSink::None; // what the fused paths compute
#if TORCH_VERSION_MAJOR >= 2
    // libtorch 2.x: fused scaled-dot-product attention on every device (CPU and CUDA) for prefill and scoring
    // (T > 1), with the layer's own scale and grouped-query heads handled inside the kernel. Conformance with
    // HF is tested on the CPU in CI and was checked on CUDA on an H100. Decoding one token against the KV
    // cache uses the explicit path below: on the H100, SDPA's single-query decode took 47 ms/token (bundled
    // model) and 50 ms/token (qwen2.5-0.5B shape) in float16, the explicit path 3.1 and 16.9. Models whose
    // HF code upcasts attention to fp32 keep the explicit path in half precision. So do layers whose attention
    // probabilities are observed (SDPA does not return them).
    if (T > 1 && !(m_spec.attnFp32 && m_dtype != at::kFloat) && !probsTo && plain) {
        c10::optional<at::Tensor> am;
        if (m.defined())
            am = m;
        return at::scaled_dot_product_attention(q, k, v, am, 0.0, causal && !m.defined(), scale,
                                                /*enable_gqa=*/rep > 1);
    }
#endif
    // The CPU's direct oneDNN path (cpu_linear.h): one batched product, softmax and product, no copies of q, k, v.
    if (!probsTo && plain) {
        if (at::Tensor fused = cpuFusedAttention(q, k, v, m, causal, scale); fused.defined())
            return fused;
    }
    at::Tensor mask = m;
    if (!mask.defined() && causal && T > 1) {
        const auto longOpts = at::TensorOptions().dtype(at::kLong).device(m_device);
        const at::Tensor pos = at::arange(0, T, longOpts);
        mask = (pos.unsqueeze(1) >= pos.unsqueeze(0)).unsqueeze(0).unsqueeze(0); // [1, 1, T, T]
    }
    at::Tensor qf = q, kf = k;
    if (m_spec.attnFp32 && m_dtype != at::kFloat) {
        qf = qf.to(at::kFloat);
        kf = kf.to(at::kFloat);
    }
    // Grouped-query attention without copying keys: query heads g*rep .. g*rep+rep-1 share kv head g.
    at::Tensor scores = at::matmul(qf.reshape({B, nkv, rep * T, hd}), kf.transpose(-1, -2));
    if (scale != 1.0)
        scores = scores * scale;
    if (m_spec.attnSoftcap > 0) // as transformers: / cap, tanh, * cap, in the compute dtype
        scores = at::tanh(scores / m_spec.attnSoftcap) * m_spec.attnSoftcap;
    scores = scores.to(at::kFloat).view({B, nkv, rep, T, S});
    if (mask.defined())
        scores = scores.masked_fill(mask.unsqueeze(1).logical_not(), std::numeric_limits<float>::lowest());
    const at::Tensor probs32 = m_spec.attnSink == AttnSink::None ? at::softmax(scores, -1) : sinkSoftmax(layer, scores);
    if (probsTo)
        probsTo->observe(intermediate::kAttention, layer, probs32.view({B, nh, T, S}));
    const at::Tensor probs = probs32.to(v.scalar_type()).view({B, nkv, rep * T, S});
    return at::matmul(probs, v).view({B, nh, T, v.size(-1)});
}

at::Tensor Decoder::mlp(const LayerWeights& lw, const at::Tensor& x, int layer, ForwardObserver* expertsTo) const
{
    if (lw.moe.defined())
        return moe(lw.moe, x, layer, expertsTo);
    if (!m_spec.gatedMlp) {
        // On the CPU's direct oneDNN path the activation runs as the up projection's epilogue (cpu_linear.h).
        const DnnlAct fusable = m_spec.act == Activation::GeluTanh  ? DnnlAct::GeluTanh
                                : m_spec.act == Activation::GeluErf ? DnnlAct::GeluErf
                                : m_spec.act == Activation::Relu    ? DnnlAct::Relu
                                                                    : DnnlAct::None;
        if (auto fused = cpuFusedLinearActivation(x, lw.up.w, lw.up.b, fusable))
            return lw.down(*fused);
        return lw.down(activation(lw.up(x), &lw));
    }
    const at::Tensor h = lw.up(x);
    const int64_t I = m_spec.intermediate;
    return lw.down(activation(h.narrow(-1, 0, I)) * h.narrow(-1, I, I));
}

std::pair<at::Tensor, at::Tensor> Decoder::RopeTables::of(const ArchSpec& s, int64_t layer) const
{
    if (!s.ropeOff.empty() && s.ropeOff[static_cast<std::size_t>(layer)])
        return {};
    if (cosLocal.defined() && s.window[static_cast<std::size_t>(layer)] > 0)
        return {cosLocal, sinLocal};
    return {cos, sin};
}

Decoder::RopeTables Decoder::ropeTables(const at::Tensor& positions, int64_t seqLen) const
{
    RopeTables out;
    if (m_spec.rope == RopeKind::None)
        return out;
    const at::Tensor pos = positions.to(at::kFloat);
    auto tables = [&](const at::Tensor& invFreq, double attentionFactor) {
        const at::Tensor freqs = pos.unsqueeze(1) * invFreq.unsqueeze(0); // [T, rot/2]
        at::Tensor cos, sin;
        if (m_spec.rope == RopeKind::NeoX) {
            const at::Tensor emb = at::cat({freqs, freqs}, -1);
            cos = emb.cos();
            sin = emb.sin();
        } else {
            cos = freqs.cos().repeat_interleave(2, -1);
            sin = freqs.sin().repeat_interleave(2, -1);
        }
        if (attentionFactor != 1.0) {
            cos = cos * attentionFactor;
            sin = sin * attentionFactor;
        }
        const auto dtype = m_spec.ropeFp32 ? at::kFloat : m_dtype;
        return std::make_pair(cos.to(dtype), sin.to(dtype));
    };
    std::tie(out.cos, out.sin) = tables(invFreqFor(seqLen), m_spec.ropeAttentionFactor);
    if (m_invFreqLocal.defined())
        std::tie(out.cosLocal, out.sinLocal) = tables(m_invFreqLocal, 1.0);
    return out;
}

at::Tensor Decoder::inputNorm(const LayerWeights& lw, const at::Tensor& x) const
{
    return m_spec.residual == Residual::PostNorms ? x : norm(lw.ln1, x);
}

at::Tensor Decoder::embed(const at::Tensor& ids, const at::Tensor& positions) const
{
    // Embeddings kept in the checkpoint's 16-bit dtype (LoadOptions::weights): the gathered rows are widened.
    at::Tensor x = at::embedding(m_w.tokenEmbedding, ids).to(m_dtype);
    if (m_w.positionEmbedding.defined())
        x = x + at::embedding(m_w.positionEmbedding, positions).to(m_dtype);
    if (m_spec.embedScale != 1.0)
        // Gemma: torch.tensor(√hidden) (float32) cast to the model dtype, then the product in that dtype.
        x = m_spec.embedScaleInDtype
                ? x * at::scalar_tensor(m_spec.embedScale, x.options().dtype(at::kFloat)).to(x.scalar_type())
                : x * m_spec.embedScale;
    return x;
}

at::Tensor Decoder::recurrentMixer(int layer, const at::Tensor& x, const at::Tensor& valid, KvCache* cache,
                                   int64_t past) const
{
    switch (m_spec.layerKind(layer)) {
    case LayerKind::Mamba2:
        return mamba2(layer, x, valid, cache, past);
    case LayerKind::ShortConv:
        return shortConv(layer, x, valid, cache, past);
    default:
        return gatedDelta(layer, x, valid, cache, past);
    }
}

at::Tensor Decoder::residual(const LayerWeights& lw, const at::Tensor& x, const at::Tensor& h, const at::Tensor& a,
                             int layer, ForwardObserver* expertsTo) const
{
    const auto ffn = [&](const LayerWeights& w, const at::Tensor& in) { return this->mlp(w, in, layer, expertsTo); };
    switch (m_spec.residual) {
    case Residual::Sequential: {
        if (m_spec.residualScale != 1.0) {
            const at::Tensor y = x + a * m_spec.residualScale;
            return y + ffn(lw, norm(lw.ln2, y)) * m_spec.residualScale;
        }
        const at::Tensor y = x + a;
        return y + ffn(lw, norm(lw.ln2, y));
    }
    case Residual::PostNorms: {
        const at::Tensor y = x + norm(lw.postAttn, a);
        return y + norm(lw.postMlp, ffn(lw, y));
    }
    case Residual::SingleMixer:
        return x + a;
    case Residual::ParallelSharedNorm:
        return a + ffn(lw, h) + x;
    case Residual::ParallelTwoNorms:
        return ffn(lw, norm(lw.ln2, x)) + a + x;
    case Residual::Sandwich: {
        const at::Tensor y = x + norm(lw.postAttn, a);
        return y + norm(lw.postMlp, ffn(lw, norm(lw.ln2, y)));
    }
    }
    return x;
}

at::Tensor Decoder::hiddenPacked(const at::Tensor& ids, const std::vector<int64_t>& lengths) const
{
    const int64_t N = ids.size(0);
    const auto longOpts = at::TensorOptions().dtype(at::kLong).device(m_device);
    std::vector<int64_t> pos;
    pos.reserve(static_cast<std::size_t>(N));
    int64_t maxLen = 0;
    for (const int64_t len : lengths) {
        if (len > m_spec.context)
            throw InputError("sequence of " + std::to_string(len) + " tokens exceeds the model's context of " +
                             std::to_string(m_spec.context));
        for (int64_t i = 0; i < len; ++i)
            pos.push_back(i);
        maxLen = std::max(maxLen, len);
    }
    if (static_cast<int64_t>(pos.size()) != N)
        throw Error("internal: packed lengths do not add up to the ids");
    const at::Tensor positions = at::tensor(pos, at::kLong).to(m_device);
    at::Tensor x = embed(ids, positions); // [N, hidden]
    // Rotary tables of positions 0 .. maxLen - 1 [maxLen, rot]; each sequence rotates as a forward pass of its own
    // length would (longrope: its long factors only where the sequence is longer than the original context;
    // dynamic: a base of its own for each length beyond it).
    const at::Tensor tablePositions = at::arange(0, maxLen, longOpts);
    std::map<int64_t, RopeTables> tablesByVariant;
    auto tablesOf = [&](int64_t T) -> const RopeTables& {
        auto [it, added] = tablesByVariant.try_emplace(ropeVariant(T));
        if (added)
            it->second = ropeTables(tablePositions, T);
        return it->second;
    };

    // Local layers' window masks, one per distinct length longer than the window (shorter ones are causal).
    const int64_t nh = m_spec.heads, hd = m_spec.valueDim();
    const bool latent = m_spec.attention == AttentionKind::Latent;
    std::map<std::pair<int64_t, int64_t>, at::Tensor> windowMasks; // (window, length) -> [1, 1, T, T]
    auto windowMask = [&](int64_t window, int64_t T) {
        auto& m = windowMasks[{window, T}];
        if (!m.defined()) {
            const at::Tensor p = at::arange(0, T, longOpts);
            const at::Tensor diff = p.unsqueeze(1) - p.unsqueeze(0);
            m = ((diff >= 0) & (diff < window)).unsqueeze(0).unsqueeze(0);
        }
        return m;
    };
    at::Tensor attn = at::empty({N, nh * hd}, x.options());
    for (int64_t l = 0; l < m_spec.layers; ++l) {
        const auto& lw = m_w.layers[static_cast<std::size_t>(l)];
        const int layer = static_cast<int>(l);
        const int64_t window = m_spec.window[static_cast<std::size_t>(l)];
        const at::Tensor h = inputNorm(lw, x);
        int64_t offset = 0;
        if (m_spec.layerKind(l) == LayerKind::Mlp) { // a block without token mixing
            x = residual(lw, x, h, mlp(lw, h, layer), layer);
            continue;
        }
        if (m_spec.layerKind(l) != LayerKind::Attention) { // each sequence from a zero state
            at::Tensor mixed = at::empty_like(x);
            for (const int64_t T : lengths) {
                mixed.narrow(0, offset, T)
                    .copy_(recurrentMixer(layer, h.narrow(0, offset, T).unsqueeze(0), {}, nullptr, 0)[0]);
                offset += T;
            }
            x = residual(lw, x, h, mixed, layer);
            continue;
        }
        const at::Tensor qkv = latent ? at::Tensor() : lw.qkv(h); // [N, (nh + 2 nkv) hd]
        for (const int64_t T : lengths) {
            auto [cos, sin] = tablesOf(T).of(m_spec, l);
            if (cos.defined()) {
                cos = cos.narrow(0, 0, T);
                sin = sin.narrow(0, 0, T);
            }
            const auto [q, k, v] = latent ? latentHeads(lw, h.narrow(0, offset, T).unsqueeze(0), cos, sin)
                                          : heads(lw, qkv.narrow(0, offset, T).unsqueeze(0), cos, sin);
            const at::Tensor mask = window > 0 && T > window ? windowMask(window, T) : at::Tensor();
            const at::Tensor out = attend(layer, scaleQueries(q, 0), k, v, mask, true, nullptr); // [1, nh, T, hd]
            attn.narrow(0, offset, T).copy_(out.transpose(1, 2).reshape({T, nh * hd}));
            offset += T;
        }
        const at::Tensor gated =
            m_spec.attnOutputGate ? attn * at::sigmoid(qkv.narrow(-1, (nh + 2 * m_spec.kvHeads) * hd, nh * hd)) : attn;
        x = residual(lw, x, h, lw.o(ablateHeads(layer, gated)), layer); // the layer: expert ablation
    }
    return norm(m_w.finalNorm, x);
}

at::Tensor Decoder::hidden(const at::Tensor& ids, const at::Tensor& keyValid, KvCache* cache,
                           ForwardObserver* observer) const
{
    const int64_t T = ids.size(1);
    const int64_t past = cache ? cache->length : 0;
    const int64_t S = past + T;
    if (cache && S > cache->capacity)
        throw Error("internal: KV cache capacity " + std::to_string(cache->capacity) + " exceeded");
    if (S > m_spec.context)
        throw InputError("sequence of " + std::to_string(S) + " tokens exceeds the model's context of " +
                         std::to_string(m_spec.context));
    const auto longOpts = at::TensorOptions().dtype(at::kLong).device(m_device);
    const at::Tensor positions = at::arange(past, S, longOpts);

    at::Tensor x = embed(ids, positions);
    if (observer && observer->wants(intermediate::kEmbeddings, -1))
        observer->observe(intermediate::kEmbeddings, -1, x);

    const RopeTables rope = ropeTables(positions, S);

    // Masks [B|1, 1, T, S]: causal, padding, and for local layers the window. Undefined = attend to all.
    at::Tensor mask, localMask;
    const at::Tensor kpos = at::arange(0, S, longOpts);
    const at::Tensor diff = positions.unsqueeze(1) - kpos.unsqueeze(0); // [T, S]: query - key
    bool anyLocal = false;
    int64_t window = 0;
    for (auto w : m_spec.window)
        if (w > 0) {
            anyLocal = true;
            window = w;
        }
    // A padding query may find no valid key in its window; it then attends to itself, so that no row is
    // empty (an empty row is NaN in SDPA, and NaN in a padded value row would reach valid queries through
    // 0 * NaN). Valid queries always see their own key, so their outputs are unchanged.
    const at::Tensor self = diff == 0;
    auto withPadding = [&](at::Tensor m) {
        if (keyValid.defined())
            return ((m.unsqueeze(0) & keyValid.unsqueeze(1)) | self.unsqueeze(0)).unsqueeze(1); // [B,1,T,S]
        return m.unsqueeze(0).unsqueeze(0);
    };
    if (T > 1 || keyValid.defined())
        mask = withPadding(diff >= 0);
    if (anyLocal)
        localMask = withPadding((diff >= 0) & (diff < window));

    for (int64_t l = 0; l < m_spec.layers; ++l) {
        const auto& lw = m_w.layers[static_cast<std::size_t>(l)];
        const at::Tensor h = inputNorm(lw, x);
        const int layer = static_cast<int>(l);
        ForwardObserver* probsTo = observer && observer->wants(intermediate::kAttention, layer) ? observer : nullptr;
        const auto [cos, sin] = rope.of(m_spec, l);
        ForwardObserver* expertsTo =
            observer && lw.moe.defined() && observer->wants(intermediate::kExperts, layer) ? observer : nullptr;
        // A gated-DeltaNet, Mamba-2 or MLP-only layer has no attention probabilities: kAttention is not observed there.
        const LayerKind kind = m_spec.layerKind(l);
        at::Tensor a;
        if (kind == LayerKind::Mlp)
            a = mlp(lw, h, layer, expertsTo);
        else if (kind != LayerKind::Attention)
            a = recurrentMixer(layer, h, keyValid.defined() ? keyValid.narrow(1, past, T) : at::Tensor(), cache, past);
        else
            a = attention(layer, h, cos, sin, mask, localMask, cache, past, probsTo,
                          observer && observer->wants(kHeadOutputs, layer) ? observer : nullptr);
        x = residual(lw, x, h, a, layer, expertsTo);
        if (observer && observer->wants(intermediate::kHidden, layer))
            observer->observe(intermediate::kHidden, layer, x);
    }
    if (cache)
        cache->length = S;
    at::Tensor out = norm(m_w.finalNorm, x);
    if (observer && observer->wants(intermediate::kFinalNorm, -1))
        observer->observe(intermediate::kFinalNorm, -1, out);
    return out;
}

namespace {
// Whether the head's product is computed in the fused head's column blocks (fused_head.h): on the CPU with the
// fusions on, so that scoring, generation and the lens share one set of packed weights per block.
bool headInColumnBlocks(const at::Tensor& hidden, const at::Tensor& head)
{
    return hidden.device().is_cpu() && hidden.scalar_type() == at::kFloat && head.scalar_type() == at::kFloat &&
           head.is_contiguous() && cpuFusedHeadEnabled();
}
} // namespace

at::Tensor Decoder::logits(const at::Tensor& hidden) const
{
    const int64_t V = m_w.head.size(0), C = HeadBlocks{}.cols;
    if (V <= C || !headInColumnBlocks(hidden, m_w.head))
        return logitsColumns(hidden, 0, V);
    std::vector<at::Tensor> parts;
    for (int64_t c = 0; c < V; c += C)
        parts.push_back(logitsColumns(hidden, c, std::min(C, V - c)));
    return at::cat(parts, -1);
}

at::Tensor Decoder::logitsColumns(const at::Tensor& hidden, int64_t col, int64_t cols) const
{
    const bool all = col == 0 && cols == m_w.head.size(0);
    const at::Tensor w = all ? m_w.head : m_w.head.narrow(0, col, cols);
    const at::Tensor b = all || !m_w.headBias.defined() ? m_w.headBias : m_w.headBias.narrow(0, col, cols);
    at::Tensor l = cpuAwareLinear(hidden, w, b);
    if (m_spec.logitsDivisor != 1.0) // granite: logits / logits_scaling, in the compute dtype
        l = l / m_spec.logitsDivisor;
    if (m_spec.logitsScale != 1.0) // cohere2: logits · logit_scale, in the compute dtype
        l = l * m_spec.logitsScale;
    if (m_spec.finalSoftcap > 0) // as transformers: / cap, tanh, * cap, in the compute dtype
        l = at::tanh(l / m_spec.finalSoftcap) * m_spec.finalSoftcap;
    return l.to(at::kFloat);
}

} // namespace ascviz::model
