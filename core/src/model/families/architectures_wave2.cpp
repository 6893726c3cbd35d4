// The attention-only wave of families (issue 58, wave 2): their config.json readers (arch_config.h) and the weight
// tables they do not share with llama or olmo2 (arch_weights.h). Every computation is an ArchSpec option of the one
// decoder: the routers are moe.cpp's (SigmoidGrouped, SoftmaxBiased, SparseMixer), cohere2's logit scale and
// ministral3's query scale are ArchSpec::logitsScale and ArchSpec::queryScaleBeta.
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "families/arch_config.h"
#include "families/arch_weights.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <initializer_list>
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

// A copy of config.json with `key` set to `value` where it is absent (a default of the family's config class that
// the shared readers do not know).
json withDefault(const json& j, const char* key, const json& value)
{
    json c = j;
    if (!j.contains(key))
        c[key] = value;
    return c;
}

void checkExperts(const ArchSpec& s, const std::string& path)
{
    const auto& m = s.moe;
    if (m.experts <= 0 || m.topK <= 0 || m.topK > m.experts || m.expertIntermediate <= 0)
        throw ModelError(path + ": num_experts_per_tok = " + std::to_string(m.topK) + " must be in [1, " +
                         std::to_string(m.experts) + "] experts, each of a positive intermediate size");
}

// glm4_moe / dots1: deepseek_v3's router (sigmoid scores, the choice by scores plus e_score_correction_bias within
// the topk_group groups of the highest top-2 sums, norm_topk_prob, routed_scaling_factor) over n_routed_experts of
// moe_intermediate_size, an ungated shared expert of n_shared_experts × moe_intermediate_size, layers sparse from
// first_k_dense_replace on.
void readSigmoidMoe(const json& j, ArchSpec& s, const std::string& path, int64_t sharedDefault, int64_t firstDense,
                    bool normDefault)
{
    auto& m = s.moe;
    m.experts = intField(j, {"n_routed_experts", "num_local_experts"}, path);
    m.topK = intField(j, {"num_experts_per_tok"}, path);
    m.expertIntermediate = intField(j, {"moe_intermediate_size"}, path);
    checkExperts(s, path);
    const int64_t shared = intOr(j, {"n_shared_experts"}, sharedDefault);
    if (shared < 0)
        throw ModelError(path + ": n_shared_experts = " + std::to_string(shared) + " must not be negative");
    m.sharedIntermediate = shared * m.expertIntermediate;
    m.routing = ArchSpec::Moe::Routing::SigmoidGrouped;
    m.routedScale = numberOr(j, {"routed_scaling_factor"}, 1.0);
    m.normTopK = boolOr(j, "norm_topk_prob", normDefault);
    m.routerFp32 = true;
    m.sortedTopK = false;
    m.routerWeightsInDtype = false;
    m.groups = intOr(j, {"n_group"}, 1);
    m.topkGroup = intOr(j, {"topk_group"}, 1);
    if (m.groups <= 0 || m.experts % m.groups != 0 || m.experts / m.groups < 2 || m.topkGroup <= 0 ||
        m.topkGroup > m.groups)
        throw ModelError(path + ": n_group = " + std::to_string(m.groups) +
                         ", topk_group = " + std::to_string(m.topkGroup) + ": the " + std::to_string(m.experts) +
                         " n_routed_experts must split into n_group equal groups of at least 2 experts, and "
                         "topk_group be in [1, n_group]");
    const int64_t first = intOr(j, {"first_k_dense_replace"}, firstDense);
    m.sparse.assign(static_cast<std::size_t>(s.layers), false);
    for (int64_t l = 0; l < s.layers; ++l)
        m.sparse[static_cast<std::size_t>(l)] = l >= first;
}

} // namespace

// flex_olmo: olmo2's layout (no input norms, post-attention and post-MLP norms, RMSNorm as w · x in float32, q/k
// RMSNorm over the whole projections, attention_bias) with every MLP num_experts softmax-routed experts of
// intermediate_size (olmoe's router: norm_topk_prob, the top-k weights cast to the compute dtype); rope base 5·10^5
// by default.
void readFlexOlmo(const json& j, ArchSpec& s, const std::string& path)
{
    readOlmo2(withDefaultTheta(j, 500000.0), s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-6);
    readRouter(j, s, path, {"num_experts", "num_local_experts"}, {"intermediate_size"}, false);
    s.moe.normTopK = boolOr(j, "norm_topk_prob", false);
    s.moe.routerWeightsInDtype = true;
}

