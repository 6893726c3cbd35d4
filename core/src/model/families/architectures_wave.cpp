// The fourth wave of families (issue 58): their config.json readers (arch_config.h) and the weight tables they do
// not share with llama (arch_weights.h). Every computation is an ArchSpec option of the one decoder.
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "families/arch_config.h"
#include "families/arch_weights.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace ascviz::model {
namespace cfg {
namespace {

// A copy of config.json whose rope_parameters carry `theta` when neither spelling names one (the family's default
// base, as its transformers config fills it in).
json withDefaultTheta(const json& j, double theta)
{
    json c = j;
    const json* params = field(j, {"rope_parameters"});
    if (!field(j, {"rope_theta"}) && !(params && params->is_object() && params->contains("rope_theta")))
        c["rope_theta"] = theta;
    return c;
}

} // namespace

// olmoe: llama's attention with RMSNorm over the whole q and k projections, clip_qkv (q, k after their norms and v
// clamped), every layer num_experts softmax-routed experts of intermediate_size, norm_topk_prob, the top-k weights
// cast to the compute dtype.
void readOlmoe(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.mlpBias = false;
    s.qkNorm = QkNorm::Full;
    if (s.headDim * s.heads != s.hidden)
        throw ModelError(path + ": head_dim = " + std::to_string(s.headDim) +
                         " is not supported for olmoe (its q/k norms are hidden_size / num_attention_heads per head)");
    if (const json* clip = field(j, {"clip_qkv"})) {
        if (!clip->is_number() || clip->get<double>() <= 0)
            throw ModelError(path + ": clip_qkv = " + clip->dump() + " is not supported (a positive number or null)");
        s.qkvClip = clip->get<double>();
    }
    readRouter(j, s, path, {"num_experts", "num_local_experts"}, {"intermediate_size"}, false);
    s.moe.normTopK = boolOr(j, "norm_topk_prob", false);
    s.moe.routerWeightsInDtype = true;
}

// granitemoe: granite (embedding, residual and attention multipliers, logits scaling) with every layer a mixture of
// num_local_experts experts of intermediate_size: the top k of the router logits (cast to float32), softmaxed over
// those k in float32, the weights cast to the compute dtype.
void readGranitemoe(const json& j, ArchSpec& s, const std::string& path)
{
    readGranite(j, s, path);
    s.mlpBias = false;
    readRouter(j, s, path, {"num_local_experts", "num_experts"}, {"intermediate_size"}, false);
    s.moe.routing = ArchSpec::Moe::Routing::TopKThenSoftmax;
    s.moe.softmaxFp32 = true;
    s.moe.routerWeightsInDtype = true;
}

// granitemoeshared: granitemoe plus an ungated shared expert of shared_intermediate_size (0: none).
void readGranitemoeShared(const json& j, ArchSpec& s, const std::string& path)
{
    readGranitemoe(j, s, path);
    s.moe.sharedIntermediate = intOr(j, {"shared_intermediate_size"}, 0);
    if (s.moe.sharedIntermediate < 0)
        throw ModelError(path + ": shared_intermediate_size = " + std::to_string(s.moe.sharedIntermediate) +
                         " must not be negative");
}

// arcee: llama whose MLP is not gated: down(act(up(x))), act relu2 (relu(x)²) by default; mlp_bias, head_dim.
void readArcee(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.act = activationField(j, {"hidden_act"}, "relu2", path);
    s.gatedMlp = false;
}

// glm4: llama-style with sandwich norms (post_self_attn_layernorm, post_mlp_layernorm), q/k/v biases
// (attention_bias, default on), a fused gate_up_proj, and GPT-J (interleaved) rope on the first
// partial_rotary_factor (default 0.5) of each head.
void readGlm4(const json& j, ArchSpec& s, const std::string& path)
{
    json c = j;
    const json* params = field(j, {"rope_parameters"});
    if (!field(j, {"partial_rotary_factor"}) &&
        !(params && params->is_object() && params->contains("partial_rotary_factor")))
        c["partial_rotary_factor"] = 0.5; // Glm4Config's default
    readLlama(c, s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1.5625e-7);
    s.rope = RopeKind::GptJ;
    s.residual = Residual::Sandwich;
    s.qkvBias = boolOr(j, "attention_bias", true);
    s.outBias = s.mlpBias = false;
}

// ernie4_5: llama with GPT-J (interleaved) rope computed in float32, use_bias on every projection, tied embeddings
// by default, rope base 5·10^5 by default.
void readErnie45(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(withDefaultTheta(j, 500000.0), s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.rope = RopeKind::GptJ;
    s.ropeFp32 = true;
    s.qkvBias = s.outBias = s.mlpBias = boolOr(j, "use_bias", false);
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", true);
}

// apertus: llama's attention with per-head q/k RMSNorm before rope, an ungated MLP down(act(up(x))) with xIELU
// (hidden_act "xielu", its parameters learned per layer; any other hidden_act as llama's), attention_bias, rope
// llama3 (factor 8 over 8192 positions, base 1.2·10^7) by default.
void readApertus(const json& j, ArchSpec& s, const std::string& path)
{
    json c = j;
    if (!field(j, {"rope_parameters"}) && !field(j, {"rope_scaling"}))
        c["rope_parameters"] = {{"rope_type", "llama3"},    {"factor", 8.0},
                                {"low_freq_factor", 1.0},   {"high_freq_factor", 4.0},
                                {"rope_theta", 12000000.0}, {"original_max_position_embeddings", 8192}};
    const json* act = field(j, {"hidden_act"});
    const bool xielu = !act || *act == "xielu";
    if (xielu)
        c["hidden_act"] = "silu"; // read below
    readLlama(c, s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.qkNorm = QkNorm::PerHead;
    s.gatedMlp = false;
    s.mlpBias = false;
    if (xielu)
        s.act = Activation::XIelu;
}

namespace {

// HunYuan's NTK-alpha rope (rope type "dynamic" with an "alpha"): one fixed base theta · alpha^(d / (d − 2)) with d =
// head_dim (transformers rebuilds the frequencies only beyond max_position_embeddings, which the context never
// passes). Other rope parameters go to readRope as they are.
json hunyuanRope(const json& j, const std::string& path)
{
    json c = j;
    for (const char* key : {"rope_parameters", "rope_scaling"}) {
        const json* p = field(j, {key});
        if (!p || !p->is_object() || !p->contains("alpha") || p->at("alpha").is_null())
            continue;
        const json& type = p->contains("rope_type") ? p->at("rope_type") : p->contains("type") ? p->at("type") : json();
        if (type != "dynamic")
            throw ModelError(path + ": " + key + ".alpha with rope type " + type.dump() +
                             " is not supported (dynamic)");
        const double alpha = p->at("alpha").get<double>();
        const auto heads = intField(j, {"num_attention_heads"}, path);
        const auto d = static_cast<double>(intOr(j, {"head_dim"}, intField(j, {"hidden_size"}, path) / heads));
        const double theta = numberOr(*p, {"rope_theta"}, numberOr(j, {"rope_theta"}, 10000.0));
        c.erase("rope_scaling");
        c["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", theta * std::pow(alpha, d / (d - 2))}};
        c.erase("rope_theta");
    }
    return c;
}

} // namespace

// hunyuan_v1_dense: llama with RMSNorm over each head's q and k after rope (query_layernorm, key_layernorm), rope
// "dynamic" with alpha as one fixed base (hunyuanRope), attention_bias.
void readHunyuanDense(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(hunyuanRope(j, path), s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.qkNorm = QkNorm::PerHeadAfterRope;
    s.mlpBias = false;
}

// hunyuan_v1_moe: hunyuan_v1_dense's attention; every layer num_experts gated experts of intermediate_size, routed
// by a float32 router (mlp.gate.wg) softmax, top moe_topk always renormalised, plus an ungated-sum shared expert
// (mlp.shared_mlp) of intermediate_size. Per-layer lists of num_experts or moe_topk must hold one value.
void readHunyuanMoe(const json& j, ArchSpec& s, const std::string& path)
{
    readHunyuanDense(j, s, path);
    json c = j;
    for (const char* key : {"num_experts", "moe_topk"})
        if (const json* v = field(j, {key}); v && v->is_array()) {
            if (v->empty() || std::any_of(v->begin(), v->end(), [&](const json& x) { return x != v->front(); }))
                throw ModelError(path + ": " + key + " = " + v->dump() +
                                 " is not supported (one value for every layer)");
            c[key] = v->front();
        }
    c["num_experts_per_tok"] = c.value("moe_topk", json(1));
    if (!c.contains("num_experts"))
        c["num_experts"] = 1;
    readRouter(c, s, path, {"num_experts"}, {"intermediate_size"}, false);
    s.moe.normTopK = true;
    s.moe.routerFp32 = true;
    s.moe.routerWeightsInDtype = false;
    s.moe.sharedIntermediate = s.intermediate;
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

} // namespace

// apertus: model.layers.N.{attention_layernorm, feedforward_layernorm}, self_attn.{q,k,v,o}_proj and {q,k}_norm,
// mlp.{up,down}_proj and mlp.act_fn.{alpha_p, alpha_n, beta, eps} (xIELU).
DecoderWeights apertusWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate, q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
    w.tokenEmbedding = ws.get("model.embed_tokens.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LayerWeights lw;
        lw.ln1.w = ws.get(p + "attention_layernorm.weight", {H});
        lw.ln2.w = ws.get(p + "feedforward_layernorm.weight", {H});
        Linear qkv[] = {linearOf(ws, p + "self_attn.q_proj", q, H, s.qkvBias),
                        linearOf(ws, p + "self_attn.k_proj", kv, H, s.qkvBias),
                        linearOf(ws, p + "self_attn.v_proj", kv, H, s.qkvBias)};
        lw.qkv.w = at::cat({qkv[0].w, qkv[1].w, qkv[2].w}, 0);
        if (s.qkvBias)
            lw.qkv.b = at::cat({qkv[0].b, qkv[1].b, qkv[2].b}, 0);
        lw.o = linearOf(ws, p + "self_attn.o_proj", H, q, s.outBias);
        lw.qNorm.w = ws.get(p + "self_attn.q_norm.weight", {s.headDim});
        lw.kNorm.w = ws.get(p + "self_attn.k_norm.weight", {s.headDim});
        lw.up = linearOf(ws, p + "mlp.up_proj", I, H, false);
        lw.down = linearOf(ws, p + "mlp.down_proj", H, I, false);
        if (s.act == Activation::XIelu) {
            lw.xielu.alphaP = ws.get(p + "mlp.act_fn.alpha_p", {1});
            lw.xielu.alphaN = ws.get(p + "mlp.act_fn.alpha_n", {1});
            lw.xielu.beta = ws.get(p + "mlp.act_fn.beta", {});
            lw.xielu.eps = ws.get(p + "mlp.act_fn.eps", {});
        }
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm.w = ws.get("model.norm.weight", {H});
    w.head = s.tieEmbeddings ? w.tokenEmbedding : ws.get("lm_head.weight", {s.vocab, H});
    return w;
}

DecoderWeights granitemoeWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // every layer sparse: no dense MLP taken there
    const int64_t E = s.moe.experts, I = s.moe.expertIntermediate, H = s.hidden, S = s.moe.sharedIntermediate;
    for (int64_t l = 0; l < s.layers; ++l) {
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = "model.layers." + std::to_string(l) + ".";
        m.router = ws.get(p + "block_sparse_moe.router.layer.weight", {E, H});
        m.gateUp = ws.get(p + "block_sparse_moe.input_linear.weight", {E, 2 * I, H}); // [gate; up] per expert
        m.down = ws.get(p + "block_sparse_moe.output_linear.weight", {E, H, I});
        if (S > 0) {
            m.sharedUp.w = ws.get(p + "shared_mlp.input_linear.weight", {2 * S, H}); // [gate; up]
            m.sharedDown.w = ws.get(p + "shared_mlp.output_linear.weight", {H, S});
        }
    }
    return w;
}

DecoderWeights hunyuanMoeWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // every layer sparse: no dense MLP taken there
    const int64_t H = s.hidden, S = s.moe.sharedIntermediate;
    for (int64_t l = 0; l < s.layers; ++l) {
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = "model.layers." + std::to_string(l) + ".mlp.";
        m.router = ws.get(p + "gate.wg.weight", {s.moe.experts, H});
        experts(ws, s, p + "experts.", "gate_proj", "up_proj", "down_proj", m);
        m.sharedUp.w = at::cat(
            {ws.get(p + "shared_mlp.gate_proj.weight", {S, H}), ws.get(p + "shared_mlp.up_proj.weight", {S, H})});
        m.sharedDown.w = ws.get(p + "shared_mlp.down_proj.weight", {H, S});
    }
    return w;
}

DecoderWeights glm4Weights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // ln2 there is post_attention_layernorm (before the MLP)
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LayerWeights& lw = w.layers[static_cast<std::size_t>(l)];
        lw.postAttn.w = ws.get(p + "post_self_attn_layernorm.weight", {s.hidden});
        lw.postMlp.w = ws.get(p + "post_mlp_layernorm.weight", {s.hidden});
    }
    return w;
}

} // namespace ascviz::model
