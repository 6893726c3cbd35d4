// Multi-head latent attention (AttentionKind::Latent; DeepSeek-V2 and -V3), computed as transformers 5's
// DeepseekV2Attention / DeepseekV3Attention compute it:
//   q = q_b_proj(rms(q_a_proj(x)))  (or q_proj(x) without q_lora_rank), per head [q_nope; q_rope];
//   [latent; k_rope] = kv_a_proj_with_mqa(x); per head [k_nope; v] = kv_b_proj(rms(latent));
//   k = [k_nope; k_rope] with the one k_rope shared by every head; rope on q_rope and k_rope only.
// The rotation is the spec's rope kind on the rope part: GPT-J's interleaved pairs for deepseek_v2 (its complex
// product) and for deepseek_v3 with rope_interleave (which rotates the same pairs and stores them as two halves,
// the same dot products), NeoX halves otherwise. The two latent norms are RMSNorms of epsilon 1e-6 (transformers
// builds them without rms_norm_eps). The decoder's attend() then runs the ordinary scaled-dot-product attention of
// q, k (nope + rope wide) over v (vDim wide), so attention capture sees the real probabilities; the KV cache holds
// the decompressed k and v (more memory than the latent, the same numbers).
#include "decoder/decoder.h"

#include <tuple>

namespace ascviz::model {
namespace {

at::Tensor latentNorm(const Norm& n, const at::Tensor& x)
{
    const at::Tensor xf = x.to(at::kFloat);
    const at::Tensor var = xf.pow(2).mean({-1}, /*keepdim=*/true);
    return n.w * (xf * at::rsqrt(var + 1e-6)).to(x.scalar_type());
}

} // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> Decoder::latentHeads(const LayerWeights& lw, const at::Tensor& x,
                                                                    const at::Tensor& cos, const at::Tensor& sin) const
{
    const auto& m = m_spec.mla;
    const MlaWeights& w = lw.mla;
    const int64_t B = x.size(0), T = x.size(1), nh = m_spec.heads;
    const int64_t nope = m.nopeDim, rope = m.ropeDim, vd = m.vDim;

    const at::Tensor qFlat = w.qA.w.defined() ? w.qB(latentNorm(w.qANorm, w.qA(x))) : w.qB(x);
    const at::Tensor q = qFlat.view({B, T, nh, nope + rope}).transpose(1, 2); // [B, nh, T, nope + rope]
    at::Tensor qNope = q.narrow(-1, 0, nope), qRope = q.narrow(-1, nope, rope);

    const at::Tensor compressed = w.kvA(x); // [B, T, kvLoraRank + rope]
    const at::Tensor latent = latentNorm(w.kvANorm, compressed.narrow(-1, 0, m.kvLoraRank));
    at::Tensor kRope = compressed.narrow(-1, m.kvLoraRank, rope).unsqueeze(1); // [B, 1, T, rope]
    if (cos.defined()) {
        qRope = rotary(qRope, cos, sin);
        kRope = rotary(kRope, cos, sin);
    }
    const at::Tensor kv = w.kvB(latent).view({B, T, nh, nope + vd}).transpose(1, 2); // [B, nh, T, nope + v]
    const at::Tensor k = at::cat({kv.narrow(-1, 0, nope), kRope.expand({B, nh, T, rope})}, -1);
    return {at::cat({qNope, qRope}, -1), k, kv.narrow(-1, nope, vd)};
}

} // namespace ascviz::model