// ernie4_5_moe: ernie4_5's attention and dense layers (interleaved rope in float32, use_bias, tied by default); the
// layers l with (l + 1) % moe_layer_interval == 0 within [moe_layer_start_index, moe_layer_end_index] (-1: the last)
// are moe_num_experts experts of moe_intermediate_size: a float32 router softmax, the top moe_k of the
// probabilities plus moe_statics.e_score_correction_bias, weighted by their probabilities renormalised (at least
// moe_norm_min) and cast to the compute dtype, plus an ungated shared expert of moe_num_shared_experts ×
// moe_intermediate_size (use_bias).
void readErnie45Moe(const json& j, ArchSpec& s, const std::string& path)
{
    readErnie45(j, s, path);
    auto& m = s.moe;
    m.experts = intOr(j, {"moe_num_experts", "num_experts"}, 64);
    m.topK = intOr(j, {"moe_k", "num_experts_per_tok"}, 6);
    m.expertIntermediate = intOr(j, {"moe_intermediate_size"}, 1536);
    checkExperts(s, path);
    const int64_t shared = intOr(j, {"moe_num_shared_experts"}, 2);
    if (shared < 0)
        throw ModelError(path + ": moe_num_shared_experts = " + std::to_string(shared) + " must not be negative");
    m.sharedIntermediate = shared * m.expertIntermediate;
    m.routing = ArchSpec::Moe::Routing::SoftmaxBiased;
    m.normTopK = true;
    m.normEps = 0.0;
    m.normMin = numberOr(j, {"moe_norm_min"}, 1e-12);
    if (!(m.normMin > 0) || !std::isfinite(m.normMin))
        throw ModelError(path + ": moe_norm_min = " + json(m.normMin).dump() + " must be a positive number");
    m.routerFp32 = true;
    m.routerWeightsInDtype = true;
    const int64_t start = intOr(j, {"moe_layer_start_index"}, 1), interval = intOr(j, {"moe_layer_interval"}, 1);
    int64_t end = intOr(j, {"moe_layer_end_index"}, -1);
    if (end == -1)
        end = s.layers - 1;
    if (interval <= 0)
        throw ModelError(path + ": moe_layer_interval = " + std::to_string(interval) + " must be positive");
    m.sparse.assign(static_cast<std::size_t>(s.layers), false);
    for (int64_t l = 0; l < s.layers; ++l)
        m.sparse[static_cast<std::size_t>(l)] = (l + 1) % interval == 0 && l >= start && l <= end;
}

