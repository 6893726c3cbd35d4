// The gated-DeltaNet layer (LayerKind::GatedDeltaNet; qwen3_next's linear attention), computed as transformers
// 5.17's PyTorch paths do (modeling_qwen3_next.py without the optional fla / causal-conv1d kernels):
// causal_conv1d_fn / causal_conv1d_update for the depthwise convolution, torch_chunk_gated_delta_rule for every
// forward pass of several positions (scoring, prefill) and torch_recurrent_gated_delta_rule for one position on the
// cache (decoding), then Qwen3NextRMSNormGated and out_proj.
#include "decoder/decoder.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <limits>
#include <vector>

namespace ascviz::model {
namespace {

// transformers' l2norm (as the FLA library): x · rsqrt(Σ x² + 1e-6) over the last dimension.
at::Tensor l2norm(const at::Tensor& x)
{
    return x * at::rsqrt((x * x).sum(-1, /*keepdim=*/true) + 1e-6);
}

// Both rules' first steps: [B, T, H, ·] → [B, H, T, ·] in float32, q and k L2-normalised.
void toHeadMajor(at::Tensor& q, at::Tensor& k, at::Tensor& v, at::Tensor& beta, at::Tensor& g)
{
    auto prep = [](const at::Tensor& x) { return x.transpose(1, 2).to(at::kFloat).contiguous(); };
    q = l2norm(prep(q));
    k = l2norm(prep(k));
    v = prep(v);
    beta = prep(beta);
    g = prep(g);
}

// torch_chunk_gated_delta_rule: q, k [B, T, H, dk], v [B, T, H, dv], beta, g [B, T, H] (g float32); state
// [B, H, dk, dv] float32 or undefined (zeros). Returns the output [B, T, H, dv] in q's dtype and the final state.
std::pair<at::Tensor, at::Tensor> chunkRule(at::Tensor q, at::Tensor k, at::Tensor v, at::Tensor beta, at::Tensor g,
                                            const at::Tensor& initial, int64_t chunk)
{
    const auto dtype = q.scalar_type();
    const int64_t B = k.size(0), T = k.size(1), dk = k.size(3), H = v.size(2), dv = v.size(3);
    toHeadMajor(q, k, v, beta, g);
    q = q * std::pow(static_cast<double>(dk), -0.5);
    const int64_t pad = (chunk - T % chunk) % chunk;
    if (pad > 0) {
        q = at::constant_pad_nd(q, {0, 0, 0, pad});
        k = at::constant_pad_nd(k, {0, 0, 0, pad});
        v = at::constant_pad_nd(v, {0, 0, 0, pad});
        beta = at::constant_pad_nd(beta, {0, pad});
        g = at::constant_pad_nd(g, {0, pad});
    }
    const int64_t n = (T + pad) / chunk;
    at::Tensor vBeta = v * beta.unsqueeze(-1), kBeta = k * beta.unsqueeze(-1);
    auto chunked = [&](const at::Tensor& x) { return x.reshape({x.size(0), x.size(1), -1, chunk, x.size(-1)}); };
    q = chunked(q);
    k = chunked(k);
    kBeta = chunked(kBeta);
    vBeta = chunked(vBeta);
    g = g.reshape({g.size(0), g.size(1), -1, chunk});
    const at::Tensor upper = at::ones({chunk, chunk}, at::TensorOptions().dtype(at::kBool).device(q.device())).triu(1);
    const at::Tensor cum = g.cumsum(3);
    const at::Tensor pair =
        (cum.unsqueeze(4) - cum.unsqueeze(3)).masked_fill(upper, -std::numeric_limits<float>::infinity()).exp();
    const at::Tensor ut = at::matmul(kBeta, k.transpose(-1, -2)) * pair;
    const at::Tensor intra = at::matmul(q, k.transpose(-1, -2)) * pair;
    const at::Tensor decayedKBeta = kBeta * cum.exp().unsqueeze(-1);
    const at::Tensor newValues = at::linalg_solve_triangular(ut, vBeta, /*upper=*/false, /*left=*/true,
                                                             /*unitriangular=*/true);
    const at::Tensor kCumDecay = at::linalg_solve_triangular(ut, decayedKBeta, false, true, true);
    at::Tensor state =
        initial.defined() ? initial.to(newValues.scalar_type()) : at::zeros({B, H, dk, dv}, newValues.options());
    at::Tensor out = at::zeros_like(newValues);
    q = q * cum.exp().unsqueeze(-1);
    k = k * (cum.narrow(-1, chunk - 1, 1) - cum).exp().unsqueeze(-1);
    const at::Tensor chunkDecay = cum.select(-1, chunk - 1).exp().unsqueeze(-1).unsqueeze(-1);
    for (int64_t i = 0; i < n; ++i) {
        const at::Tensor vNew = newValues.select(2, i) - at::matmul(kCumDecay.select(2, i), state);
        const at::Tensor inter = at::matmul(q.select(2, i), state);
        out.select(2, i).copy_(inter + at::matmul(intra.select(2, i), vNew));
        state = state * chunkDecay.select(2, i) + at::matmul(k.select(2, i).transpose(-1, -2), vNew);
    }
    out = out.reshape({B, H, -1, dv}).narrow(2, 0, T);
    return {out.transpose(1, 2).to(dtype).contiguous(), state};
}

// torch_recurrent_gated_delta_rule: the same arguments, one position after the other.
std::pair<at::Tensor, at::Tensor> recurrentRule(at::Tensor q, at::Tensor k, at::Tensor v, at::Tensor beta, at::Tensor g,
                                                const at::Tensor& initial)
{
    const auto dtype = q.scalar_type();
    const int64_t B = k.size(0), T = k.size(1), dk = k.size(3), H = v.size(2), dv = v.size(3);
    toHeadMajor(q, k, v, beta, g);
    q = q / std::pow(static_cast<double>(dk), 0.5);
    at::Tensor state = initial.defined() ? initial.to(v.scalar_type()) : at::zeros({B, H, dk, dv}, v.options());
    at::Tensor out = at::zeros_like(v);
    for (int64_t i = 0; i < T; ++i) {
        const at::Tensor qt = q.select(2, i), kt = k.select(2, i), vt = v.select(2, i);
        state = state * g.select(2, i).exp().unsqueeze(-1).unsqueeze(-1);
        const at::Tensor betaT = beta.select(2, i).unsqueeze(-1);
        const at::Tensor kvMem = (state * kt.unsqueeze(-1)).sum(-2);
        const at::Tensor delta = (vt - kvMem) * betaT;
        state = state + kt.unsqueeze(-1) * delta.unsqueeze(-2);
        out.select(2, i).copy_((state * qt.unsqueeze(-1)).sum(-2));
    }
    return {out.transpose(1, 2).contiguous().to(dtype), state};
}

// F.conv1d(x, w, bias, padding=padding, groups=channels): one filter per channel.
at::Tensor depthwise(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias, int64_t padding)
{
    const std::vector<int64_t> one{1}, pad{padding};
    c10::optional<at::Tensor> b;
    if (bias.defined())
        b = bias;
    return at::conv1d(x, w, b, one, pad, one, x.size(1));
}

} // namespace

at::Tensor Decoder::causalConv(int layer, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                               std::optional<Activation> activation, KvCache* cache, int64_t past) const
{
    const auto l = static_cast<std::size_t>(layer);
    const int64_t T = x.size(2), K = w.size(-1);
    const auto act = [&](const at::Tensor& y) { return activation ? activationOf(*activation, y) : y; };
    if (cache && past > 0 && T == 1) { // causal_conv1d_update
        at::Tensor& state = cache->conv[l];
        const at::Tensor full = at::cat({state, x}, -1).to(w.scalar_type());
        state.copy_(full.narrow(-1, full.size(-1) - K, K));
        const at::Tensor out = depthwise(full, w, b, 0);
        return act(out.narrow(-1, out.size(-1) - T, T)).to(x.scalar_type());
    }
    at::Tensor full = x;
    if (cache) { // update_conv_state: the states so far before the new inputs (prefill: padded to K)
        if (past > 0)
            full = at::cat({cache->conv[l], x}, -1);
        else if (T < K)
            full = at::constant_pad_nd(x, {K - T, 0});
        cache->conv[l].copy_(full.narrow(-1, full.size(-1) - K, K));
    }
    const int64_t S = full.size(-1);
    at::Tensor out = depthwise(full.to(w.scalar_type()), w, b, K - 1).narrow(-1, 0, S);
    out = act(out).to(x.scalar_type());
    return out.narrow(-1, S - T, T);
}

at::Tensor Decoder::gatedDelta(int layer, const at::Tensor& xIn, const at::Tensor& valid, KvCache* cache,
                               int64_t past) const
{
    const auto& dw = m_w.layers[static_cast<std::size_t>(layer)].delta;
    const auto& d = m_spec.delta;
    const int64_t B = xIn.size(0), T = xIn.size(1);
    const int64_t nk = d.keyHeads, nv = d.valueHeads, dk = d.keyDim, dv = d.valueDim;
    const int64_t Kd = nk * dk, Vd = nv * dv;
    at::Tensor x = xIn;
    // apply_mask_to_padding_states: padding inputs zeroed (transformers passes no mask for one position, nor where
    // every position is real).
    if (valid.defined() && T > 1 && !valid.all().item<bool>())
        x = (x * valid.unsqueeze(-1)).to(x.scalar_type());
    const at::Tensor proj = dw.inProj(x); // [B, T, 2 Kd + 2 Vd + 2 nv]
    const at::Tensor qkv = proj.narrow(-1, 0, 2 * Kd + Vd).transpose(1, 2);
    const at::Tensor z = proj.narrow(-1, 2 * Kd + Vd, Vd);
    const at::Tensor b = proj.narrow(-1, 2 * Kd + 2 * Vd, nv);
    const at::Tensor a = proj.narrow(-1, 2 * Kd + 2 * Vd + nv, nv);
    const at::Tensor mixed = causalConv(layer, qkv, dw.conv, {}, m_spec.act, cache, past).transpose(1, 2); // [B, T, C]
    at::Tensor q = mixed.narrow(-1, 0, Kd).reshape({B, T, nk, dk});
    at::Tensor k = mixed.narrow(-1, Kd, Kd).reshape({B, T, nk, dk});
    const at::Tensor v = mixed.narrow(-1, 2 * Kd, Vd).reshape({B, T, nv, dv});
    const at::Tensor beta = at::sigmoid(b);
    const at::Tensor g = -dw.aLog.to(at::kFloat).exp() * at::softplus(a.to(at::kFloat) + dw.dtBias);
    if (nv / nk > 1) {
        q = q.repeat_interleave(nv / nk, 2);
        k = k.repeat_interleave(nv / nk, 2);
    }
    const at::Tensor initial = cache && past > 0 ? cache->state[static_cast<std::size_t>(layer)] : at::Tensor();
    auto [core, state] = cache && past > 0 && T == 1 ? recurrentRule(q, k, v, beta, g, initial)
                                                     : chunkRule(q, k, v, beta, g, initial, d.chunk);
    if (cache)
        cache->state[static_cast<std::size_t>(layer)].copy_(state);
    // Qwen3NextRMSNormGated: normed in float32, cast, times the weight, times silu(gate) in float32, cast.
    const auto dtype = core.scalar_type();
    const at::Tensor cf = core.reshape({-1, dv}).to(at::kFloat);
    const at::Tensor normed = cf * at::rsqrt(cf.pow(2).mean({-1}, /*keepdim=*/true) + m_spec.normEps);
    const at::Tensor gated = (dw.norm.w * normed.to(dtype)) * at::silu(z.reshape({-1, dv}).to(at::kFloat));
    return dw.out(gated.to(dtype).reshape({B, T, Vd}));
}

} // namespace ascviz::model
