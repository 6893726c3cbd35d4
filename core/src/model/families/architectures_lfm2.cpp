// Liquid AI's LFM2 hybrids: gated short-convolution layers (LayerKind::ShortConv, decoder/short_conv.cpp) beside
// attention with per-head q/k RMSNorm; lfm2 with dense SwiGLU MLPs, lfm2_moe with sparse ones (moe.cpp's Sigmoid
// routing). Their config.json readers (arch_config.h) and weight tables (arch_weights.h), as transformers 5.17's
// configuration_lfm2(_moe).py and modeling_lfm2(_moe).py define them.
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "families/arch_config.h"
#include "families/arch_weights.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ascviz::model {
namespace cfg {
namespace {

// What lfm2 and lfm2_moe share: sizes (transformers' defaults where a key is absent), RMSNorm (norm_eps) on every
// block's input (operator_norm, ffn_norm), per head on q and k, and at the end (embedding_norm); rope over the whole
// head (rope_parameters, θ 10^6 by default); tie_word_embeddings (tie_embedding, the original spelling, wins); the
// short convolutions' conv_L_cache and conv_bias. The layer kinds are the reader's.
void readLfm2Common(const json& j, ArchSpec& s, const std::string& path, int64_t hidden)
{
    s.vocab = intOr(j, {"vocab_size"}, 65536);
    s.hidden = intOr(j, {"hidden_size"}, hidden);
    s.layers = intOr(j, {"num_hidden_layers"}, 32);
    s.heads = intOr(j, {"num_attention_heads"}, 32);
    s.kvHeads = intOr(j, {"num_key_value_heads"}, 8);
    if (s.heads <= 0)
        throw ModelError(path + ": num_attention_heads = " + std::to_string(s.heads) + " must be positive");
    s.headDim = intOr(j, {"head_dim"}, s.hidden / s.heads);
    s.context = intOr(j, {"max_position_embeddings"}, 128000);
    s.norm = NormKind::RMSNorm;
    s.normEps = numberOr(j, {"norm_eps"}, 1e-5);
    s.act = Activation::Silu; // Lfm2MLP's F.silu: no hidden_act key
    s.gatedMlp = true;
    s.qkNorm = QkNorm::PerHead;
    s.tieEmbeddings = boolOr(j, "tie_embedding", boolOr(j, "tie_word_embeddings", true));
    s.rope = RopeKind::NeoX;
    readRope(j, s, 1.0, path);
    // transformers' default_theta of the family where neither rope_theta nor rope_parameters.rope_theta is given.
    const json* params = field(j, {"rope_parameters"});
    const json* scaling = field(j, {"rope_scaling"});
    const auto hasTheta = [](const json* o) { return o && o->is_object() && field(*o, {"rope_theta"}); };
    if (!field(j, {"rope_theta"}) && !hasTheta(params) && !hasTheta(scaling))
        s.ropeTheta = 1000000.0;
    if (s.rotaryDim != s.headDim)
        throw ModelError(path + ": partial_rotary_factor = " +
                         json(static_cast<double>(s.rotaryDim) / static_cast<double>(s.headDim)).dump() +
                         " is not supported for " + s.modelType + " (its rotary embedding covers the whole head)");
    s.shortConv.kernel = intOr(j, {"conv_L_cache"}, 3);
    if (s.shortConv.kernel <= 0 || s.shortConv.kernel > 4096)
        throw ModelError(path + ": conv_L_cache = " + std::to_string(s.shortConv.kernel) + " must be in [1, 4096]");
    s.shortConv.bias = boolOr(j, "conv_bias", false);
}

// layer_types: "full_attention" (attention) or "conv" (a short convolution), one per layer.
void readLayerTypes(const json& types, ArchSpec& s, const std::string& path)
{
    if (!types.is_array() || static_cast<int64_t>(types.size()) != s.layers)
        throw ModelError(path + ": layer_types = " + types.dump() + " must list one type per layer (" +
                         std::to_string(s.layers) + ")");
    s.layerKinds.clear();
    for (const auto& t : types) {
        const std::string k = t.is_string() ? t.get<std::string>() : t.dump();
        if (k == "full_attention")
            s.layerKinds.push_back(LayerKind::Attention);
        else if (k == "conv")
            s.layerKinds.push_back(LayerKind::ShortConv);
        else
            throw ModelError(path + ": layer_types = \"" + k + "\" is not supported for " + s.modelType +
                             " (full_attention or conv)");
    }
}

} // namespace

// lfm2: layer_types, else full_attn_idxs (the attention layers' indices; absent: every layer attention); the MLP's
// width from intermediate_size (block_ff_dim, the original spelling, wins) as Lfm2MLP computes it: with
// block_auto_adjust_ff_dim int(2·I/3), then int(block_ffn_dim_multiplier · I) rounded up to a multiple of
// block_multiple_of (a null multiplier, which Lfm2MLP would skip, is refused as transformers 5.17's config refuses
// it).
void readLfm2(const json& j, ArchSpec& s, const std::string& path)
{
    readLfm2Common(j, s, path, 2560);
    if (const json* types = field(j, {"layer_types"})) {
        readLayerTypes(*types, s, path);
    } else {
        const json* idxs = field(j, {"full_attn_idxs"});
        if (idxs && !idxs->is_array())
            throw ModelError(path + ": full_attn_idxs = " + idxs->dump() + " is not a list of layer indices");
        s.layerKinds.assign(static_cast<std::size_t>(s.layers), idxs ? LayerKind::ShortConv : LayerKind::Attention);
        if (idxs)
            for (const auto& v : *idxs) {
                if (!v.is_number_integer())
                    throw ModelError(path + ": full_attn_idxs holds " + v.dump() + ", not a layer index");
                // transformers asks `i in full_attn_idxs` of each layer: other numbers name no layer
                if (const int64_t l = v.get<int64_t>(); l >= 0 && l < s.layers)
                    s.layerKinds[static_cast<std::size_t>(l)] = LayerKind::Attention;
            }
    }
    int64_t width = intOr(j, {"block_ff_dim", "intermediate_size"}, 12288);
    if (boolOr(j, "block_auto_adjust_ff_dim", true)) {
        width = static_cast<int64_t>(2.0 * static_cast<double>(width) / 3.0);
        if (const auto it = j.find("block_ffn_dim_multiplier"); it != j.end() && it->is_null())
            throw ModelError(path + ": block_ffn_dim_multiplier = null is not supported (transformers 5.17's "
                                    "Lfm2Config requires a number)");
        const double m = numberOr(j, {"block_ffn_dim_multiplier"}, 1.0);
        const int64_t multiple = intOr(j, {"block_multiple_of"}, 256);
        if (multiple <= 0)
            throw ModelError(path + ": block_multiple_of = " + std::to_string(multiple) + " must be positive");
        if (!std::isfinite(m) || m <= 0 || m > 1024)
            throw ModelError(path + ": block_ffn_dim_multiplier = " + json(m).dump() + " must be in (0, 1024]");
        width = static_cast<int64_t>(m * static_cast<double>(width));
        width = multiple * ((width + multiple - 1) / multiple);
    }
    s.intermediate = width;
}

// lfm2_moe: layer_types (required: transformers 5.17 reads no full_attn_idxs for it); the first num_dense_layers
// layers with dense SwiGLU MLPs of intermediate_size (no adjustment), the others num_experts experts of
// moe_intermediate_size routed by sigmoid scores (+ the expert bias in the choice where use_expert_bias), the top
// num_experts_per_tok, renormalised when norm_topk_prob, times routed_scaling_factor.
void readLfm2Moe(const json& j, ArchSpec& s, const std::string& path)
{
    readLfm2Common(j, s, path, 2048);
    const json* types = field(j, {"layer_types"});
    if (!types)
        throw ModelError(path + ": layer_types is missing (lfm2_moe needs one type per layer: full_attention or conv; "
                                "full_attn_idxs is not read for it)");
    readLayerTypes(*types, s, path);
    s.intermediate = intOr(j, {"intermediate_size"}, 7168);
    auto& m = s.moe;
    m.experts = intOr(j, {"num_experts"}, 32);
    m.topK = intOr(j, {"num_experts_per_tok"}, 4);
    m.expertIntermediate = intOr(j, {"moe_intermediate_size"}, 1792);
    if (m.experts <= 0 || m.topK <= 0 || m.topK > m.experts || m.expertIntermediate <= 0)
        throw ModelError(path + ": num_experts_per_tok = " + std::to_string(m.topK) + " must be in [1, " +
                         std::to_string(m.experts) + "] experts, each of a positive moe_intermediate_size");
    const int64_t dense = intOr(j, {"num_dense_layers"}, 2);
    m.sparse.clear();
    for (int64_t l = 0; l < s.layers; ++l)
        m.sparse.push_back(l >= dense);
    m.routing = ArchSpec::Moe::Routing::Sigmoid;
    m.expertBias = boolOr(j, "use_expert_bias", true);
    m.normTopK = boolOr(j, "norm_topk_prob", true);
    m.routedScale = numberOr(j, {"routed_scaling_factor"}, 1.0);
    m.routerWeightsInDtype = true;
}

} // namespace cfg

