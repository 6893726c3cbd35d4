// DeepSeek-V2 and -V3 (deepseek_v2, deepseek_v3): their config.json readers (arch_config.h) and weight tables
// (arch_weights.h), as transformers 5.17 reads and runs them. New computations: multi-head latent attention
// (AttentionKind::Latent, mla.cpp) and the grouped routers (ArchSpec::Moe::Routing, moe.cpp); the rest is llama's
// (RMSNorm, SwiGLU, sequential residual). Layers from first_k_dense_replace on are mixtures of experts with
// n_shared_experts shared experts (no gate) of moe_intermediate_size each.
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "families/arch_config.h"
#include "families/arch_weights.h"
#include "families/families.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ascviz::model {
namespace cfg {
namespace {

std::string str(double v)
{
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s;
}

// The rope parameters as transformers 5 standardises them (rope_parameters, else the legacy rope_scaling):
// the type and mscale_all_dim / factor, for yarn_apply_mscale.
double softmaxScale(const json& j, const ArchSpec& s, const std::string& path)
{
    const double base = 1.0 / std::sqrt(static_cast<double>(s.mla.nopeDim + s.mla.ropeDim));
    const json* p = field(j, {"rope_parameters"});
    if (!p || !p->is_object())
        p = field(j, {"rope_scaling"});
    if (!p || !p->is_object())
        return base;
    std::string type = "default";
    for (const char* k : {"rope_type", "type"})
        if (const auto it = p->find(k); it != p->end() && it->is_string()) {
            type = it->get<std::string>();
            break;
        }
    const double all = numberOr(*p, {"mscale_all_dim"}, 0.0);
    if (type == "default" || all == 0.0)
        return base;
    const json* f = field(*p, {"factor"});
    if (!f || !f->is_number())
        throw ModelError(path + ": rope_parameters.mscale_all_dim = " + str(all) +
                         " needs rope_parameters.factor (the softmax scale's yarn correction)");
    const double factor = f->get<double>();
    const double m = factor <= 1 ? 1.0 : 0.1 * all * std::log(factor) + 1.0;
    return base * m * m;
}

// The attention and the dense layers of both versions.
void readDeepseek(const json& j, ArchSpec& s, const std::string& path)
{
    s.vocab = intField(j, {"vocab_size"}, path);
    s.hidden = intField(j, {"hidden_size"}, path);
    s.layers = intField(j, {"num_hidden_layers"}, path);
    s.heads = intField(j, {"num_attention_heads"}, path);
    s.kvHeads = s.heads;
    if (const int64_t kv = intOr(j, {"num_key_value_heads"}, s.heads); kv != s.heads)
        throw ModelError(path + ": num_key_value_heads = " + std::to_string(kv) +
                         ": multi-head latent attention decompresses a key and value for each of the " +
                         std::to_string(s.heads) + " num_attention_heads; transformers needs the two equal");
    s.context = intField(j, {"max_position_embeddings"}, path);
    s.intermediate = intField(j, {"intermediate_size"}, path);
    s.norm = NormKind::RMSNorm;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-6);
    s.act = activationField(j, {"hidden_act"}, "silu", path);
    s.gatedMlp = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false); // q_a_proj, kv_a_proj_with_mqa and o_proj
    if (intOr(j, {"pretraining_tp"}, 1) != 1)
        throw ModelError(path + ": pretraining_tp > 1 is not supported");

    auto& m = s.mla;
    s.attention = AttentionKind::Latent;
    m.qLoraRank = intOr(j, {"q_lora_rank"}, 0); // null: q_proj
    m.kvLoraRank = intField(j, {"kv_lora_rank"}, path);
    m.nopeDim = intField(j, {"qk_nope_head_dim"}, path);
    m.ropeDim = intField(j, {"qk_rope_head_dim"}, path);
    m.vDim = intField(j, {"v_head_dim"}, path);
    if (m.qLoraRank < 0 || m.kvLoraRank <= 0 || m.nopeDim < 0 || m.ropeDim <= 0 || m.vDim <= 0)
        throw ModelError(path + ": q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim must "
                                "be positive (q_lora_rank may be null)");
    // The rope runs on qk_rope_head_dim (transformers sets head_dim to it) with the spec's scaling types.
    s.headDim = m.ropeDim;
    readRope(j, s, 1.0, path);
    if (s.rotaryDim != m.ropeDim)
        throw ModelError(path + ": partial_rotary_factor must be 1 (rope on all qk_rope_head_dim = " +
                         std::to_string(m.ropeDim) + " dims)");
    s.headDim = m.nopeDim + m.ropeDim;
    s.attnScale.assign(static_cast<std::size_t>(s.layers), softmaxScale(j, s, path));
}

