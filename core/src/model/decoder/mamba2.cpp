// The Mamba-2 (SSD) mixing layer (LayerKind::Mamba2; granitemoehybrid's and nemotron_h's mamba layers), computed as
// transformers 5.17's PyTorch paths do (the Mamba2 mixers' torch_forward without the optional causal-conv1d /
// mamba_ssm kernels): in_proj → [gate; xBC; dt], causal_conv1d_fn / causal_conv1d_update (the cache's conv state)
// with the conv's bias and activation, mamba2_chunk_scan for every forward pass of several positions (scoring,
// prefill) and mamba2_selective_state_update for one position on the cache (decoding), then the gated RMSNorm
// (MambaRMSNormGated: silu(gate) first, then RMS over groups of intermediate / normGroups) and out_proj.
#include "decoder/decoder.h"

#include <cmath>
#include <limits>
#include <vector>

namespace ascviz::model {
namespace {

// transformers' segment_sum over the last dimension [..., l] → [..., l, l]: out[i, j] = x[j+1] + … + x[i] for i ≥ j
// (cumulative sums of the masked copies, not differences of cumulative sums), −∞ above the diagonal.
at::Tensor segmentSum(const at::Tensor& x)
{
    const int64_t l = x.size(-1);
    auto sizes = x.sizes().vec();
    sizes.push_back(l);
    const auto boolOpts = at::TensorOptions().dtype(at::kBool).device(x.device());
    const at::Tensor strict = at::ones({l, l}, boolOpts).tril(-1), lower = at::ones({l, l}, boolOpts).tril(0);
    const at::Tensor expanded = x.unsqueeze(-1).expand(sizes).masked_fill(strict.logical_not(), 0.0);
    return expanded.cumsum(-2).masked_fill(lower.logical_not(), -std::numeric_limits<double>::infinity());
}

// [b, T, …] → [b, T + pad, …] with zeros (pad_tensor_by_size), then [b, chunks, chunk, …] (reshape_into_chunks).
at::Tensor chunked(const at::Tensor& x, int64_t pad, int64_t chunk)
{
    std::vector<int64_t> padding(static_cast<std::size_t>(2 * (x.dim() - 1)), 0);
    padding.back() = pad; // the last pair pads dimension 1 at its end
    const at::Tensor padded = pad > 0 ? at::constant_pad_nd(x, padding) : x;
    auto sizes = padded.sizes().vec();
    sizes[1] = -1;
    sizes.insert(sizes.begin() + 2, chunk);
    return padded.reshape(sizes);
}

struct Scan {
    at::Tensor out;   // [b, T, h, p] float32
    at::Tensor state; // [b, h, p, n] float32
};

// mamba2_chunk_scan with dt already through dt_bias, softplus and the time-step clamp: x [b, T, h, p], dt [b, T, h],
// A [h] float32, B, C [b, T, g, n], D [h]; `initial` [b, h, p, n] or undefined (zeros). The diagonal blocks, the
// chunks' states, the inter-chunk recurrence and the state → output terms as contractions over whole tensors.
Scan chunkScan(const at::Tensor& xIn, const at::Tensor& dt, const at::Tensor& A, const at::Tensor& Bin,
               const at::Tensor& Cin, const at::Tensor& D, const at::Tensor& initial, int64_t chunk)
{
    const int64_t b = xIn.size(0), T = xIn.size(1), h = xIn.size(2), p = xIn.size(3), g = Bin.size(2);
    at::Tensor x = xIn.to(at::kFloat);
    const at::Tensor B = Bin.to(at::kFloat).repeat_interleave(h / g, 2);
    const at::Tensor C = Cin.to(at::kFloat).repeat_interleave(h / g, 2);
    const int64_t pad = (chunk - T % chunk) % chunk;
    std::vector<int64_t> tail(6, 0);
    tail.back() = pad;
    const at::Tensor dResidual = D.unsqueeze(-1) * (pad > 0 ? at::constant_pad_nd(x, tail) : x);
    x = x * dt.unsqueeze(-1).to(at::kFloat);
    at::Tensor a = A.to(at::kFloat) * dt.to(at::kFloat);                       // [b, T, h]
    x = chunked(x, pad, chunk);                                                // [b, c, l, h, p]
    a = chunked(a, pad, chunk).permute({0, 3, 1, 2});                          // [b, h, c, l]
    const at::Tensor Bc = chunked(B, pad, chunk), Cc = chunked(C, pad, chunk); // [b, c, l, h, n]
    const at::Tensor cum = a.cumsum(-1);
    // 1. the diagonal blocks: y[l] = Σ_s C[l]·B[s] exp(segsum)[l, s] x[s]
    const at::Tensor L = segmentSum(a).exp();                          // [b, h, c, l, s]
    const at::Tensor G = at::einsum("bclhn,bcshn->bclsh", {Cc, Bc});   // [b, c, l, s, h]
    const at::Tensor M = G * L.permute({0, 2, 3, 4, 1});               // [b, c, l, s, h]
    const at::Tensor yDiag = at::einsum("bclsh,bcshp->bclhp", {M, x}); // [b, c, l, h, p]
    // 2. each chunk's state from its own inputs
    const at::Tensor decay = (cum.narrow(-1, chunk - 1, 1) - cum).exp();      // [b, h, c, l]
    const at::Tensor Bdecay = Bc * decay.permute({0, 2, 3, 1}).unsqueeze(-1); // [b, c, l, h, n]
    at::Tensor states = at::einsum("bclhn,bclhp->bchpn", {Bdecay, x});        // [b, c, h, p, n]
    // 3. the recurrence between chunks: the states at the chunks' starts and the final one
    const at::Tensor previous =
        initial.defined() ? initial.to(at::kFloat).unsqueeze(1) : at::zeros_like(states.narrow(1, 0, 1));
    states = at::cat({previous, states}, 1);                                        // [b, c + 1, h, p, n]
    const at::Tensor last = at::constant_pad_nd(cum.select(-1, chunk - 1), {1, 0}); // [b, h, c + 1]
    const at::Tensor decayChunk = segmentSum(last).exp();                           // [b, h, z, c + 1]
    const at::Tensor newStates = at::einsum("bhzc,bchpn->bzhpn", {decayChunk, states});
    const int64_t n = newStates.size(1) - 1;
    states = newStates.narrow(1, 0, n);
    const at::Tensor final = newStates.select(1, n).contiguous();
    // 4. the states' contribution to each position
    const at::Tensor yOff = at::einsum("bclhn,bchpn->bclhp", {Cc, states}) *
                            cum.exp().permute({0, 2, 3, 1}).unsqueeze(-1); // [b, c, l, h, p]
    at::Tensor out = (yDiag + yOff).reshape({b, -1, h, p}) + dResidual;
    return {out.narrow(1, 0, T), final};
}

} // namespace

at::Tensor Decoder::mamba2(int layer, const at::Tensor& xIn, const at::Tensor& valid, KvCache* cache,
                           int64_t past) const
{
    const auto l = static_cast<std::size_t>(layer);
    const auto& mw = m_w.layers[l].mamba;
    const auto& m = m_spec.mamba;
    const int64_t B = xIn.size(0), T = xIn.size(1);
    const int64_t h = m.heads, p = m.headDim, n = m.stateSize, g = m.groups, I = m.intermediate();
    const auto dtype = xIn.scalar_type();
    // apply_mask_to_padding_states (transformers' recurrent mask is None for one position and where every position
    // is real): the padding inputs and the convolution's padding outputs zeroed.
    const bool masked = valid.defined() && T > 1 && !valid.all().item<bool>();
    auto maskPadding = [&](const at::Tensor& t) { return masked ? (t * valid.unsqueeze(-1)).to(t.scalar_type()) : t; };
    const at::Tensor proj = mw.inProj(maskPadding(xIn)); // [B, T, I + convChannels + h]
    const at::Tensor gate = proj.narrow(-1, 0, I);
    const at::Tensor xBC = proj.narrow(-1, I, m.convChannels()).transpose(1, 2);
    const at::Tensor dtRaw = proj.narrow(-1, I + m.convChannels(), h); // [B, T, h]
    const at::Tensor mixed =
        maskPadding(causalConv(layer, xBC, mw.conv, mw.convBias, m.act, cache, past).transpose(1, 2));
    const at::Tensor x = mixed.narrow(-1, 0, I), Bm = mixed.narrow(-1, I, g * n),
                     Cm = mixed.narrow(-1, I + g * n, g * n);
    const at::Tensor A = -mw.aLog.to(at::kFloat).exp(); // [h]
    at::Tensor scan;
    if (cache && past > 0 && T == 1) { // mamba2_selective_state_update (no time-step clamp there, as transformers)
        at::Tensor& state = cache->state[l]; // [B, h, p, n] float32
        const at::Tensor xs = x.reshape({B, h, p});
        const at::Tensor dt = at::softplus(dtRaw.reshape({B, h, 1}) + mw.dtBias.unsqueeze(-1).to(dtRaw.scalar_type()));
        const at::Tensor dA = (dt.to(at::kFloat) * A.unsqueeze(-1)).exp().unsqueeze(-1); // [B, h, 1, 1]
        const at::Tensor Bh = Bm.reshape({B, g, 1, n}).expand({B, g, h / g, n}).reshape({B, h, 1, n});
        const at::Tensor Ch = Cm.reshape({B, g, 1, n}).expand({B, g, h / g, n}).reshape({B, h, n});
        const at::Tensor dBx = dt.unsqueeze(-1) * Bh * xs.unsqueeze(-1); // [B, h, p, n]
        const at::Tensor next = state * dA + dBx;
        state.copy_(next.to(state.scalar_type()));
        const at::Tensor y = at::matmul(next.to(Ch.scalar_type()), Ch.unsqueeze(-1)).squeeze(-1); // [B, h, p]
        scan = (y + xs * mw.d.unsqueeze(-1)).to(xs.scalar_type()).reshape({B, 1, I});
    } else {
        const at::Tensor dt = at::softplus(dtRaw + mw.dtBias.to(dtRaw.scalar_type())).clamp(m.dtMin, m.dtMax);
        const at::Tensor initial = cache && past > 0 ? cache->state[l] : at::Tensor();
        Scan s = chunkScan(x.reshape({B, T, h, p}), dt, A, Bm.reshape({B, T, g, n}), Cm.reshape({B, T, g, n}), mw.d,
                           initial, m.chunk);
        if (cache)
            cache->state[l].copy_(s.state);
        scan = s.out.reshape({B, T, I});
    }
    // MambaRMSNormGated (norm_before_gate false): x · silu(gate) in float32, RMS-normed per group, cast back to the
    // scan output's dtype, times the weight.
    const auto scanDtype = scan.scalar_type();
    const at::Tensor gated = (scan.to(at::kFloat) * at::silu(gate.to(at::kFloat))).reshape({B, T, m.normGroups, -1});
    const at::Tensor normed = gated * at::rsqrt(gated.pow(2).mean({-1}, /*keepdim=*/true) + m.normEps);
    const at::Tensor y = mw.norm.w * normed.reshape({B, T, I}).to(scanDtype);
    return mw.out(y.to(dtype));
}

} // namespace ascviz::model
