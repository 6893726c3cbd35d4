// The mixture-of-experts families: their config.json readers (arch_config.h) and weight tables (arch_weights.h).
// The attention and the dense layers are llama's; what is new is ArchSpec::moe and MoeWeights, run by
// Decoder::moe (moe.cpp).
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "families/arch_config.h"
#include "families/arch_weights.h"
#include "families/families.h"
#include "formats/mxfp4.h"

#include "ascviz/base/error.h"

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ascviz::model {
namespace cfg {

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

// mellum (transformers 5's Laguna decoder layer): per-head q/k RMSNorm, attention_bias on q/k/v/o, local layers by
// layer_types (default: none) with a rope per layer type (full_attention: any supported type, base 5·10^5 by
// default; sliding_attention: default rope, base 10^4), dense (intermediate_size) or sparse layers by
// mlp_layer_types (default: all sparse); experts of moe_intermediate_size, norm_topk_prob (default on), the top-k
// weights cast to the compute dtype. transformers applies the rotation to whole heads, so a
// partial_rotary_factor other than 1 (which it cannot run) is refused.
void readMellum(const json& j, ArchSpec& s, const std::string& path)
{
    if (const json* params = field(j, {"rope_parameters"}); params && params->is_object())
        for (const auto& [type, p] : params->items())
            if (p.is_object() && p.contains("partial_rotary_factor") && p.at("partial_rotary_factor") != 1.0)
                throw ModelError(path + ": rope_parameters." + type +
                                 ".partial_rotary_factor = " + p.at("partial_rotary_factor").dump() +
                                 " is not supported for mellum (its rotation covers the whole head)");
    double localTheta = 0;
    const json global = perLayerTypeRope(j, 500000.0, "rope_local_base_freq", 10000.0, localTheta, path);
    readLlama(global, s, path);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.mlpBias = false;
    s.qkNorm = QkNorm::PerHead;
    json windows = j;
    if (!j.contains("sliding_window"))
        windows["sliding_window"] = 1024; // MellumConfig's default
    readLayerWindows(windows, s, path, [](int64_t) { return false; });
    s.ropeLocalTheta = localTheta;
    readRouter(j, s, path, {"num_local_experts", "num_experts"}, {"moe_intermediate_size"}, false);
    if (const json* types = field(j, {"mlp_layer_types"}); types && types->is_array()) {
        if (static_cast<int64_t>(types->size()) != s.layers)
            throw ModelError(path + ": mlp_layer_types names " + std::to_string(types->size()) +
                             " layers but num_hidden_layers is " + std::to_string(s.layers));
        for (std::size_t l = 0; l < types->size(); ++l) {
            const json& t = (*types)[l];
            if (t != "sparse" && t != "dense")
                throw ModelError(path + ": mlp_layer_types = " + t.dump() + " is not supported (dense or sparse)");
            s.moe.sparse[l] = t == "sparse";
        }
    }
    s.moe.normTopK = boolOr(j, "norm_topk_prob", true);
    s.moe.routerWeightsInDtype = true;
}

// gpt_oss: llama's attention with q/k/v/o biases (attention_bias, default on) and a learned sink logit per head;
// local (sliding_window) and global layers by layer_types (default: even layers local); RMSNorm as w · x in
// float32; rope_parameters (default yarn factor 32 over 4096 positions, base 1.5·10^5, truncate off); every layer
// num_local_experts clamped-SwiGLU experts of intermediate_size with biases, the router's top k of its biased
// logits softmaxed. transformers 5.17 fixes alpha 1.702 and limit 7.0 (a different swiglu_limit is refused).
// Expert weights in MXFP4 (quantization_config.quant_method "mxfp4", *_blocks/*_scales) are dequantised at load.
void readGptOss(const json& j, ArchSpec& s, const std::string& path)
{
    json c = j;
    const json* params = field(j, {"rope_parameters"});
    if (!params && !field(j, {"rope_scaling"}))
        c["rope_parameters"] = {{"rope_type", "yarn"}, {"factor", 32.0},    {"beta_fast", 32.0},
                                {"beta_slow", 1.0},    {"truncate", false}, {"original_max_position_embeddings", 4096}};
    if (!field(j, {"rope_theta"}) && !(params && params->is_object() && params->contains("rope_theta")))
        c["rope_theta"] = 150000.0;
    readLlama(c, s, path);
    s.norm = NormKind::RMSNormWeightFp32;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", true);
    s.mlpBias = false;
    s.attnSink = AttnSink::PerHead;
    if (!j.contains("sliding_window"))
        c["sliding_window"] = 128; // GptOssConfig's default
    readLayerWindows(c, s, path, [](int64_t l) { return (l + 1) % 2 != 0; });
    readRouter(j, s, path, {"num_local_experts", "num_experts"}, {"intermediate_size"}, false);
    s.moe.routing = ArchSpec::Moe::Routing::TopKThenSoftmax;
    s.moe.expertMlp = ArchSpec::Moe::ExpertMlp::ClampedSwiGlu;
    if (const double limit = numberOr(j, {"swiglu_limit"}, 7.0); limit != 7.0)
        throw ModelError(path + ": swiglu_limit = " + std::to_string(limit) +
                         " is not supported (transformers' gpt_oss clamps at 7.0)");
    if (const json* q = field(j, {"quantization_config"})) {
        const json* method = q->is_object() ? field(*q, {"quant_method"}) : nullptr;
        if (!method || *method != "mxfp4")
            throw ModelError(path + ": quantization_config.quant_method = " + (method ? method->dump() : "null") +
                             " is not supported (gpt_oss: mxfp4 or none)");
    }
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

// gpt_oss's experts of one layer: HF's gate_up_proj [E, H, 2I] (gate and up interleaved by column) with
// gate_up_proj_bias [E, 2I], down_proj [E, I, H] with down_proj_bias [E, H]; or in MXFP4, gate_up_proj_blocks
// [E, 2I, H/32, 16] + gate_up_proj_scales [E, 2I, H/32] (rows interleaved) and down_proj_blocks [E, H, I/32, 16]
// + down_proj_scales [E, H, I/32]. Stored canonically: gateUp [E, 2I, H] as [gate rows; up rows], down [E, H, I].
void gptOssExperts(WeightStore& ws, const ArchSpec& s, const std::string& p, MoeWeights& m)
{
    const int64_t E = s.moe.experts, I = s.moe.expertIntermediate, H = s.hidden;
    const auto deinterleave = [I](const at::Tensor& t) { // [E, 2I, ...] rows g0 u0 g1 u1 ... -> [g...; u...]
        return at::cat({t.slice(1, 0, 2 * I, 2), t.slice(1, 1, 2 * I, 2)}, 1).contiguous();
    };
    m.gateUpBias = deinterleave(ws.get(p + "gate_up_proj_bias", {E, 2 * I}));
    m.downBias = ws.get(p + "down_proj_bias", {E, H});
    at::Tensor gateUp; // [E, 2I, H], rows interleaved
    if (ws.has(p + "gate_up_proj_blocks")) {
        if (H % 32 != 0 || I % 32 != 0)
            throw ModelError(ws.description() +
                             ": MXFP4 experts need hidden_size and intermediate_size divisible by 32");
        const auto dtype = m.gateUpBias.scalar_type(); // the compute dtype
        gateUp = dequantizeMxfp4(ws.get(p + "gate_up_proj_blocks", {E, 2 * I, H / 32, 16}),
                                 ws.get(p + "gate_up_proj_scales", {E, 2 * I, H / 32}), p + "gate_up_proj")
                     .to(dtype);
        m.down = dequantizeMxfp4(ws.get(p + "down_proj_blocks", {E, H, I / 32, 16}),
                                 ws.get(p + "down_proj_scales", {E, H, I / 32}), p + "down_proj")
                     .to(dtype);
    } else {
        gateUp = ws.get(p + "gate_up_proj", {E, H, 2 * I}).transpose(1, 2);
        m.down = ws.get(p + "down_proj", {E, I, H}).transpose(1, 2).contiguous();
    }
    m.gateUp = deinterleave(gateUp);
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

DecoderWeights gptOssWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // every layer sparse: no dense MLP taken there
    for (int64_t l = 0; l < s.layers; ++l) {
        LayerWeights& lw = w.layers[static_cast<std::size_t>(l)];
        const std::string p = layerPrefix(l);
        lw.sinks = ws.get(p + "self_attn.sinks", {s.heads});
        MoeWeights& m = lw.moe;
        m.router = ws.get(p + "mlp.router.weight", {s.moe.experts, s.hidden});
        m.routerBias = ws.get(p + "mlp.router.bias", {s.moe.experts});
        gptOssExperts(ws, s, p + "mlp.experts.", m);
    }
    return w;
}

} // namespace ascviz::model
