// The mixture-of-experts block of the generic decoder (ArchSpec::moe, MoeWeights in decoder.h), computed as
// transformers 5 computes Mixtral / Qwen2-MoE / Qwen3-MoE: router logits in the compute dtype, softmax in float32,
// the top k, renormalised where the family says, then each chosen expert's gated MLP times its weight, summed per
// token (plus the shared expert, gated by a sigmoid, for qwen2_moe).
//
// The experts run grouped, not per token: the N·k (token, expert) assignments are sorted by expert, the tokens
// gathered once in that order, and each expert that was chosen at all runs one matrix product over its
// contiguous block of rows; index_add_ scatters the weighted rows back to their tokens. The only extra memory is
// the N·k gathered rows and their intermediate activations; the weights stay the stacked tensors of the load.
#include "decoder.h"

#include "ascviz/model/observer.h"

#include <cmath>
#include <tuple>
#include <vector>

namespace ascviz::model {

at::Tensor Decoder::moe(const MoeWeights& m, const at::Tensor& x, int layer, ForwardObserver* expertsTo) const
{
    const auto& spec = m_spec.moe;
    const int64_t H = x.size(-1), K = spec.topK, E = spec.experts, I = spec.expertIntermediate;
    const at::Tensor flat = x.reshape({-1, H}); // [N, H]
    const int64_t N = flat.size(0);

    at::Tensor routerLogits = at::linear(flat, m.router); // [N, E] in the compute dtype
    const auto l = static_cast<std::size_t>(layer);
    if (layer >= 0 && l < m_ablation.blockedExperts.size() && m_ablation.blockedExperts[l].defined())
        routerLogits = routerLogits.masked_fill(m_ablation.blockedExperts[l], -INFINITY); // expert ablation
    const at::Tensor probs = at::softmax(routerLogits.to(at::kFloat), -1);
    auto [weights, ids] = at::topk(probs, K, -1); // [N, K], descending
    if (spec.normTopK)
        weights = weights / weights.sum(-1, /*keepdim=*/true);
    if (spec.routerWeightsInDtype)
        weights = weights.to(x.scalar_type());
    if (expertsTo) {
        auto sizes = x.sizes().vec();
        sizes.back() = 2;
        sizes.push_back(K);
        expertsTo->observe(intermediate::kExperts, layer,
                           at::stack({ids.to(at::kFloat), weights.to(at::kFloat)}, 1).view(sizes));
    }

    // Assignments sorted by expert (stable: within an expert, tokens in order).
    const at::Tensor flatIds = ids.reshape({-1});                                       // [N K]
    const at::Tensor order = std::get<1>(at::sort(flatIds, /*stable=*/true, 0, false)); // [N K]
    const at::Tensor tokenOf = at::div(order, K, "floor");                              // [N K]
    const at::Tensor weightOf = weights.reshape({-1}).index_select(0, order);           // [N K]
    const at::Tensor rows = flat.index_select(0, tokenOf);                              // [N K, H]
    const at::Tensor counts = at::bincount(flatIds, {}, E).to(at::kCPU, at::kLong);     // [E]
    const int64_t* count = counts.data_ptr<int64_t>();

    at::Tensor expertOut = at::empty({N * K, H}, flat.options());
    int64_t offset = 0;
    for (int64_t e = 0; e < E; ++e) {
        const int64_t c = count[e];
        if (c == 0)
            continue;
        const at::Tensor gu = at::linear(rows.narrow(0, offset, c), m.gateUp[e]); // [c, 2I]
        const at::Tensor h = activation(gu.narrow(-1, 0, I)) * gu.narrow(-1, I, I);
        const at::Tensor y = at::linear(h, m.down[e]) * weightOf.narrow(0, offset, c).unsqueeze(1);
        expertOut.narrow(0, offset, c).copy_(y);
        offset += c;
    }
    at::Tensor out = at::zeros_like(flat).index_add_(0, tokenOf, expertOut);

    if (m.sharedUp.w.defined()) {
        const int64_t S = spec.sharedIntermediate;
        const at::Tensor gu = m.sharedUp(flat);
        at::Tensor shared = m.sharedDown(activation(gu.narrow(-1, 0, S)) * gu.narrow(-1, S, S));
        if (m.sharedGate.w.defined())
            shared = at::sigmoid(m.sharedGate(flat)) * shared;
        out = out + shared;
    }
    return out.view(x.sizes());
}

} // namespace ascviz::model
