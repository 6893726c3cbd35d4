// The Mamba-2 hybrid families, Mamba-2 (SSD) layers (LayerKind::Mamba2, decoder/mamba2.cpp) beside attention: their
// config.json readers (arch_config.h) and weight tables (arch_weights.h).
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "families/arch_config.h"
#include "families/arch_weights.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ascviz::model {
namespace cfg {
namespace {

// A float of config.json as transformers 5 writes it: a number, or {"__float__": "Infinity" | "-Infinity" | "NaN"}
// for the values JSON cannot spell (also such a string alone).
double floatValue(const json& v, const std::string& what)
{
    if (v.is_number())
        return v.get<double>();
    const json* text = &v;
    if (v.is_object() && v.contains("__float__"))
        text = &v.at("__float__");
    if (text->is_string()) {
        const std::string t = text->get<std::string>();
        if (t == "Infinity" || t == "inf" || t == "+inf")
            return std::numeric_limits<double>::infinity();
        if (t == "-Infinity" || t == "-inf")
            return -std::numeric_limits<double>::infinity();
    }
    throw ModelError(what + " = " + v.dump() + " is not supported (a number or infinity)");
}

// time_step_limit [min, max]: dt clamped to it in the chunked scan.
void readTimeStepLimit(const json& j, ArchSpec::Mamba2& m, const std::string& path, const char* key)
{
    const json* limit = field(j, {key});
    if (!limit)
        return;
    if (!limit->is_array() || limit->size() != 2)
        throw ModelError(path + ": " + key + " = " + limit->dump() + " is not supported (a pair [min, max])");
    m.dtMin = floatValue((*limit)[0], path + ": " + key + "[0]");
    m.dtMax = floatValue((*limit)[1], path + ": " + key + "[1]");
    if (std::isnan(m.dtMin) || std::isnan(m.dtMax) || m.dtMin > m.dtMax)
        throw ModelError(path + ": " + key + " = " + limit->dump() + " is not supported (min ≤ max)");
}

// The sizes every Mamba-2 mixer shares, checked as transformers' configs and mixers need them.
void checkMamba(const ArchSpec::Mamba2& m, const std::string& path)
{
    if (m.heads <= 0 || m.headDim <= 0 || m.groups <= 0 || m.stateSize <= 0 || m.convKernel <= 0 || m.chunk <= 0)
        throw ModelError(path + ": the Mamba-2 sizes (heads, head dim, groups, state size, conv kernel, chunk size) "
                                "must be positive");
    if (m.heads % m.groups != 0)
        throw ModelError(path + ": " + std::to_string(m.heads) + " Mamba-2 heads are not a multiple of " +
                         std::to_string(m.groups) + " groups");
    if (m.normGroups <= 0 || m.intermediate() % m.normGroups != 0)
        throw ModelError(path + ": the Mamba-2 gated norm's " + std::to_string(m.normGroups) +
                         " groups do not divide its " + std::to_string(m.intermediate()) + " channels");
}

// layer_types with transformers' legacy names (remap_legacy_layer_types): linear_attention (mamba) is a Mamba-2 layer,
// full_attention (attention) an attention layer.
void readMambaLayerTypes(const json& types, ArchSpec& s, const std::string& path)
{
    if (!types.is_array() || static_cast<int64_t>(types.size()) != s.layers)
        throw ModelError(path + ": layer_types = " + types.dump() +
                         " must list num_hidden_layers = " + std::to_string(s.layers) + " layer types");
    for (const auto& t : types) {
        const std::string k = t.is_string() ? t.get<std::string>() : t.dump();
        if (k == "linear_attention" || k == "mamba")
            s.layerKinds.push_back(LayerKind::Mamba2);
        else if (k == "full_attention" || k == "attention")
            s.layerKinds.push_back(LayerKind::Attention);
        else
            throw ModelError(path + ": layer_types = \"" + k + "\" is not supported for " + s.modelType +
                             " (linear_attention / mamba or full_attention / attention)");
    }
}

} // namespace

// granitemoehybrid (IBM Granite 4.0-H; transformers 5.17's GraniteMoeHybridConfig and its defaults): Mamba-2 and
// attention layers by layer_types (every layer mamba by default); granite's embedding, residual and attention
// multipliers and logits scaling; rope or no position embedding (position_embedding_type); the mamba_* sizes,
// mamba_chunk_size, mamba_conv_bias, mamba_proj_bias, time_step_limit, the gated norm over all channels; every MLP
// num_local_experts experts (granitemoe's router) plus the shared MLP, or the shared MLP alone where
// num_local_experts is 0.
void readGraniteMoeHybrid(const json& j, ArchSpec& s, const std::string& path)
{
    s.vocab = intOr(j, {"vocab_size"}, 32000);
    s.hidden = intOr(j, {"hidden_size"}, 4096);
    s.layers = intOr(j, {"num_hidden_layers"}, 32);
    s.heads = intOr(j, {"num_attention_heads"}, 32);
    s.kvHeads = intOr(j, {"num_key_value_heads"}, s.heads);
    if (s.heads <= 0 || s.hidden <= 0 || s.layers <= 0)
        throw ModelError(path + ": hidden_size, num_hidden_layers and num_attention_heads must be positive");
    s.headDim = intOr(j, {"head_dim"}, s.hidden / s.heads);
    s.context = intOr(j, {"max_position_embeddings"}, 2048);
    s.norm = NormKind::RMSNorm;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-6);
    s.act = activationField(j, {"hidden_act"}, "silu", path);
    if (s.act == Activation::XIelu)
        throw ModelError(path + ": hidden_act = \"xielu\" is not supported for granitemoehybrid");
    s.gatedMlp = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.embedScale = numberOr(j, {"embedding_multiplier"}, 1.0);
    s.residualScale = numberOr(j, {"residual_multiplier"}, 1.0);
    s.attnScale.assign(static_cast<std::size_t>(s.layers), numberOr(j, {"attention_multiplier"}, 1.0));
    s.logitsDivisor = numberOr(j, {"logits_scaling"}, 1.0);