// glm4_moe: llama's sequential layers with NeoX rope on the first partial_rotary_factor (default 0.5) of each head,
// q/k/v biases (attention_bias), per-head q/k RMSNorm (use_qk_norm), dense layers before first_k_dense_replace
// (default 1), the others readSigmoidMoe's (one shared expert by default, norm_topk_prob on by default).
void readGlm4Moe(const json& j, ArchSpec& s, const std::string& path)
{
    json c = j;
    const json* params = field(j, {"rope_parameters"});
    if (!field(j, {"partial_rotary_factor"}) &&
        !(params && params->is_object() && params->contains("partial_rotary_factor")))
        c["partial_rotary_factor"] = 0.5; // Glm4MoeConfig's default
    readLlama(c, s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.qkvBias = boolOr(j, "attention_bias", false);
    s.outBias = s.mlpBias = false;
    if (boolOr(j, "use_qk_norm", false))
        s.qkNorm = QkNorm::PerHead;
    readSigmoidMoe(j, s, path, 1, 1, true);
}

// dots1: qwen3's attention (per-head q/k RMSNorm, attention_bias on q/k/v/o), sliding windows by layer_types (default:
// the layers from max_window_layers on, sliding_window 4096), layers sparse from first_k_dense_replace (default 0)
// with readSigmoidMoe's router (norm_topk_prob off by default) and n_shared_experts shared experts.
void readDots1(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.mlpBias = false;
    s.qkNorm = QkNorm::PerHead;
    const json c = withDefault(j, "sliding_window", 4096);
    const bool windowed = !c.at("sliding_window").is_null();
    const int64_t maxWindowLayers = intOr(j, {"max_window_layers"}, 62);
    readLayerWindows(c, s, path, [&](int64_t l) { return windowed && l >= maxWindowLayers; });
    readSigmoidMoe(j, s, path, 0, 0, false);
}

// minimax_m2: llama's attention without biases, q/k RMSNorm over the whole projections, NeoX rope on the
// partial_rotary_factor of each head; every MLP num_local_experts experts of intermediate_size routed by sigmoid
// scores (logits in the compute dtype), the top k of scores plus mlp.e_score_correction_bias, weighted by their
// scores renormalised (float32). rotary_dim, which transformers 5.17 does not read, must agree with head_dim ×
// partial_rotary_factor.
void readMinimaxM2(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.qkvBias = s.outBias = s.mlpBias = false;
    s.qkNorm = QkNorm::Full;
    if (const json* r = field(j, {"rotary_dim"}); r && (!r->is_number_integer() || r->get<int64_t>() != s.rotaryDim))
        throw ModelError(path + ": rotary_dim = " + r->dump() +
                         " is not supported (transformers 5.17 ignores it and rotates head_dim × "
                         "partial_rotary_factor = " +
                         std::to_string(s.rotaryDim) + " dims; only that value is the same computation)");
    readRouter(j, s, path, {"num_local_experts", "num_experts"}, {"intermediate_size"}, false);
    auto& m = s.moe;
    m.routing = ArchSpec::Moe::Routing::SigmoidGrouped;
    m.normTopK = true;
    m.normEps = 0.0;
    m.sortedTopK = false;
    m.routerFp32 = false;
    m.routerWeightsInDtype = false;
}

// cohere2: attention and MLP in parallel on one LayerNorm without bias (x + attn(ln(x)) + mlp(ln(x))), head_dim =
// hidden_size / num_attention_heads, interleaved rope in float32 on the sliding layers only (global layers: no
// position encoding), layer_types (else sliding_window_pattern, default 4: every 4th layer global), sliding_window,
// attention_bias on q/k/v/o, logits × logit_scale, tied embeddings by default.
void readCohere2(const json& j, ArchSpec& s, const std::string& path)
{
    json c = withDefault(j, "sliding_window", 4096);
    c["head_dim"] = intField(j, {"hidden_size"}, path) / intField(j, {"num_attention_heads"}, path);
    readLlamaStyle(c, s, path);
    s.norm = NormKind::LayerNorm;
    s.normEps = numberOr(j, {"layer_norm_eps"}, 1e-5);
    s.act = activationField(j, {"hidden_act"}, "silu", path);
    s.gatedMlp = true;
    s.residual = Residual::ParallelSharedNorm;
    s.rope = RopeKind::GptJ;
    s.ropeFp32 = true;
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", true);
    s.logitsScale = numberOr(j, {"logit_scale"}, 0.0625);
    if (!std::isfinite(s.logitsScale))
        throw ModelError(path + ": logit_scale = " + json(s.logitsScale).dump() + " must be a finite number");
    const int64_t pattern = intOr(j, {"sliding_window_pattern"}, 4);
    if (pattern <= 0)
        throw ModelError(path + ": sliding_window_pattern = " + std::to_string(pattern) + " must be positive");
    readLayerWindows(c, s, path, [pattern](int64_t l) { return (l + 1) % pattern != 0; });
    s.ropeOff.assign(static_cast<std::size_t>(s.layers), false);
    for (int64_t l = 0; l < s.layers; ++l)
        s.ropeOff[static_cast<std::size_t>(l)] = s.window[static_cast<std::size_t>(l)] == 0;
}

// ministral3 (Ministral 3's text model): mistral (sliding_window, head_dim 128 by default) with rope yarn (factor 16
// over 16384 positions, base 10^6) by default, and each query after rope times 1 + llama_4_scaling_beta ·
// log(1 + floor(position / original_max_position_embeddings)), both from rope_parameters.
void readMinistral3(const json& j, ArchSpec& s, const std::string& path)
{
    json c = withDefault(j, "head_dim", 128);
    if (!field(j, {"rope_parameters"}) && !field(j, {"rope_scaling"}))
        c["rope_parameters"] = {{"rope_type", "yarn"},
                                {"rope_theta", 1000000.0},
                                {"factor", 16.0},
                                {"original_max_position_embeddings", 16384},
                                {"beta_fast", 32.0},
                                {"beta_slow", 1.0},
                                {"mscale_all_dim", 1.0},
                                {"mscale", 1.0},
                                {"llama_4_scaling_beta", 0.1}};
    readMistral(c, s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    const json* p = field(c, {"rope_parameters"});
    const json* beta = p && p->is_object() ? field(*p, {"llama_4_scaling_beta"}) : nullptr;
    const json* length = p && p->is_object() ? field(*p, {"original_max_position_embeddings"}) : nullptr;
    if (!beta || !beta->is_number() || !length || !length->is_number_integer() || length->get<int64_t>() <= 0)
        throw ModelError(path + ": rope_parameters.llama_4_scaling_beta = " + (beta ? beta->dump() : "null") +
                         ", original_max_position_embeddings = " + (length ? length->dump() : "null") +
                         ": ministral3 scales its queries by both (a number and a positive integer)");
    s.queryScaleBeta = beta->get<double>();
    s.queryScaleLength = length->get<int64_t>();
}

// phimoe: mistral's attention (sliding_window on every layer, attention_bias on q/k/v/o) with LayerNorm (weight and
// bias, epsilon rms_norm_eps), every MLP num_local_experts experts of intermediate_size routed by the sparsemixer
// (eval mode: two experts, router_jitter_noise the relative distance; num_experts_per_tok must be 2, which
// transformers ignores), lm_head with a bias where lm_head_bias. Rope: default, or longrope as transformers 5.17's
// phimoe runs it: the short factors at every length, cos and sin times short_mscale (or long_mscale beyond
// original_max_position_embeddings; two different values are refused).
void readPhimoe(const json& j, ArchSpec& s, const std::string& path)
{
    json c = j;
    for (const char* key : {"rope_parameters", "rope_scaling"}) {
        const json* p = field(j, {key});
        if (!p || !p->is_object())
            continue;
        const json* type = field(*p, {"rope_type", "type"});
        const std::string t = type && type->is_string() ? type->get<std::string>() : "default";
        if (t == "default")
            continue;
        if (t != "longrope")
            throw ModelError(path + ": " + key + ".rope_type = \"" + t +
                             "\" is not supported for phimoe (default, longrope)");
        const json* shortM = field(*p, {"short_mscale"});
        const json* longM = field(*p, {"long_mscale"});
        if (!shortM || !longM || !shortM->is_number() || !longM->is_number() || *shortM != *longM)
            throw ModelError(path + ": " + key + ".short_mscale = " + (shortM ? shortM->dump() : "null") +
                             ", long_mscale = " + (longM ? longM->dump() : "null") +
                             ": phimoe's longrope is supported with one mscale for both regimes");
        json q = *p;
        if (p->contains("short_factor"))
            q["long_factor"] = p->at("short_factor"); // transformers' phimoe rotates with the short factors only
        q["attention_factor"] = *shortM;
        c[key] = q;
    }
    readMistral(c, s, path);
    s.norm = NormKind::LayerNorm;
    s.normBias = true;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    readRouter(j, s, path, {"num_local_experts"}, {"intermediate_size"}, false);
    if (s.moe.topK != 2)
        throw ModelError(path + ": num_experts_per_tok = " + std::to_string(s.moe.topK) +
                         " is not supported (phimoe's sparsemixer always routes to 2 experts)");
    s.moe.routing = ArchSpec::Moe::Routing::SparseMixer;
    s.moe.jitterEps = numberOr(j, {"router_jitter_noise"}, 0.01);
    if (!std::isfinite(s.moe.jitterEps) || s.moe.jitterEps < 0)
        throw ModelError(path + ": router_jitter_noise = " + json(s.moe.jitterEps).dump() +
                         " must be a finite number >= 0");
    s.moe.routerWeightsInDtype = true;
}

} // namespace cfg

namespace {

std::string layerPrefix(int64_t l)
{
    return "model.layers." + std::to_string(l) + ".";
}

// The first of `names` the checkpoint holds (save_pretrained writes the original names, transformers 5 also reads
// its own), else the first (whose absence the load then reports).
std::string present(const WeightStore& ws, std::initializer_list<std::string> names)
{
    for (const auto& n : names)
        if (ws.has(n))
            return n;
    return *names.begin();
}

// Mixtral-style layers' expert block: `model.layers.N.block_sparse_moe.` as the original checkpoints (and
// save_pretrained) name it, else transformers 5's `model.layers.N.mlp.` (router `gate` or `router`, fused experts).
std::string moeBlock(const WeightStore& ws, int64_t l)
{
    const std::string original = layerPrefix(l) + "block_sparse_moe.";
    return ws.has(original + "gate.weight") ? original : layerPrefix(l) + "mlp.";
}

// An ungated shared expert `<prefix>{gate,up,down}_proj` of sharedIntermediate (biases where `bias`).
void sharedExpert(WeightStore& ws, const ArchSpec& s, const std::string& prefix, bool bias, MoeWeights& m)
{
    const int64_t H = s.hidden, S = s.moe.sharedIntermediate;
    m.sharedUp.w = at::cat({ws.get(prefix + "gate_proj.weight", {S, H}), ws.get(prefix + "up_proj.weight", {S, H})}, 0);
    m.sharedDown.w = ws.get(prefix + "down_proj.weight", {H, S});
    if (bias) {
        m.sharedUp.b = at::cat({ws.get(prefix + "gate_proj.bias", {S}), ws.get(prefix + "up_proj.bias", {S})}, 0);
        m.sharedDown.b = ws.get(prefix + "down_proj.bias", {H});
    }
}

} // namespace

// flex_olmo: olmo2's names with mlp.gate and mlp.experts on every layer.
DecoderWeights flexOlmoWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = olmo2Weights(ws, s); // every layer sparse: no dense MLP taken there
    for (int64_t l = 0; l < s.layers; ++l) {
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = layerPrefix(l) + "mlp.";
        m.router = ws.get(p + "gate.weight", {s.moe.experts, s.hidden});
        experts(ws, s, p + "experts.", "gate_proj", "up_proj", "down_proj", m);
    }
    return w;
}

