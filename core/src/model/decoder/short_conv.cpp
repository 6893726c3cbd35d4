// The gated short convolution (LayerKind::ShortConv; LFM2's conv layers), computed as transformers 5.17's
// Lfm2ShortConv does on its PyTorch path (causal_conv1d_fn / causal_conv1d_update without the optional
// causal-conv1d kernels): in_proj to [B; C; x], B·x, a causal depthwise convolution of conv_L_cache taps (with the
// convolution's bias where conv_bias, no activation), C times its output, out_proj. Its generation cache is the
// convolution's last inputs (KvCache::conv), continued by causalConv (gated_delta.cpp) as the gated DeltaNet's is.
#include "decoder/decoder.h"

namespace ascviz::model {

at::Tensor Decoder::shortConv(int layer, const at::Tensor& xIn, const at::Tensor& valid, KvCache* cache,
                              int64_t past) const
{
    const auto& cw = m_w.layers[static_cast<std::size_t>(layer)].conv;
    const int64_t H = m_spec.hidden, T = xIn.size(1);
    at::Tensor x = xIn;
    // apply_mask_to_padding_states, as transformers passes it (create_recurrent_attention_mask): no mask for one
    // position, nor where every position is real.
    if (valid.defined() && T > 1 && !valid.all().item<bool>())
        x = (x * valid.unsqueeze(-1)).to(x.scalar_type());
    const at::Tensor bcx = cw.inProj(x).transpose(1, 2); // [B, 3 H, T]
    const at::Tensor b = bcx.narrow(1, 0, H), c = bcx.narrow(1, H, H), v = bcx.narrow(1, 2 * H, H);
    const at::Tensor conv = causalConv(layer, b * v, cw.conv, cw.convBias, std::nullopt, cache, past); // [B, H, T]
    return cw.out((c * conv).transpose(1, 2).contiguous());
}

} // namespace ascviz::model