    const json* position = field(j, {"position_embedding_type"});
    const std::string positionType = position && position->is_string() ? position->get<std::string>() : "";
    if (positionType == "rope") {
        s.rope = RopeKind::NeoX;
        readRope(j, s, 1.0, path);
        if (s.rotaryDim != s.headDim)
            throw ModelError(path + ": partial_rotary_factor is not supported for granitemoehybrid (its rope rotates "
                                    "the whole head)");
    } else if (position && !(position->is_null() || positionType == "nope")) {
        throw ModelError(path + ": position_embedding_type = " + position->dump() +
                         " is not supported for granitemoehybrid (\"rope\", \"nope\" or null)");
    }

    s.layerKinds.clear();
    if (const json* types = field(j, {"layer_types", "layers_block_type"}))
        readMambaLayerTypes(*types, s, path);
    else
        s.layerKinds.assign(static_cast<std::size_t>(s.layers), LayerKind::Mamba2);

    auto& m = s.mamba;
    m.heads = intOr(j, {"mamba_n_heads"}, 128);
    m.groups = intOr(j, {"mamba_n_groups"}, 1);
    m.stateSize = intOr(j, {"mamba_d_state"}, 256);
    m.convKernel = intOr(j, {"mamba_d_conv"}, 4);
    m.chunk = intOr(j, {"mamba_chunk_size"}, 256);
    m.convBias = boolOr(j, "mamba_conv_bias", true);
    m.projBias = boolOr(j, "mamba_proj_bias", false);
    m.normEps = s.normEps;
    m.act = s.act;
    m.normGroups = 1; // GraniteMoeHybridRMSNormGated: one RMS over all intermediate channels
    const int64_t expand = intOr(j, {"mamba_expand"}, 2);
    const int64_t intermediate = expand * s.hidden;
    if (m.heads <= 0 || intermediate % m.heads != 0)
        throw ModelError(path + ": mamba_n_heads = " + std::to_string(m.heads) +
                         " must divide mamba_expand * hidden_size = " + std::to_string(intermediate));
    const json* dHead = field(j, {"mamba_d_head"});
    if (!dHead || (dHead->is_string() && dHead->get<std::string>() == "auto"))
        m.headDim = intermediate / m.heads;
    else if (dHead->is_number_integer())
        m.headDim = dHead->get<int64_t>();
    else
        throw ModelError(path + ": mamba_d_head = " + dHead->dump() + " is not supported (an integer or \"auto\")");
    if (m.headDim * m.heads != intermediate)
        throw ModelError(path + ": mamba_d_head = " + std::to_string(m.headDim) +
                         " times mamba_n_heads = " + std::to_string(m.heads) +
                         " is not mamba_expand * hidden_size = " + std::to_string(intermediate));
    if (const json* limit = field(j, {"time_step_limit"}); !limit && j.contains("time_step_limit"))
        throw ModelError(path + ": time_step_limit = null is not supported (transformers' scan needs a pair)");
    readTimeStepLimit(j, m, path, "time_step_limit");
    checkMamba(m, path);