// Experts, shared experts and which layers are sparse (first_k_dense_replace, moe_layer_freq).
void readDeepseekMoe(const json& j, ArchSpec& s, const std::string& path)
{
    auto& m = s.moe;
    m.experts = intField(j, {"n_routed_experts", "num_experts", "num_local_experts"}, path);
    m.topK = intField(j, {"num_experts_per_tok"}, path);
    m.expertIntermediate = intField(j, {"moe_intermediate_size"}, path);
    if (m.experts <= 0 || m.topK <= 0 || m.topK > m.experts || m.expertIntermediate <= 0)
        throw ModelError(path + ": num_experts_per_tok = " + std::to_string(m.topK) + " must be in [1, " +
                         std::to_string(m.experts) + "] n_routed_experts, each of a positive moe_intermediate_size");
    const int64_t shared = intOr(j, {"n_shared_experts"}, 0);
    if (shared < 0)
        throw ModelError(path + ": n_shared_experts = " + std::to_string(shared) + " must not be negative");
    m.sharedIntermediate = m.expertIntermediate * shared;
    m.routedScale = numberOr(j, {"routed_scaling_factor"}, 1.0);
    m.routerFp32 = true;
    m.sortedTopK = false;
    m.routerWeightsInDtype = false;
    // transformers 5.17 makes layer l sparse iff l >= first_k_dense_replace; the original checkpoints' code also
    // reads moe_layer_freq, which transformers ignores: a frequency other than 1 is refused as ambiguous.
    if (const int64_t freq = intOr(j, {"moe_layer_freq"}, 1); freq != 1)
        throw ModelError(path + ": moe_layer_freq = " + std::to_string(freq) +
                         " is not supported (transformers ignores it; only 1 is the same computation in both)");
    const int64_t firstSparse = intOr(j, {"first_k_dense_replace"}, 0);
    m.sparse.assign(static_cast<std::size_t>(s.layers), false);
    for (int64_t l = 0; l < s.layers; ++l)
        m.sparse[static_cast<std::size_t>(l)] = l >= firstSparse;
}

void readGroups(const json& j, ArchSpec& s, const std::string& path, int64_t minGroupSize)
{
    auto& m = s.moe;
    m.groups = intOr(j, {"n_group"}, 1);
    m.topkGroup = intOr(j, {"topk_group"}, m.groups);
    if (m.groups <= 0 || m.experts % m.groups != 0 || m.experts / m.groups < minGroupSize || m.topkGroup <= 0 ||
        m.topkGroup > m.groups)
        throw ModelError(path + ": n_group = " + std::to_string(m.groups) +
                         ", topk_group = " + std::to_string(m.topkGroup) + ": the " + std::to_string(m.experts) +
                         " n_routed_experts must split into n_group equal groups of at least " +
                         std::to_string(minGroupSize) + " experts, and topk_group be in [1, n_group]");
}

} // namespace

// deepseek_v2: softmax routing, topk_method greedy or group_limited_greedy (n_group, topk_group), the weights times
// routed_scaling_factor (never renormalised in transformers 5.17), interleaved (GPT-J) rope, mlp_bias on the dense
// and shared MLPs.
void readDeepseekV2(const json& j, ArchSpec& s, const std::string& path)
{
    readDeepseek(j, s, path);
    s.rope = RopeKind::GptJ;
    s.mlpBias = boolOr(j, "mlp_bias", false);
    readDeepseekMoe(j, s, path);
    const std::string method = j.contains("topk_method") && j["topk_method"].is_string()
                                   ? j["topk_method"].get<std::string>()
                                   : std::string("greedy");
    if (method == "group_limited_greedy") {
        s.moe.routing = ArchSpec::Moe::Routing::SoftmaxGroupLimited;
        readGroups(j, s, path, 1);
    } else if (method != "greedy") {
        throw ModelError(path + ": topk_method = \"" + method +
                         "\" is not supported for deepseek_v2 (greedy, group_limited_greedy)");
    }
    if (boolOr(j, "norm_topk_prob", false))
        throw ModelError(path + ": norm_topk_prob = true is not supported for deepseek_v2 (transformers 5.17 ignores "
                                "it, the original code renormalises: the computation is ambiguous)");
}

