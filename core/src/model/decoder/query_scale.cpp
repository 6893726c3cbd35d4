// The position-dependent query scale of the generic decoder (ArchSpec::queryScaleBeta): ministral3's
// llama_4_scaling_beta, 1 + beta · log(1 + floor(p / original_max_position_embeddings)) per query position p, computed
// in float32 and cast to the compute dtype as transformers' get_llama_4_attn_scale does.
#include "decoder/decoder.h"

namespace ascviz::model {

at::Tensor Decoder::scaleQueries(const at::Tensor& q, int64_t past) const
{
    if (m_spec.queryScaleBeta == 0.0)
        return q;
    const int64_t T = q.size(2);
    const at::Tensor pos = at::arange(past, past + T, q.options().dtype(at::kFloat));
    const at::Tensor scale =
        1 + m_spec.queryScaleBeta * at::log(1 + at::floor(pos / static_cast<double>(m_spec.queryScaleLength)));
    return q * scale.to(q.scalar_type()).view({1, 1, T, 1});
}

} // namespace ascviz::model
