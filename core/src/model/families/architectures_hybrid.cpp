// The hybrid families, gated DeltaNet layers (LayerKind::GatedDeltaNet, decoder/gated_delta.cpp) beside gated
// attention: their config.json readers (arch_config.h) and weight tables (arch_weights.h).
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "families/arch_config.h"
#include "families/arch_weights.h"

#include "ascviz/base/error.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ascviz::model {
namespace cfg {

// qwen3_next (transformers 5.17's Qwen3NextConfig and its defaults): layer_types (linear_attention, full_attention;
// the legacy names as remap_legacy_layer_types reads them), else every full_attention_interval-th layer full
// attention; gated attention (q_proj emits a per-head output gate), per-head q/k norms, partial rotary (0.25 by
// default), zero-centred RMSNorm x·(1 + w) everywhere; the gated DeltaNet's linear_* sizes and
// linear_conv_kernel_dim; dense MLPs (num_experts 0) or qwen2_moe's experts with a shared expert.
namespace {

// What qwen3_next, qwen3_5_text and qwen3_5_moe_text share: everything but the MLPs.
void readGatedHybrid(const json& j, ArchSpec& s, const std::string& path, bool needsIntermediate)
{
    s.vocab = intField(j, {"vocab_size"}, path);
    s.hidden = intField(j, {"hidden_size"}, path);
    s.layers = intField(j, {"num_hidden_layers"}, path);
    s.heads = intField(j, {"num_attention_heads"}, path);
    s.kvHeads = intOr(j, {"num_key_value_heads"}, 2);
    s.headDim = intOr(j, {"head_dim"}, 256);
    s.context = intOr(j, {"max_position_embeddings"}, 32768);
    if (needsIntermediate)
        s.intermediate = intField(j, {"intermediate_size"}, path);
    s.norm = NormKind::RMSNormPlusOne;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-6);
    s.act = activationField(j, {"hidden_act"}, "silu", path);
    s.gatedMlp = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.qkNorm = QkNorm::PerHead;
    s.attnOutputGate = true;
    s.rope = RopeKind::NeoX;
    readRope(j, s, 0.25, path);

    s.layerKinds.clear();
    if (const json* types = field(j, {"layer_types"}); types && types->is_array()) {
        if (static_cast<int64_t>(types->size()) != s.layers)
            throw ModelError(path + ": layer_types names " + std::to_string(types->size()) +
                             " layers but num_hidden_layers is " + std::to_string(s.layers));
        for (const auto& t : *types) {
            const std::string k = t.is_string() ? t.get<std::string>() : t.dump();
            if (k == "linear_attention" || k == "mamba" || k == "conv")
                s.layerKinds.push_back(LayerKind::GatedDeltaNet);
            else if (k == "full_attention" || k == "attention")
                s.layerKinds.push_back(LayerKind::Attention);
            else
                throw ModelError(path + ": layer_types = \"" + k + "\" is not supported for " + s.modelType +
                                 " (linear_attention or full_attention)");
        }
    } else {
        const int64_t interval = intOr(j, {"full_attention_interval"}, 4);
        if (interval <= 0)
            throw ModelError(path + ": full_attention_interval = " + std::to_string(interval) + " must be positive");
        for (int64_t l = 0; l < s.layers; ++l)
            s.layerKinds.push_back((l + 1) % interval != 0 ? LayerKind::GatedDeltaNet : LayerKind::Attention);
    }
    auto& d = s.delta;
    d.convKernel = intOr(j, {"linear_conv_kernel_dim"}, 4);
    d.keyDim = intOr(j, {"linear_key_head_dim"}, 128);
    d.valueDim = intOr(j, {"linear_value_head_dim"}, 128);
    d.keyHeads = intOr(j, {"linear_num_key_heads"}, 16);
    d.valueHeads = intOr(j, {"linear_num_value_heads"}, 32);
    if (d.convKernel <= 0 || d.keyDim <= 0 || d.valueDim <= 0 || d.keyHeads <= 0 || d.valueHeads <= 0)
        throw ModelError(path + ": linear_conv_kernel_dim, linear_key_head_dim, linear_value_head_dim, "
                                "linear_num_key_heads and linear_num_value_heads must be positive");
    if (d.valueHeads % d.keyHeads != 0)
        throw ModelError(path + ": linear_num_value_heads = " + std::to_string(d.valueHeads) +
                         " is not a multiple of linear_num_key_heads = " + std::to_string(d.keyHeads));
}

} // namespace