// ernie4_5_moe: llama's names and lm_head.bias with use_bias; sparse layers' mlp.gate.weight,
// mlp.gate.moe_statics.e_score_correction_bias [1, E], mlp.experts and mlp.shared_experts (biases with use_bias).
DecoderWeights ernie45MoeWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s);
    const int64_t E = s.moe.experts;
    for (int64_t l = 0; l < s.layers; ++l) {
        if (!s.moe.sparse[static_cast<std::size_t>(l)])
            continue;
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = layerPrefix(l) + "mlp.";
        m.router = ws.get(p + "gate.weight", {E, s.hidden});
        m.scoreBias = ws.get(present(ws, {p + "moe_statics.e_score_correction_bias",
                                          p + "gate.moe_statics.e_score_correction_bias"}),
                             {1, E})
                          .reshape({E});
        experts(ws, s, p + "experts.", "gate_proj", "up_proj", "down_proj", m);
        if (s.moe.sharedIntermediate > 0)
            sharedExpert(ws, s, p + "shared_experts.", s.mlpBias, m);
    }
    if (s.mlpBias) // use_bias: the head has one too (its weight may be tied, its bias is not)
        w.headBias = ws.get("lm_head.bias", {s.vocab});
    return w;
}

// glm4_moe / dots1: llama's names (dense layers' mlp.{gate,up,down}_proj); sparse layers' mlp.gate.weight,
// mlp.gate.e_score_correction_bias, mlp.experts and mlp.shared_experts.
DecoderWeights sigmoidMoeWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s);
    const int64_t E = s.moe.experts;
    for (int64_t l = 0; l < s.layers; ++l) {
        if (!s.moe.sparse[static_cast<std::size_t>(l)])
            continue;
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = layerPrefix(l) + "mlp.";
        m.router = ws.get(p + "gate.weight", {E, s.hidden});
        m.scoreBias = ws.get(p + "gate.e_score_correction_bias", {E});
        experts(ws, s, p + "experts.", "gate_proj", "up_proj", "down_proj", m);
        if (s.moe.sharedIntermediate > 0)
            sharedExpert(ws, s, p + "shared_experts.", false, m);
    }
    return w;
}