    const int64_t experts = intOr(j, {"num_local_experts"}, 8);
    const int64_t shared = intOr(j, {"shared_intermediate_size"}, 1024);
    if (experts < 0)
        throw ModelError(path + ": num_local_experts = " + std::to_string(experts) + " must not be negative");
    if (experts == 0) { // the shared MLP alone, as a dense MLP
        if (shared <= 0)
            throw ModelError(path + ": shared_intermediate_size = " + std::to_string(shared) +
                             " must be positive where num_local_experts is 0 (the shared MLP is the only MLP)");
        s.intermediate = shared;
        return;
    }
    auto& e = s.moe;
    e.experts = experts;
    e.topK = intOr(j, {"num_experts_per_tok"}, 2);
    e.expertIntermediate = intOr(j, {"intermediate_size"}, 11008);
    if (e.topK <= 0 || e.topK > e.experts || e.expertIntermediate <= 0)
        throw ModelError(path + ": num_experts_per_tok = " + std::to_string(e.topK) + " must be in [1, " +
                         std::to_string(e.experts) + "] experts, each of a positive intermediate_size");
    if (shared < 0)
        throw ModelError(path + ": shared_intermediate_size = " + std::to_string(shared) + " must not be negative");
    e.sparse.assign(static_cast<std::size_t>(s.layers), true);
    e.routing = ArchSpec::Moe::Routing::TopKThenSoftmax;
    e.softmaxFp32 = true;
    e.routerWeightsInDtype = true;
    e.sharedIntermediate = shared; // 0: a zero-wide shared MLP adds nothing
    s.intermediate = e.expertIntermediate;
}