void readQwen3Next(const json& j, ArchSpec& s, const std::string& path)
{
    readGatedHybrid(j, s, path, true);
    s.delta.groupedProjections = true;
    if (intOr(j, {"num_experts"}, 512) > 0) {
        readRouter(j, s, path, {"num_experts"}, {"moe_intermediate_size"}, true);
        s.moe.normTopK = boolOr(j, "norm_topk_prob", true);
        s.moe.sharedIntermediate = intOr(j, {"shared_expert_intermediate_size"}, 512);
        s.moe.sharedGate = s.moe.sharedIntermediate > 0; // a zero-wide shared expert adds sigmoid(·) · 0
        s.moe.routerWeightsInDtype = true;
    }
}

// qwen3_5_text (Qwen3.5's text model): qwen3_next's layers with plain in_proj_qkv / in_proj_z / in_proj_b / in_proj_a
// and dense MLPs. Its multimodal rope (mrope_section) rotates text positions as the ordinary rope does (the three
// position axes are equal for text), so rope_parameters is read as qwen3_next's.
void readQwen35Text(const json& j, ArchSpec& s, const std::string& path)
{
    readGatedHybrid(j, s, path, true);
}

// qwen3_5_moe_text: qwen3_5_text's layers, every MLP num_experts experts (top num_experts_per_tok, always
// renormalised) with a sigmoid-gated shared expert (shared_expert_intermediate_size); no dense MLP.
void readQwen35MoeText(const json& j, ArchSpec& s, const std::string& path)
{
    readGatedHybrid(j, s, path, false);
    readRouter(j, s, path, {"num_experts"}, {"moe_intermediate_size"}, false);
    s.intermediate = s.moe.expertIntermediate; // no dense MLP: only for the size checks
    s.moe.normTopK = true;
    s.moe.sharedIntermediate = intOr(j, {"shared_expert_intermediate_size"}, 512);
    s.moe.sharedGate = s.moe.sharedIntermediate > 0;
    s.moe.routerWeightsInDtype = true;
}

} // namespace cfg

namespace {

std::string prefix(int64_t l)
{
    return "model.layers." + std::to_string(l) + ".";
}

// Rows [n, width, in] of a per-group projection, cut along the width into parts and each part's rows put one group
// after the other: the parts one after another.
std::vector<at::Tensor> ungroup(const at::Tensor& w, int64_t groups, const std::vector<int64_t>& widths)
{
    int64_t total = 0;
    for (const int64_t x : widths)
        total += x;
    const at::Tensor g = w.reshape({groups, total, w.size(-1)});
    std::vector<at::Tensor> out;
    int64_t at = 0;
    for (const int64_t x : widths) {
        out.push_back(g.narrow(1, at, x).reshape({groups * x, w.size(-1)}));
        at += x;
    }
    return out;
}

} // namespace

