// The decoder's size and its generation cache: the parameters it holds (Decoder::parameterCount) and the per-layer
// state a cache preallocates for each layer kind (Decoder::makeCache: keys and values for attention, convolution
// inputs and recurrent states for the gated DeltaNet, Mamba-2 and short-convolution layers).
#include "decoder/decoder.h"

namespace ascviz::model {

int64_t Decoder::parameterCount() const
{
    int64_t n = 0;
    auto add = [&](const at::Tensor& t) {
        if (t.defined())
            n += t.numel();
    };
    add(m_w.tokenEmbedding);
    add(m_w.positionEmbedding);
    for (const auto& l : m_w.layers) {
        for (const Norm* nm :
             {&l.ln1, &l.ln2, &l.postAttn, &l.postMlp, &l.qNorm, &l.kNorm, &l.mla.qANorm, &l.mla.kvANorm}) {
            add(nm->w);
            add(nm->b);
        }
        for (const at::Tensor* t : {&l.moe.router, &l.moe.routerBias, &l.moe.gateUp, &l.moe.gateUpBias, &l.moe.down,
                                    &l.moe.downBias, &l.sinks, &l.xielu.alphaP, &l.xielu.alphaN})
            add(*t);
        for (const at::Tensor* t :
             {&l.delta.conv, &l.delta.aLog, &l.delta.dtBias, &l.delta.norm.w, &l.conv.conv, &l.conv.convBias,
              &l.mamba.conv, &l.mamba.convBias, &l.mamba.aLog, &l.mamba.dtBias, &l.mamba.d, &l.mamba.norm.w})
            add(*t);
        for (const Linear* li : {&l.qkv, &l.o, &l.up, &l.down, &l.moe.sharedUp, &l.moe.sharedDown, &l.moe.sharedGate,
                                 &l.mla.qA, &l.mla.qB, &l.mla.kvA, &l.mla.kvB, &l.delta.inProj, &l.delta.out,
                                 &l.conv.inProj, &l.conv.out, &l.mamba.inProj, &l.mamba.out}) {
            add(li->w);
            add(li->b);
        }
    }
    add(m_w.finalNorm.w);
    add(m_w.finalNorm.b);
    if (!m_w.head.is_same(m_w.tokenEmbedding))
        add(m_w.head);
    add(m_w.headBias);
    return n;
}

KvCache Decoder::makeCache(int64_t batch, int64_t capacity) const
{
    KvCache c;
    c.capacity = capacity;
    const auto opts = at::TensorOptions().dtype(m_dtype).device(m_device);
    const auto& d = m_spec.delta;
    const auto& m = m_spec.mamba;
    for (int64_t i = 0; i < m_spec.layers; ++i) {
        const LayerKind kind = m_spec.layerKind(i);
        const bool attention = kind == LayerKind::Attention;
        c.k.push_back(attention ? at::empty({batch, m_spec.kvHeads, capacity, m_spec.headDim}, opts) : at::Tensor());
        c.v.push_back(attention ? at::empty({batch, m_spec.kvHeads, capacity, m_spec.valueDim()}, opts) : at::Tensor());
        if (kind == LayerKind::GatedDeltaNet) {
            c.conv.push_back(at::zeros({batch, d.convChannels(), d.convKernel}, opts));
            c.state.push_back(at::zeros({batch, d.valueHeads, d.keyDim, d.valueDim}, opts.dtype(at::kFloat)));
        } else if (kind == LayerKind::Mamba2) {
            c.conv.push_back(at::zeros({batch, m.convChannels(), m.convKernel}, opts));
            c.state.push_back(at::zeros({batch, m.heads, m.headDim, m.stateSize}, opts.dtype(at::kFloat)));
        } else if (kind == LayerKind::ShortConv) {
            c.conv.push_back(at::zeros({batch, m_spec.hidden, m_spec.shortConv.kernel}, opts));
            c.state.emplace_back();
        } else {
            c.conv.emplace_back();
            c.state.emplace_back();
        }
    }
    return c;
}

} // namespace ascviz::model
