// The mixture-of-experts block of the generic decoder (ArchSpec::moe, MoeWeights in decoder.h), computed as
// transformers 5 computes Mixtral / Qwen2-MoE / Qwen3-MoE / DeepSeek-V2 / DeepSeek-V3: the router (route():
// softmax, group-limited softmax or deepseek_v3's grouped sigmoid with its correction bias), the top k,
// renormalised and scaled where the family says, then each chosen expert's gated MLP times its weight, summed per
// token (plus the shared expert, gated by a sigmoid for qwen2_moe, ungated for deepseek). gpt_oss routes the other
// way round (the top k of the biased router logits, then a softmax over them) and its experts are clamped SwiGLUs
// with biases; lfm2_moe's router takes sigmoid scores in the compute dtype, chosen with its expert bias;
// ernie4_5_moe chooses by softmax probabilities plus a correction bias (deepseek_v3's choice over
// softmax scores), and phimoe's sparsemixer picks two experts one after the other, each weighted by a softmax over
// the logits near its maximum (sparseMixer()).
//
// The experts run grouped, not per token: the N·k (token, expert) assignments are sorted by expert, the tokens
// gathered once in that order, and each expert that was chosen at all runs one matrix product over its
// contiguous block of rows; index_add_ scatters the weighted rows back to their tokens. The only extra memory is
// the N·k gathered rows and their intermediate activations; the weights stay the stacked tensors of the load.
#include "decoder/decoder.h"
#include "kernels/cpu_linear.h"

#include "ascviz/model/observer.h"

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

namespace ascviz::model {

namespace {

// The router's and experts' products as the dense layers' (cpu_linear.h): float32 on the CPU through the direct
// oneDNN path with each expert's weights packed on its first use (within ASCVIZ_DNNL_PACK_MB), the 16-bit weights'
// path (lowp_linear.h) when the weights are kept in the checkpoint's dtype, LibTorch's at::linear otherwise.
at::Tensor expertLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b)
{
    return cpuAwareLinear(x, w, b);
}

// The groups' mask [N, E] (true: may be chosen) of the topkGroup groups with the highest `groupScores` [N, G].
at::Tensor groupMask(const at::Tensor& groupScores, int64_t topkGroup, int64_t E)
{
    const int64_t N = groupScores.size(0), G = groupScores.size(1);
    const at::Tensor chosen = std::get<1>(at::topk(groupScores, topkGroup, -1, true, /*sorted=*/false));
    const at::Tensor mask = at::zeros_like(groupScores).scatter_(1, chosen, 1.0);
    return mask.unsqueeze(-1).expand({N, G, E / G}).reshape({N, E}).to(at::kBool);
}

// phimoe's sparsemixer in eval mode (ArchSpec::Moe::Routing::SparseMixer) of the router logits [N, E] in the compute
// dtype: two experts, each the maximum of the logits left, weighted by its softmax over the logits near that maximum.
std::tuple<at::Tensor, at::Tensor> sparseMixer(const at::Tensor& logits, double jitterEps)
{
    const double inf = std::numeric_limits<double>::infinity();
    const auto pick = [&](const at::Tensor& left) { // left: the logits still competing (the others -inf)
        auto [top, id] = left.max(-1, /*keepdim=*/true);
        const at::Tensor far = ((top - logits) / logits.abs().clamp_min(top)) > 2 * jitterEps;
        const at::Tensor w = at::softmax(left.masked_fill(far, -inf), -1).gather(-1, id);
        return std::make_pair(w, id);
    };
    const auto [w1, id1] = pick(logits);
    const auto [w2, id2] = pick(logits.scatter(-1, id1, -inf));
    return {at::cat({w1, w2}, -1), at::cat({id1, id2}, -1)};
}

} // namespace