DecoderWeights lfm2Weights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate, hd = s.headDim, K = s.shortConv.kernel;
    const int64_t q = s.heads * hd, kv = s.kvHeads * hd;
    w.tokenEmbedding = ws.get("model.embed_tokens.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LayerWeights lw;
        lw.ln1.w = ws.get(p + "operator_norm.weight", {H});
        lw.ln2.w = ws.get(p + "ffn_norm.weight", {H});
        if (s.layerKind(l) == LayerKind::ShortConv) {
            const std::string c = p + "conv.";
            auto& cw = lw.conv;
            cw.inProj.w = ws.get(c + "in_proj.weight", {3 * H, H});
            cw.conv = ws.get(c + "conv.weight", {H, 1, K});
            cw.out.w = ws.get(c + "out_proj.weight", {H, H});
            if (s.shortConv.bias) {
                cw.inProj.b = ws.get(c + "in_proj.bias", {3 * H});
                cw.convBias = ws.get(c + "conv.bias", {H});
                cw.out.b = ws.get(c + "out_proj.bias", {H});
            }
        } else {
            const std::string a = p + "self_attn.";
            lw.qkv.w = at::cat({ws.get(a + "q_proj.weight", {q, H}), ws.get(a + "k_proj.weight", {kv, H}),
                                ws.get(a + "v_proj.weight", {kv, H})},
                               0)
                           .contiguous();
            lw.o.w = ws.get(a + "out_proj.weight", {H, q});
            lw.qNorm.w = ws.get(a + "q_layernorm.weight", {hd});
            lw.kNorm.w = ws.get(a + "k_layernorm.weight", {hd});
        }
        const std::string f = p + "feed_forward.";
        if (s.moe.experts > 0 && s.moe.sparse[static_cast<std::size_t>(l)]) {
            MoeWeights& e = lw.moe;
            e.router = ws.get(f + "gate.weight", {s.moe.experts, H});
            // A checkpoint without the bias leaves transformers' zeros: the same choice as none.
            if (s.moe.expertBias && ws.has(f + "expert_bias"))
                e.scoreBias = ws.get(f + "expert_bias", {s.moe.experts}).to(at::kFloat);
            experts(ws, s, f + "experts.", "w1", "w3", "w2", e);
        } else {
            lw.up.w = at::cat({ws.get(f + "w1.weight", {I, H}), ws.get(f + "w3.weight", {I, H})}, 0);
            lw.down.w = ws.get(f + "w2.weight", {H, I});
        }
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm.w = ws.get("model.embedding_norm.weight", {H});
    w.head = s.tieEmbeddings ? w.tokenEmbedding : ws.get("lm_head.weight", {s.vocab, H});
    return w;
}

} // namespace ascviz::model
