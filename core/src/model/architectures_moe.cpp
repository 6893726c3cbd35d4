// The mixture-of-experts families: their config.json readers (arch_config.h) and weight tables (arch_weights.h).
// The attention and the dense layers are llama's; what is new is ArchSpec::moe and MoeWeights, run by
// Decoder::moe (moe.cpp).
#include "arch.h"
#include "arch_config.h"
#include "arch_weights.h"
#include "decoder.h"

#include "ascviz/base/error.h"

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ascviz::model {
namespace cfg {
namespace {

// The router's sizes and which layers are sparse: layer l is sparse unless listed in mlp_only_layers, and only
// where (l + 1) % decoder_sparse_step == 0 (qwen2_moe / qwen3_moe; mixtral: every layer).
void readRouter(const json& j, ArchSpec& s, const std::string& path, std::initializer_list<const char*> expertsKey,
                std::initializer_list<const char*> intermediateKey, bool sparseSteps)
{
    auto& m = s.moe;
    m.experts = intField(j, expertsKey, path);
    m.topK = intField(j, {"num_experts_per_tok"}, path);
    m.expertIntermediate = intField(j, intermediateKey, path);
    if (m.experts <= 0 || m.topK <= 0 || m.topK > m.experts || m.expertIntermediate <= 0)
        throw ModelError(path + ": num_experts_per_tok = " + std::to_string(m.topK) + " must be in [1, " +
                         std::to_string(m.experts) + "] experts, each of a positive intermediate size");
    m.sparse.assign(static_cast<std::size_t>(s.layers), true);
    if (!sparseSteps)
        return;
    const int64_t step = intOr(j, {"decoder_sparse_step"}, 1);
    if (step <= 0)
        throw ModelError(path + ": decoder_sparse_step = " + std::to_string(step) + " must be positive");
    for (int64_t l = 0; l < s.layers; ++l)
        m.sparse[static_cast<std::size_t>(l)] = (l + 1) % step == 0;
    if (const json* only = field(j, {"mlp_only_layers"}); only && only->is_array())
        for (const auto& v : *only) {
            if (!v.is_number_integer())
                throw ModelError(path + ": mlp_only_layers holds " + v.dump() + ", not a layer index");
            // transformers ignores an index that is not a layer; so does this
            if (const int64_t l = v.get<int64_t>(); l >= 0 && l < s.layers)
                m.sparse[static_cast<std::size_t>(l)] = false;
        }
}

} // namespace

// mixtral: mistral's attention (sliding_window), every layer a mixture of experts of intermediate_size, the
// top-k weights always renormalised, in float32.
void readMixtral(const json& j, ArchSpec& s, const std::string& path)
{
    readMistral(j, s, path);
    readRouter(j, s, path, {"num_local_experts", "num_experts"}, {"intermediate_size"}, false);
    s.moe.normTopK = true;
    s.moe.routerWeightsInDtype = false;
}

// qwen2_moe: qwen2's attention (q/k/v biases as qkv_bias), experts of moe_intermediate_size, a shared expert of
// shared_expert_intermediate_size scaled by sigmoid(shared_expert_gate · x), norm_topk_prob.
void readQwen2Moe(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.qkvBias = boolOr(j, "qkv_bias", true);
    s.outBias = s.mlpBias = false;
    readQwenWindows(j, s);
    readRouter(j, s, path, {"num_experts", "num_local_experts"}, {"moe_intermediate_size"}, true);
    s.moe.normTopK = boolOr(j, "norm_topk_prob", false);
    s.moe.sharedIntermediate = intOr(j, {"shared_expert_intermediate_size"}, 0);
    s.moe.sharedGate = s.moe.sharedIntermediate > 0;
    s.moe.routerWeightsInDtype = true;
}

// qwen3_moe: qwen3's attention (per-head q/k norms, attention_bias), a sliding window on every layer only where
// use_sliding_window is on, experts of moe_intermediate_size, norm_topk_prob, no shared expert.
void readQwen3Moe(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.mlpBias = false;
    s.qkNorm = QkNorm::PerHead;
    if (boolOr(j, "use_sliding_window", false))
        if (const int64_t w = intOr(j, {"sliding_window"}, 0); w > 0)
            s.window.assign(static_cast<std::size_t>(s.layers), w);
    readRouter(j, s, path, {"num_experts", "num_local_experts"}, {"moe_intermediate_size"}, true);
    s.moe.normTopK = boolOr(j, "norm_topk_prob", false);
    s.moe.routerWeightsInDtype = true;
}

} // namespace cfg

namespace {

at::Tensor stackExperts(WeightStore& ws, const std::string& prefix, int64_t experts, const char* name,
                        std::vector<int64_t> shape)
{
    std::vector<at::Tensor> parts;
    parts.reserve(static_cast<std::size_t>(experts));
    for (int64_t e = 0; e < experts; ++e)
        parts.push_back(ws.get(prefix + std::to_string(e) + "." + name + ".weight", shape));
    return at::stack(parts, 0);
}

} // namespace

void experts(WeightStore& ws, const ArchSpec& s, const std::string& prefix, const char* gate, const char* up,
             const char* down, MoeWeights& m)
{
    const int64_t E = s.moe.experts, I = s.moe.expertIntermediate, H = s.hidden;
    if (ws.has(prefix + "gate_up_proj")) {
        m.gateUp = ws.get(prefix + "gate_up_proj", {E, 2 * I, H});
        m.down = ws.get(prefix + "down_proj", {E, H, I});
        return;
    }
    m.gateUp = at::cat({stackExperts(ws, prefix, E, gate, {I, H}), stackExperts(ws, prefix, E, up, {I, H})}, 1);
    m.down = stackExperts(ws, prefix, E, down, {H, I});
}

namespace {

std::string layerPrefix(int64_t l)
{
    return "model.layers." + std::to_string(l) + ".";
}

} // namespace

DecoderWeights mixtralWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // every layer sparse: no dense MLP taken there
    for (int64_t l = 0; l < s.layers; ++l) {
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = layerPrefix(l) + "block_sparse_moe.";
        m.router = ws.get(p + "gate.weight", {s.moe.experts, s.hidden});
        experts(ws, s, p + "experts.", "w1", "w3", "w2", m);
    }
    return w;
}

DecoderWeights qwenMoeWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // the dense layers' mlp.{gate,up,down}_proj
    const int64_t H = s.hidden, S = s.moe.sharedIntermediate;
    for (int64_t l = 0; l < s.layers; ++l) {
        if (!s.moe.sparse[static_cast<std::size_t>(l)])
            continue;
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = layerPrefix(l) + "mlp.";
        m.router = ws.get(p + "gate.weight", {s.moe.experts, H});
        experts(ws, s, p + "experts.", "gate_proj", "up_proj", "down_proj", m);
        if (S > 0) {
            m.sharedUp.w = at::cat({ws.get(p + "shared_expert.gate_proj.weight", {S, H}),
                                    ws.get(p + "shared_expert.up_proj.weight", {S, H})},
                                   0);
            m.sharedDown.w = ws.get(p + "shared_expert.down_proj.weight", {H, S});
        }
        if (s.moe.sharedGate)
            m.sharedGate.w = ws.get(p + "shared_expert_gate.weight", {1, H});
    }
    return w;
}

} // namespace ascviz::model