// nemotron_h (NVIDIA Nemotron-H, Nemotron 3 Nano; transformers 5.17's NemotronHConfig and its defaults): each layer one
// block x += mixer(norm(x)) (Residual::SingleMixer) whose mixer is by layers_block_type (else hybrid_override_pattern:
// M, *, -, E) a Mamba-2 mixer (linear_attention), attention without rope (full_attention), an ungated MLP (mlp) or a
// mixture of ungated experts (moe: deepseek_v3's grouped sigmoid router with its correction bias, plus the shared
// expert). The mixers' sizes under their current names or the legacy mamba_* ones that NemotronHConfig pops first.
void readNemotronH(const json& j, ArchSpec& s, const std::string& path)
{
    s.vocab = intOr(j, {"vocab_size"}, 131072);
    s.hidden = intOr(j, {"hidden_size"}, 4096);
    std::vector<std::string> types;
    if (const json* list = field(j, {"layers_block_type", "layer_types"})) {
        if (!list->is_array())
            throw ModelError(path + ": layers_block_type = " + list->dump() + " is not a list of block types");
        for (const auto& t : *list)
            types.push_back(t.is_string() ? t.get<std::string>() : t.dump());
    } else if (const json* pattern = field(j, {"hybrid_override_pattern"})) {
        if (!pattern->is_string())
            throw ModelError(path + ": hybrid_override_pattern = " + pattern->dump() + " is not a string");
        for (const char c : pattern->get<std::string>()) {
            const std::string k = c == 'M'   ? "linear_attention"
                                  : c == '*' ? "full_attention"
                                  : c == '-' ? "mlp"
                                  : c == 'E' ? "moe"
                                             : "";
            if (k.empty())
                throw ModelError(path + ": hybrid_override_pattern = " + pattern->dump() + " holds '" +
                                 std::string(1, c) + "' (M, *, - or E)");
            types.push_back(k);
        }
    } else {
        types = {"linear_attention", "moe", "full_attention", "mlp"};
    }
    s.layers = static_cast<int64_t>(types.size());
    s.layerKinds.clear();
    std::vector<bool> sparse;
    for (const auto& k : types) {
        if (k == "linear_attention" || k == "mamba" || k == "conv")
            s.layerKinds.push_back(LayerKind::Mamba2);
        else if (k == "full_attention" || k == "attention")
            s.layerKinds.push_back(LayerKind::Attention);
        else if (k == "mlp" || k == "moe")
            s.layerKinds.push_back(LayerKind::Mlp);
        else
            throw ModelError(path + ": layers_block_type = \"" + k +
                             "\" is not supported for nemotron_h (linear_attention, full_attention, mlp or moe)");
        sparse.push_back(k == "moe");
    }
    if (s.layers == 0)
        throw ModelError(path + ": layers_block_type lists no layers");
    s.heads = intOr(j, {"num_attention_heads"}, 32);
    s.kvHeads = intOr(j, {"num_key_value_heads"}, s.heads);
    if (!field(j, {"num_key_value_heads"}) && !j.contains("num_key_value_heads"))
        s.kvHeads = 8;
    s.headDim = intOr(j, {"head_dim"}, 128);
    s.context = intOr(j, {"max_position_embeddings"}, 4096);
    s.norm = NormKind::RMSNorm;
    s.normEps = numberOr(j, {"layer_norm_epsilon"}, 1e-5);
    s.residual = Residual::SingleMixer;
    s.rope = RopeKind::None; // NemotronHAttention rotates nothing
    s.act = activationField(j, {"mlp_hidden_act"}, "relu2", path);
    if (s.act == Activation::XIelu)
        throw ModelError(path + ": mlp_hidden_act = \"xielu\" is not supported for nemotron_h");
    s.gatedMlp = false;
    s.mlpBias = boolOr(j, "mlp_bias", false);
    s.intermediate = intOr(j, {"intermediate_size"}, 21504);
    s.tieEmbeddings = false; // NemotronHForCausalLM ties nothing (its _tied_weights_keys is empty)

    auto& m = s.mamba;
    m.heads = intOr(j, {"mamba_num_heads"}, 128);
    m.headDim = intOr(j, {"mamba_head_dim"}, 64);
    m.stateSize = intOr(j, {"ssm_state_size"}, 128);
    m.groups = intOr(j, {"mamba_n_groups", "n_groups"}, 8);
    m.convKernel = intOr(j, {"mamba_d_conv", "conv_kernel"}, 4);
    m.chunk = intOr(j, {"mamba_chunk_size", "chunk_size"}, 128);
    m.convBias = j.contains("mamba_conv_bias") ? boolOr(j, "mamba_conv_bias", true) : boolOr(j, "use_conv_bias", true);
    m.projBias = boolOr(j, "use_bias", false);
    m.act = activationField(j, {"mamba_hidden_act"}, "silu", path);
    if (m.act == Activation::XIelu)
        throw ModelError(path + ": mamba_hidden_act = \"xielu\" is not supported for nemotron_h");
    // The mixer clamps dt to (time_step_min, ∞) (time_step_limit is not read by it).
    m.dtMin = numberOr(j, {"mamba_dt_min", "time_step_min"}, 0.001);
    m.dtMax = std::numeric_limits<double>::infinity();
    m.normGroups = m.groups; // Zamba2RMSNormGated: group_size = intermediate / n_groups
    m.normEps = s.normEps;
    checkMamba(m, path);

    bool anySparse = false;
    for (const bool b : sparse)
        anySparse = anySparse || b;
    if (!anySparse)
        return;
    if (const json* latent = field(j, {"moe_latent_size"}))
        throw ModelError(path + ": moe_latent_size = " + latent->dump() +
                         " is not supported (the experts' latent projections)");
    auto& e = s.moe;
    e.experts = intOr(j, {"n_routed_experts", "num_local_experts"}, 8);
    e.topK = intOr(j, {"num_experts_per_tok"}, 2);
    e.expertIntermediate = intOr(j, {"moe_intermediate_size"}, 7688);
    e.sharedIntermediate = intOr(j, {"moe_shared_expert_intermediate_size"}, 7688);
    e.groups = intOr(j, {"n_group"}, 1);
    e.topkGroup = intOr(j, {"topk_group"}, 1);
    e.normTopK = boolOr(j, "norm_topk_prob", true);
    e.routedScale = numberOr(j, {"routed_scaling_factor"}, 1.0);
    if (e.experts <= 0 || e.topK <= 0 || e.topK > e.experts || e.expertIntermediate <= 0 || e.sharedIntermediate < 0)
        throw ModelError(path + ": num_experts_per_tok = " + std::to_string(e.topK) + " must be in [1, " +
                         std::to_string(e.experts) + "] experts, each of a positive moe_intermediate_size");
    if (e.groups <= 0 || e.experts % e.groups != 0 || e.experts / e.groups < 2 || e.topkGroup <= 0 ||
        e.topkGroup > e.groups)
        throw ModelError(path + ": n_group = " + std::to_string(e.groups) + " and topk_group = " +
                         std::to_string(e.topkGroup) + " are not supported for " + std::to_string(e.experts) +
                         " experts (groups of at least 2 experts, topk_group in [1, n_group])");
    e.sparse = sparse;
    e.routing = ArchSpec::Moe::Routing::SigmoidGrouped;
    e.expertMlp = ArchSpec::Moe::ExpertMlp::Plain;
    e.routerFp32 = true;
    e.sortedTopK = false;
    e.routerWeightsInDtype = false;
}

} // namespace cfg

