// Attention sinks (ArchSpec::attnSink, gpt_oss): each head has a learned logit that joins every query's softmax
// as one more "key" with no value. As transformers 5.17's eager attention computes it: the masked scores and the
// sink side by side, minus their maximum, a softmax, then the sink's column dropped, so that a row sums to
// 1 − p(sink). Those are the probabilities the attention capture reports, the same as transformers'
// output_attentions (which drops the sink column too).
#include "decoder/decoder.h"

namespace ascviz::model {

at::Tensor Decoder::sinkSoftmax(int layer, const at::Tensor& scores) const
{
    // scores [B, kvHeads, rep, T, S] float32; query head g·rep + r uses kv head g, so the sinks [heads] view as
    // [1, kvHeads, rep, 1, 1].
    const int64_t B = scores.size(0), nkv = scores.size(1), rep = scores.size(2), T = scores.size(3);
    const int64_t S = scores.size(4);
    const at::Tensor sinks = m_w.layers[static_cast<std::size_t>(layer)].sinks.to(at::kFloat).view({1, nkv, rep, 1, 1});
    at::Tensor combined = at::cat({scores, sinks.expand({B, nkv, rep, T, 1})}, -1);
    combined = combined - std::get<0>(combined.max(-1, /*keepdim=*/true));
    return at::softmax(combined, -1).narrow(-1, 0, S);
}

} // namespace ascviz::model