// deepseek_v3: sigmoid routing with e_score_correction_bias for the choice, grouped top-k (top-2 sum per group),
// norm_topk_prob, routed_scaling_factor; rope interleaved (rope_interleave, the default) or NeoX halves.
void readDeepseekV3(const json& j, ArchSpec& s, const std::string& path)
{
    readDeepseek(j, s, path);
    s.rope = boolOr(j, "rope_interleave", true) ? RopeKind::GptJ : RopeKind::NeoX;
    readDeepseekMoe(j, s, path);
    s.moe.routing = ArchSpec::Moe::Routing::SigmoidGrouped;
    s.moe.normTopK = boolOr(j, "norm_topk_prob", true);
    readGroups(j, s, path, 2);
}

} // namespace cfg

DecoderWeights deepseekWeights(WeightStore& ws, const ArchSpec& s)
{
    const int64_t H = s.hidden, I = s.intermediate, nh = s.heads;
    const auto& a = s.mla;
    auto linear = [&](const std::string& name, int64_t out, int64_t in, bool bias) {
        Linear l;
        l.w = ws.get(name + ".weight", {out, in});
        if (bias)
            l.b = ws.get(name + ".bias", {out});
        return l;
    };
    auto norm = [&](const std::string& name, int64_t n) { return Norm{ws.get(name + ".weight", {n}), {}}; };
    DecoderWeights w;
    w.tokenEmbedding = ws.get("model.embed_tokens.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        const std::string at = p + "self_attn.";
        LayerWeights lw;
        lw.ln1 = norm(p + "input_layernorm", H);
        lw.ln2 = norm(p + "post_attention_layernorm", H);
        MlaWeights& m = lw.mla;
        const int64_t qDim = nh * (a.nopeDim + a.ropeDim);
        if (a.qLoraRank > 0) {
            m.qA = linear(at + "q_a_proj", a.qLoraRank, H, s.qkvBias);
            m.qANorm = norm(at + "q_a_layernorm", a.qLoraRank);
            m.qB = linear(at + "q_b_proj", qDim, a.qLoraRank, false);
        } else {
            m.qB = linear(at + "q_proj", qDim, H, false);
        }
        m.kvA = linear(at + "kv_a_proj_with_mqa", a.kvLoraRank + a.ropeDim, H, s.qkvBias);
        m.kvANorm = norm(at + "kv_a_layernorm", a.kvLoraRank);
        m.kvB = linear(at + "kv_b_proj", nh * (a.nopeDim + a.vDim), a.kvLoraRank, false);
        lw.o = linear(at + "o_proj", H, nh * a.vDim, s.outBias);
        const std::string mp = p + "mlp.";
        if (!s.moe.sparse[static_cast<std::size_t>(l)]) {
            const Linear gate = linear(mp + "gate_proj", I, H, s.mlpBias), up = linear(mp + "up_proj", I, H, s.mlpBias);
            lw.up.w = at::cat({gate.w, up.w}, 0);
            if (s.mlpBias)
                lw.up.b = at::cat({gate.b, up.b}, 0);
            lw.down = linear(mp + "down_proj", H, I, s.mlpBias);
        } else {
            MoeWeights& e = lw.moe;
            e.router = ws.get(mp + "gate.weight", {s.moe.experts, H});
            if (s.moe.routing == ArchSpec::Moe::Routing::SigmoidGrouped)
                e.scoreBias = ws.get(mp + "gate.e_score_correction_bias", {s.moe.experts});
            experts(ws, s, mp + "experts.", "gate_proj", "up_proj", "down_proj", e);
            if (const int64_t S = s.moe.sharedIntermediate; S > 0) {
                const std::string sp = mp + "shared_experts.";
                const Linear gate = linear(sp + "gate_proj", S, H, s.mlpBias),
                             up = linear(sp + "up_proj", S, H, s.mlpBias);
                e.sharedUp.w = at::cat({gate.w, up.w}, 0);
                if (s.mlpBias)
                    e.sharedUp.b = at::cat({gate.b, up.b}, 0);
                e.sharedDown = linear(sp + "down_proj", H, S, s.mlpBias);
            }
        }
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm("model.norm", H);
    w.head = s.tieEmbeddings ? w.tokenEmbedding : ws.get("lm_head.weight", {s.vocab, H});
    return w;
}

} // namespace ascviz::model