// minimax_m2: llama's names with the full q/k norms; mlp.gate.weight, mlp.e_score_correction_bias, mlp.experts.
DecoderWeights minimaxM2Weights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // every layer sparse: no dense MLP taken there
    const int64_t E = s.moe.experts;
    for (int64_t l = 0; l < s.layers; ++l) {
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = moeBlock(ws, l);
        m.router = ws.get(p + "gate.weight", {E, s.hidden});
        m.scoreBias = ws.get(p + "e_score_correction_bias", {E});
        experts(ws, s, p + "experts.", "w1", "w3", "w2", m);
    }
    return w;
}

// phimoe: llama's names with LayerNorm biases; mlp.router.weight and mlp.experts on every layer; lm_head.bias where
// the checkpoint has it (lm_head_bias).
DecoderWeights phimoeWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // every layer sparse: no dense MLP taken there
    for (int64_t l = 0; l < s.layers; ++l) {
        MoeWeights& m = w.layers[static_cast<std::size_t>(l)].moe;
        const std::string p = moeBlock(ws, l);
        m.router = ws.get(p + (p.find("block_sparse_moe") != std::string::npos ? "gate.weight" : "router.weight"),
                          {s.moe.experts, s.hidden});
        experts(ws, s, p + "experts.", "w1", "w3", "w2", m);
    }
    if (ws.has("lm_head.bias"))
        w.headBias = ws.get("lm_head.bias", {s.vocab});
    return w;
}

} // namespace ascviz::model