// The routing weights (float32; Sigmoid: the compute dtype) and ids [N, K] of `flat` [N, H] as ArchSpec::Moe::routing
// says.
std::tuple<at::Tensor, at::Tensor> Decoder::route(const MoeWeights& m, const at::Tensor& flat, int layer) const
{
    // Expert ablation (method.md 14.1): the blocked experts' router logits are -inf, so the router never chooses
    // them (their probability is 0; under sigmoid scores their choice score is -inf too).
    at::Tensor blocked;
    const auto l = static_cast<std::size_t>(layer);
    if (layer >= 0 && l < m_ablation.blockedExperts.size() && m_ablation.blockedExperts[l].defined())
        blocked = m_ablation.blockedExperts[l];
    const auto block = [&blocked](at::Tensor t) { return blocked.defined() ? t.masked_fill(blocked, -INFINITY) : t; };
    using Routing = ArchSpec::Moe::Routing;
    const auto& spec = m_spec.moe;
    const int64_t K = spec.topK, E = spec.experts, N = flat.size(0), G = spec.groups;
    at::Tensor weights, ids;
    if (spec.routing == Routing::TopKThenSoftmax) { // gpt_oss: the biased logits' top k, softmax in the compute dtype
        std::tie(weights, ids) = at::topk(block(expertLinear(flat, m.router, m.routerBias)), K, -1);
        weights = at::softmax(spec.softmaxFp32 ? weights.to(at::kFloat) : weights, -1);
        if (spec.normTopK)
            weights = weights / weights.sum(-1, /*keepdim=*/true);
        return {weights, ids};
    }
    if (spec.routing == Routing::Sigmoid) { // lfm2_moe: scores and weights in the compute dtype
        const at::Tensor scores = at::sigmoid(block(expertLinear(flat, m.router, {})));
        ids = std::get<1>(at::topk(block(m.scoreBias.defined() ? scores + m.scoreBias.to(at::kFloat) : scores), K, -1));
        weights = scores.gather(1, ids);
        if (spec.normTopK)
            weights = weights / (weights.sum(-1, /*keepdim=*/true) + 1e-6);
        return {spec.routedScale != 1.0 ? weights * spec.routedScale : weights, ids};
    }
    if (spec.routing == Routing::SparseMixer)
        return sparseMixer(block(expertLinear(flat, m.router, {})), spec.jitterEps);
    const at::Tensor logits = block(spec.routerFp32 ? at::linear(flat.to(at::kFloat), m.router.to(at::kFloat))
                                                    : expertLinear(flat, m.router, {}).to(at::kFloat)); // [N, E]
    if (spec.routing == Routing::SigmoidGrouped || spec.routing == Routing::SoftmaxBiased) {
        const at::Tensor scores =
            spec.routing == Routing::SoftmaxBiased ? at::softmax(logits, -1) : at::sigmoid(logits);
        at::Tensor choice = block(scores + m.scoreBias.to(at::kFloat));
        if (spec.topkGroup < G) {
            const at::Tensor top2 = std::get<0>(at::topk(choice.view({N, G, E / G}), 2, -1)).sum(-1); // [N, G]
            choice = choice.masked_fill(groupMask(top2, spec.topkGroup, E).logical_not(),
                                        -std::numeric_limits<float>::infinity());
        }
        ids = std::get<1>(at::topk(choice, K, -1, true, spec.sortedTopK));
        weights = scores.gather(1, ids);
        if (spec.normTopK) {
            at::Tensor sum = weights.sum(-1, /*keepdim=*/true);
            if (spec.normEps != 0)
                sum = sum + spec.normEps;
            weights = weights / (spec.normMin > 0 ? sum.clamp_min(spec.normMin) : sum);
        }
    } else {
        at::Tensor probs = at::softmax(logits, -1);
        if (spec.routing == Routing::SoftmaxGroupLimited)
            probs = probs.masked_fill(
                groupMask(std::get<0>(probs.view({N, G, E / G}).max(-1)), spec.topkGroup, E).logical_not(), 0.0);
        std::tie(weights, ids) = at::topk(probs, K, -1, true, spec.sortedTopK);
        if (spec.normTopK)
            weights = weights / weights.sum(-1, /*keepdim=*/true);
    }
    if (spec.routedScale != 1.0)
        weights = weights * spec.routedScale;
    return {weights, ids};
}

at::Tensor Decoder::moe(const MoeWeights& m, const at::Tensor& x, int layer, ForwardObserver* expertsTo) const
{
    const auto& spec = m_spec.moe;
    const int64_t H = x.size(-1), K = spec.topK, E = spec.experts, I = spec.expertIntermediate;
    const at::Tensor flat = x.reshape({-1, H}); // [N, H]
    const int64_t N = flat.size(0);

    auto [weights, ids] = route(m, flat, layer); // [N, K]
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

    const auto bias = [](const at::Tensor& b, int64_t e) { return b.defined() ? b[e] : at::Tensor(); };
    // act(gate) · up, or gpt_oss's clamped SwiGLU: (clamp(up, ±limit) + 1) · g · sigmoid(alpha · g) with
    // g = min(gate, limit), as transformers' GptOssExperts._apply_gate.
    const auto expertActivation = [&](const at::Tensor& gate, const at::Tensor& up) {
        if (spec.expertMlp == ArchSpec::Moe::ExpertMlp::Gated)
            return activation(gate) * up;
        const at::Tensor g = gate.clamp_max(spec.swigluLimit);
        return (up.clamp(-spec.swigluLimit, spec.swigluLimit) + 1) * (g * at::sigmoid(g * spec.swigluAlpha));
    };
    at::Tensor expertOut = at::empty({N * K, H}, flat.options());
    int64_t offset = 0;
    for (int64_t e = 0; e < E; ++e) {
        const int64_t c = count[e];
        if (c == 0)
            continue;
        const at::Tensor gu = expertLinear(rows.narrow(0, offset, c), m.gateUp[e], bias(m.gateUpBias, e)); // [c, 2I]
        const at::Tensor h = spec.expertMlp == ArchSpec::Moe::ExpertMlp::Plain
                                 ? activation(gu)
                                 : expertActivation(gu.narrow(-1, 0, I), gu.narrow(-1, I, I));
        const at::Tensor y =
            expertLinear(h, m.down[e], bias(m.downBias, e)) * weightOf.narrow(0, offset, c).unsqueeze(1);
        expertOut.narrow(0, offset, c).copy_(y);
        offset += c;
    }
    at::Tensor out = at::zeros_like(flat).index_add_(0, tokenOf, expertOut);

    if (m.sharedUp.w.defined()) {
        const int64_t S = spec.sharedIntermediate;
        const at::Tensor gu = m.sharedUp(flat);
        at::Tensor shared = spec.expertMlp == ArchSpec::Moe::ExpertMlp::Plain
                                ? m.sharedDown(activation(gu))
                                : m.sharedDown(activation(gu.narrow(-1, 0, S)) * gu.narrow(-1, S, S));
        if (m.sharedGate.w.defined())
            shared = at::sigmoid(m.sharedGate(flat)) * shared;
        out = out + shared;
    }
    return out.view(x.sizes());
}

} // namespace ascviz::model