namespace {

Linear linearOf(WeightStore& ws, const std::string& name, int64_t out, int64_t in, bool bias)
{
    Linear l;
    l.w = ws.get(name + ".weight", {out, in});
    if (bias)
        l.b = ws.get(name + ".bias", {out});
    return l;
}

// A Mamba-2 mixer's tensors under `p` (in_proj, conv1d, dt_bias, A_log, D, norm, out_proj).
Mamba2Weights mambaWeights(WeightStore& ws, const ArchSpec& s, const std::string& p)
{
    const auto& m = s.mamba;
    const int64_t H = s.hidden, I = m.intermediate(), C = m.convChannels();
    Mamba2Weights w;
    w.inProj = linearOf(ws, p + "in_proj", I + C + m.heads, H, m.projBias);
    w.conv = ws.get(p + "conv1d.weight", {C, 1, m.convKernel});
    if (m.convBias)
        w.convBias = ws.get(p + "conv1d.bias", {C});
    w.dtBias = ws.get(p + "dt_bias", {m.heads});
    w.aLog = ws.get(p + "A_log", {m.heads});
    w.d = ws.get(p + "D", {m.heads});
    w.norm.w = ws.get(p + "norm.weight", {I});
    w.out = linearOf(ws, p + "out_proj", H, I, m.projBias);
    return w;
}

// q_proj, k_proj, v_proj fused into [q; k; v], and o_proj, under `p`.
void attentionWeights(WeightStore& ws, const ArchSpec& s, const std::string& p, LayerWeights& lw)
{
    const int64_t H = s.hidden, q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
    const Linear parts[] = {linearOf(ws, p + "q_proj", q, H, s.qkvBias), linearOf(ws, p + "k_proj", kv, H, s.qkvBias),
                            linearOf(ws, p + "v_proj", kv, H, s.qkvBias)};
    lw.qkv.w = at::cat({parts[0].w, parts[1].w, parts[2].w}, 0).contiguous();
    if (s.qkvBias)
        lw.qkv.b = at::cat({parts[0].b, parts[1].b, parts[2].b}, 0).contiguous();
    lw.o = linearOf(ws, p + "o_proj", H, q, s.outBias);
}

} // namespace