DecoderWeights qwen3NextWeights(WeightStore& ws, const ArchSpec& s)
{
    // qwen3_next's projections grouped per key head (fix_query_key_value_ordering); qwen3_5's plain.
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate, hd = s.headDim;
    const int64_t q = s.heads * hd, kv = s.kvHeads * hd;
    const auto& d = s.delta;
    const int64_t Kd = d.keyHeads * d.keyDim, Vd = d.valueHeads * d.valueDim, r = d.valueHeads / d.keyHeads;
    auto bias = [&](const std::string& name, int64_t n) { return s.qkvBias ? ws.get(name, {n}) : at::Tensor(); };
    w.tokenEmbedding = ws.get("model.embed_tokens.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = prefix(l);
        LayerWeights lw;
        lw.ln1.w = ws.get(p + "input_layernorm.weight", {H});
        lw.ln2.w = ws.get(p + "post_attention_layernorm.weight", {H});
        if (s.layerKind(l) == LayerKind::GatedDeltaNet) {
            const std::string a = p + "linear_attn.";
            auto& g = lw.delta;
            if (d.groupedProjections) {
                auto qkvz = ungroup(ws.get(a + "in_proj_qkvz.weight", {2 * Kd + 2 * Vd, H}), d.keyHeads,
                                    {d.keyDim, d.keyDim, r * d.valueDim, r * d.valueDim});
                const auto ba = ungroup(ws.get(a + "in_proj_ba.weight", {2 * d.valueHeads, H}), d.keyHeads, {r, r});
                qkvz.insert(qkvz.end(), ba.begin(), ba.end());
                g.inProj.w = at::cat(qkvz, 0).contiguous();
            } else {
                g.inProj.w =
                    at::cat({ws.get(a + "in_proj_qkv.weight", {2 * Kd + Vd, H}),
                             ws.get(a + "in_proj_z.weight", {Vd, H}), ws.get(a + "in_proj_b.weight", {d.valueHeads, H}),
                             ws.get(a + "in_proj_a.weight", {d.valueHeads, H})},
                            0)
                        .contiguous();
            }
            g.conv = ws.get(a + "conv1d.weight", {d.convChannels(), 1, d.convKernel});
            g.dtBias = ws.get(a + "dt_bias", {d.valueHeads});
            g.aLog = ws.get(a + "A_log", {d.valueHeads});
            g.norm.w = ws.get(a + "norm.weight", {d.valueDim});
            g.out.w = ws.get(a + "out_proj.weight", {H, Vd});
        } else {
            const std::string a = p + "self_attn.";
            // q_proj: per head [query (hd); gate (hd)] -> the queries, then the gates after k and v.
            const auto qg = ungroup(ws.get(a + "q_proj.weight", {2 * q, H}), s.heads, {hd, hd});
            lw.qkv.w =
                at::cat({qg[0], ws.get(a + "k_proj.weight", {kv, H}), ws.get(a + "v_proj.weight", {kv, H}), qg[1]}, 0)
                    .contiguous();
            if (s.qkvBias) {
                const at::Tensor qb = bias(a + "q_proj.bias", 2 * q).reshape({s.heads, 2, hd});
                lw.qkv.b = at::cat({qb.select(1, 0).reshape({q}), bias(a + "k_proj.bias", kv),
                                    bias(a + "v_proj.bias", kv), qb.select(1, 1).reshape({q})},
                                   0);
            }
            lw.o.w = ws.get(a + "o_proj.weight", {H, q});
            if (s.outBias)
                lw.o.b = ws.get(a + "o_proj.bias", {H});
            lw.qNorm.w = ws.get(a + "q_norm.weight", {hd});
            lw.kNorm.w = ws.get(a + "k_norm.weight", {hd});
        }
        const std::string m = p + "mlp.";
        if (s.moe.experts > 0 && s.moe.sparse[static_cast<std::size_t>(l)]) {
            MoeWeights& e = lw.moe;
            const int64_t S = s.moe.sharedIntermediate;
            e.router = ws.get(m + "gate.weight", {s.moe.experts, H});
            experts(ws, s, m + "experts.", "gate_proj", "up_proj", "down_proj", e);
            if (S > 0) {
                e.sharedUp.w = at::cat({ws.get(m + "shared_expert.gate_proj.weight", {S, H}),
                                        ws.get(m + "shared_expert.up_proj.weight", {S, H})},
                                       0);
                e.sharedDown.w = ws.get(m + "shared_expert.down_proj.weight", {H, S});
                e.sharedGate.w = ws.get(m + "shared_expert_gate.weight", {1, H});
            }
        } else {
            lw.up.w = at::cat({ws.get(m + "gate_proj.weight", {I, H}), ws.get(m + "up_proj.weight", {I, H})}, 0);
            lw.down.w = ws.get(m + "down_proj.weight", {H, I});
        }
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm.w = ws.get("model.norm.weight", {H});
    w.head = s.tieEmbeddings ? w.tokenEmbedding : ws.get("lm_head.weight", {s.vocab, H});
    return w;
}

} // namespace ascviz::model