DecoderWeights graniteMoeHybridWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, E = s.moe.experts;
    w.tokenEmbedding = ws.get("model.embed_tokens.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LayerWeights lw;
        lw.ln1.w = ws.get(p + "input_layernorm.weight", {H});
        lw.ln2.w = ws.get(p + "post_attention_layernorm.weight", {H});
        if (s.layerKind(l) == LayerKind::Mamba2)
            lw.mamba = mambaWeights(ws, s, p + "mamba.");
        else
            attentionWeights(ws, s, p + "self_attn.", lw);
        if (E > 0) {
            const int64_t I = s.moe.expertIntermediate, S = s.moe.sharedIntermediate;
            MoeWeights& m = lw.moe;
            m.router = ws.get(p + "block_sparse_moe.router.layer.weight", {E, H});
            m.gateUp = ws.get(p + "block_sparse_moe.input_linear.weight", {E, 2 * I, H}); // [gate; up] per expert
            m.down = ws.get(p + "block_sparse_moe.output_linear.weight", {E, H, I});
            if (S > 0) {
                m.sharedUp.w = ws.get(p + "shared_mlp.input_linear.weight", {2 * S, H}); // [gate; up]
                m.sharedDown.w = ws.get(p + "shared_mlp.output_linear.weight", {H, S});
            }
        } else {
            const int64_t S = s.intermediate;
            lw.up.w = ws.get(p + "shared_mlp.input_linear.weight", {2 * S, H});
            lw.down.w = ws.get(p + "shared_mlp.output_linear.weight", {H, S});
        }
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm.w = ws.get("model.norm.weight", {H});
    w.head = s.tieEmbeddings ? w.tokenEmbedding : ws.get("lm_head.weight", {s.vocab, H});
    return w;
}

DecoderWeights nemotronHWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate;
    // save_pretrained writes the backbone's tensors under "backbone."; "model." is read as well.
    const std::string base = ws.has("backbone.embeddings.weight") ? "backbone." : "model.";
    w.tokenEmbedding = ws.get(base + "embeddings.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = base + "layers." + std::to_string(l) + ".", mx = p + "mixer.";
        LayerWeights lw;
        lw.ln1.w = ws.get(p + "norm.weight", {H});
        const LayerKind kind = s.layerKind(l);
        if (kind == LayerKind::Mamba2) {
            lw.mamba = mambaWeights(ws, s, mx);
        } else if (kind == LayerKind::Attention) {
            attentionWeights(ws, s, mx, lw);
        } else if (s.moe.experts > 0 && s.moe.sparse[static_cast<std::size_t>(l)]) {
            const int64_t E = s.moe.experts, EI = s.moe.expertIntermediate, S = s.moe.sharedIntermediate;
            MoeWeights& m = lw.moe;
            m.router = ws.get(mx + "gate.weight", {E, H});
            m.scoreBias = ws.get(mx + "gate.e_score_correction_bias", {E}).to(at::kFloat);
            if (ws.has(mx + "experts.up_proj")) { // fused [E, I, H] and [E, H, I]
                m.gateUp = ws.get(mx + "experts.up_proj", {E, EI, H});
                m.down = ws.get(mx + "experts.down_proj", {E, H, EI});
            } else {
                std::vector<at::Tensor> up, down;
                for (int64_t e = 0; e < E; ++e) {
                    const std::string x = mx + "experts." + std::to_string(e) + ".";
                    up.push_back(ws.get(x + "up_proj.weight", {EI, H}));
                    down.push_back(ws.get(x + "down_proj.weight", {H, EI}));
                }
                m.gateUp = at::stack(up);
                m.down = at::stack(down);
            }
            if (S > 0) {
                m.sharedUp = linearOf(ws, mx + "shared_experts.up_proj", S, H, s.mlpBias);
                m.sharedDown = linearOf(ws, mx + "shared_experts.down_proj", H, S, s.mlpBias);
            }
        } else {
            lw.up = linearOf(ws, mx + "up_proj", I, H, s.mlpBias);
            lw.down = linearOf(ws, mx + "down_proj", H, I, s.mlpBias);
        }
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm.w = ws.get(base + "norm_f.weight", {H});
    w.head = ws.get("lm_head.weight", {s.vocab, H});
    return w;
}

} // namespace ascviz::model
