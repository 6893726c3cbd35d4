// The per-architecture table: how each Hugging Face model_type names its hyper-parameters, paired with its
// weight table (arch_weights.cpp). Each entry has two small hooks over the shared ArchSpec / DecoderWeights:
// read config.json (here), and map the checkpoint's tensors (transposing Conv1D weights and reordering fused
// projections into the canonical [q; k; v] layout). The math is in decoder.cpp, once for all.
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "families/arch_config.h"
#include "families/arch_weights.h"
#include "families/families.h"

#include "ascviz/base/error.h"
#include "ascviz/model/model.h"

#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

using nlohmann::json;

namespace ascviz::model {
namespace cfg {

// rope_theta (transformers 4: top level / rotary_emb_base; 5: rope_parameters), rope_scaling, partial rotary.
// longrope (transformers' _compute_longrope_parameters): short_factor / long_factor of rotaryDim / 2 entries, the
// attention factor from factor (or max_position_embeddings / original_max_position_embeddings) unless given.
void readLongrope(const json& params, ArchSpec& s, const std::string& key, const std::string& path)
{
    s.ropeScaling = ArchSpec::RopeScaling::LongRope;
    const auto half = static_cast<std::size_t>(s.rotaryDim / 2);
    for (const char* name : {"short_factor", "long_factor"}) {
        const auto it = params.find(name);
        std::vector<double> f;
        if (it != params.end() && it->is_array())
            for (const auto& x : *it)
                if (x.is_number())
                    f.push_back(x.get<double>());
        if (f.size() != half || (it != params.end() && it->size() != half))
            throw ModelError(path + ": " + key + "." + name + " must list " + std::to_string(half) +
                             " numbers (rotary dimension / 2)");
        (std::string(name) == "short_factor" ? s.ropeShortFactor : s.ropeLongFactor) = std::move(f);
    }
    const auto orig = static_cast<double>(s.ropeOriginalContext);
    const auto f = params.find("factor");
    const double factor =
        f != params.end() && f->is_number() ? f->get<double>() : static_cast<double>(s.context) / orig;
    const auto af = params.find("attention_factor");
    if (af != params.end() && af->is_number())
        s.ropeAttentionFactor = af->get<double>();
    else
        s.ropeAttentionFactor = factor <= 1.0 ? 1.0 : std::sqrt(1 + std::log(factor) / std::log(orig));
}

// legacyLongrope: phi3 reads rope type "su" and "yarn" as longrope (as its transformers config does).
void readRope(const json& j, ArchSpec& s, double defaultPartial, const std::string& path, bool legacyLongrope)
{
    const json* params = field(j, {"rope_parameters"});
    const json* scaling = field(j, {"rope_scaling"});
    s.ropeTheta = numberOr(j, {"rope_theta", "rotary_emb_base"}, 10000.0);
    double partial = numberOr(j, {"rotary_pct", "partial_rotary_factor"}, defaultPartial);
    std::string type = "default";
    std::string typeKey = "rope_parameters.rope_type";
    json merged = json::object(); // the scaling parameters (rope_parameters, then rope_scaling)
    auto readScaling = [&](const json& o, const char* objectKey) {
        if (!o.is_object())
            return;
        for (const char* k : {"rope_type", "type"}) {
            if (const auto it = o.find(k); it != o.end() && it->is_string()) {
                type = it->get<std::string>();
                typeKey = std::string(objectKey) + "." + k;
                break;
            }
        }
        for (const auto& [k, v] : o.items())
            merged[k] = v;
    };
    if (params && params->is_object()) {
        s.ropeTheta = numberOr(*params, {"rope_theta"}, s.ropeTheta);
        partial = numberOr(*params, {"partial_rotary_factor"}, partial);
        readScaling(*params, "rope_parameters");
    }
    if (scaling)
        readScaling(*scaling, "rope_scaling");
    auto number = [&](const char* k, double fallback) {
        const auto it = merged.find(k);
        return it != merged.end() && it->is_number() ? it->get<double>() : fallback;
    };
    partial = number("partial_rotary_factor", partial); // phi3's transformers 4 rope_scaling may hold it
    // As transformers: a top-level original_max_position_embeddings wins, then the scaling's own, then
    // max_position_embeddings.
    s.ropeOriginalContext =
        intOr(j, {"original_max_position_embeddings"},
              static_cast<int64_t>(number("original_max_position_embeddings", static_cast<double>(s.context))));
    if (type == "linear") {
        s.ropeLinearFactor = number("factor", 1.0);
    } else if (type == "llama3") {
        s.ropeScaling = ArchSpec::RopeScaling::Llama3;
        s.ropeFactor = number("factor", 8.0);
        s.ropeLowFreqFactor = number("low_freq_factor", 1.0);
        s.ropeHighFreqFactor = number("high_freq_factor", 4.0);
    } else if (type == "yarn") {
        s.ropeScaling = ArchSpec::RopeScaling::Yarn;
        const auto f = merged.find("factor");
        s.ropeFactor = f != merged.end() && f->is_number()
                           ? f->get<double>()
                           : static_cast<double>(s.context) / static_cast<double>(s.ropeOriginalContext);
        auto mscale = [](double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; };
        const double m = number("mscale", 0.0), mAll = number("mscale_all_dim", 0.0);
        const auto af = merged.find("attention_factor");
        if (af != merged.end() && af->is_number())
            s.ropeAttentionFactor = af->get<double>();
        else if (m != 0.0 && mAll != 0.0)
            s.ropeAttentionFactor = mscale(s.ropeFactor, m) / mscale(s.ropeFactor, mAll);
        else
            s.ropeAttentionFactor = mscale(s.ropeFactor, 1.0);
        const double bf = number("beta_fast", 0.0), bs = number("beta_slow", 0.0);
        s.ropeBetaFast = bf != 0.0 ? bf : 32.0; // transformers: `or 32`
        s.ropeBetaSlow = bs != 0.0 ? bs : 1.0;
        if (const auto t = merged.find("truncate"); t != merged.end() && t->is_boolean())
            s.ropeTruncate = t->get<bool>();
    } else if (type == "longrope" || (legacyLongrope && (type == "su" || type == "yarn"))) {
        s.rotaryDim = static_cast<int64_t>(static_cast<double>(s.headDim) * partial);
        readLongrope(merged, s, typeKey.substr(0, typeKey.find('.')), path);
    } else if (type == "dynamic") {
        // transformers' _compute_dynamic_ntk_parameters scales against max_position_embeddings itself.
        s.ropeScaling = ArchSpec::RopeScaling::Dynamic;
        s.ropeFactor = number("factor", 1.0);
        if (!(s.ropeFactor >= 1.0) || s.ropeFactor > 1024.0)
            throw ModelError(path + ": " + typeKey.substr(0, typeKey.find('.')) +
                             ".factor = " + std::to_string(s.ropeFactor) + ": a dynamic rope factor must be 1 to 1024");
        s.ropeOriginalContext = s.context;
        s.context = static_cast<int64_t>(std::floor(static_cast<double>(s.context) * s.ropeFactor));
    } else if (type != "default") {
        throw ModelError(path + ": " + typeKey + " = \"" + type +
                         "\": this rope scaling type is not supported (supported: default, linear, dynamic, llama3, "
                         "yarn, longrope)");
    }
    s.rotaryDim = static_cast<int64_t>(static_cast<double>(s.headDim) * partial);
    if (s.ropeScaling == ArchSpec::RopeScaling::Dynamic && s.rotaryDim <= 2) // its exponent is d / (d - 2)
        throw ModelError(path + ": " + typeKey + " = \"dynamic\" with a rotary dimension of " +
                         std::to_string(s.rotaryDim) + " (head_dim x partial rotary factor): it needs more than 2");
}

void readTokens(const json& j, ArchSpec& s)
{
    if (const json* e = field(j, {"eos_token_id"})) {
        if (e->is_number_integer())
            s.eosIds.push_back(e->get<int32_t>());
        else if (e->is_array())
            for (const auto& x : *e)
                if (x.is_number_integer())
                    s.eosIds.push_back(x.get<int32_t>());
    }
    s.bosId = static_cast<int32_t>(intOr(j, {"bos_token_id"}, -1));
}

// GPT-2 style field names (gpt2, gpt_bigcode, codegen).
void readGpt2Style(const json& j, ArchSpec& s, const std::string& path)
{
    s.vocab = intField(j, {"vocab_size"}, path);
    s.hidden = intField(j, {"n_embd", "hidden_size"}, path);
    s.layers = intField(j, {"n_layer", "num_hidden_layers"}, path);
    s.heads = intField(j, {"n_head", "num_attention_heads"}, path);
    s.kvHeads = s.heads;
    s.context = intField(j, {"n_positions", "n_ctx", "max_position_embeddings"}, path);
    s.intermediate = intOr(j, {"n_inner"}, 4 * s.hidden);
    s.normEps = numberOr(j, {"layer_norm_epsilon"}, 1e-5);
    s.act = activationField(j, {"activation_function"}, "gelu_new", path);
}

void readGpt2(const json& j, ArchSpec& s, const std::string& path)
{
    readGpt2Style(j, s, path);
    s.learnedPositions = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", true);
    s.headDim = s.hidden / s.heads;
    const bool scaled = boolOr(j, "scale_attn_weights", true);
    const bool byLayer = boolOr(j, "scale_attn_by_inverse_layer_idx", false);
    for (int64_t l = 0; l < s.layers; ++l)
        s.attnScale.push_back((scaled ? 1.0 / std::sqrt(static_cast<double>(s.headDim)) : 1.0) /
                              (byLayer ? static_cast<double>(l + 1) : 1.0));
}

void readBigcode(const json& j, ArchSpec& s, const std::string& path)
{
    readGpt2(j, s, path);
    if (boolOr(j, "scale_attn_by_inverse_layer_idx", false))
        throw ModelError(path + ": scale_attn_by_inverse_layer_idx = true is not supported for gpt_bigcode");
    s.kvHeads = boolOr(j, "multi_query", true) ? 1 : s.heads;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", true);
}

// codegen: gptj's computation with its q/k/v fused in mp_num = 4 groups (arch_weights.cpp).
void readCodegen(const json& j, ArchSpec& s, const std::string& path)
{
    readGptj(j, s, path);
    if (s.heads % 4 != 0)
        throw ModelError(path + ": codegen's fused qkv layout needs n_head divisible by 4 (mp_num), got " +
                         std::to_string(s.heads));
}

void readGptNeo(const json& j, ArchSpec& s, const std::string& path)
{
    s.vocab = intField(j, {"vocab_size"}, path);
    s.hidden = intField(j, {"hidden_size"}, path);
    s.layers = intField(j, {"num_layers"}, path);
    s.heads = intField(j, {"num_heads"}, path);
    s.kvHeads = s.heads;
    s.headDim = s.hidden / s.heads;
    s.context = intField(j, {"max_position_embeddings"}, path);
    s.intermediate = intOr(j, {"intermediate_size"}, 4 * s.hidden);
    s.normEps = numberOr(j, {"layer_norm_epsilon"}, 1e-5);
    s.act = activationField(j, {"activation_function"}, "gelu_new", path);
    s.learnedPositions = true;
    s.attnFp32 = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", true);
    s.attnScale.assign(static_cast<std::size_t>(s.layers), 1.0); // GPT-Neo does not scale q.k
    // attention_layers (expanded) or attention_types [[["global","local"], n], ...]
    std::vector<std::string> kinds;
    if (const json* al = field(j, {"attention_layers"}); al && al->is_array())
        for (const auto& k : *al)
            kinds.push_back(k.get<std::string>());
    if (kinds.empty())
        if (const json* at = field(j, {"attention_types"}); at && at->is_array())
            for (const auto& item : *at)
                for (int64_t r = 0; r < item.at(1).get<int64_t>(); ++r)
                    for (const auto& k : item.at(0))
                        kinds.push_back(k.get<std::string>());
    if (static_cast<int64_t>(kinds.size()) != s.layers)
        throw ModelError(path + ": attention_layers/attention_types name " + std::to_string(kinds.size()) +
                         " layers but num_layers is " + std::to_string(s.layers));
    const int64_t windowSize = intOr(j, {"window_size"}, 256);
    for (const auto& k : kinds) {
        if (k != "global" && k != "local")
            throw ModelError(path + ": unknown GPT-Neo attention type \"" + k + "\" (global or local)");
        s.window.push_back(k == "local" ? windowSize : 0);
    }
}

void readGptNeox(const json& j, ArchSpec& s, const std::string& path)
{
    s.vocab = intField(j, {"vocab_size"}, path);
    s.hidden = intField(j, {"hidden_size"}, path);
    s.layers = intField(j, {"num_hidden_layers"}, path);
    s.heads = intField(j, {"num_attention_heads"}, path);
    s.kvHeads = s.heads;
    s.headDim = s.hidden / s.heads;
    s.context = intField(j, {"max_position_embeddings"}, path);
    s.intermediate = intField(j, {"intermediate_size"}, path);
    s.normEps = numberOr(j, {"layer_norm_eps"}, 1e-5);
    s.act = activationField(j, {"hidden_act"}, "gelu", path);
    s.rope = RopeKind::NeoX;
    readRope(j, s, 0.25, path);
    s.residual = boolOr(j, "use_parallel_residual", true) ? Residual::ParallelTwoNorms : Residual::Sequential;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", true); // query_key_value and dense
}

// llama, qwen2, starcoder2 share field names.
void readLlamaStyle(const json& j, ArchSpec& s, const std::string& path, bool legacyLongrope)
{
    s.vocab = intField(j, {"vocab_size"}, path);
    s.hidden = intField(j, {"hidden_size"}, path);
    s.layers = intField(j, {"num_hidden_layers"}, path);
    s.heads = intField(j, {"num_attention_heads"}, path);
    s.kvHeads = intOr(j, {"num_key_value_heads"}, s.heads);
    s.headDim = intOr(j, {"head_dim"}, s.hidden / s.heads);
    s.context = intField(j, {"max_position_embeddings"}, path);
    s.intermediate = intField(j, {"intermediate_size"}, path);
    s.rope = RopeKind::NeoX;
    readRope(j, s, 1.0, path, legacyLongrope);
}

void readLlama(const json& j, ArchSpec& s, const std::string& path)
{
    readLlamaStyle(j, s, path);
    s.norm = NormKind::RMSNorm;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-6);
    s.act = activationField(j, {"hidden_act"}, "silu", path);
    s.gatedMlp = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.mlpBias = boolOr(j, "mlp_bias", false);
    if (intOr(j, {"pretraining_tp"}, 1) != 1)
        throw ModelError(path + ": llama pretraining_tp > 1 is not supported");
}

// Qwen's sliding window: only where use_sliding_window is on, for the layers layer_types marks (else the layers
// from max_window_layers on).
void readQwenWindows(const json& j, ArchSpec& s)
{
    if (!boolOr(j, "use_sliding_window", false))
        return;
    const int64_t w = intOr(j, {"sliding_window"}, 0);
    const int64_t maxWindowLayers = intOr(j, {"max_window_layers"}, s.layers);
    const json* types = field(j, {"layer_types"});
    for (int64_t l = 0; l < s.layers; ++l) {
        bool sliding = l >= maxWindowLayers;
        if (types && types->is_array() && static_cast<int64_t>(types->size()) == s.layers)
            sliding = (*types)[static_cast<std::size_t>(l)].get<std::string>() == "sliding_attention";
        s.window.push_back(sliding ? w : 0);
    }
}

void readQwen2(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    s.qkvBias = true;
    s.outBias = s.mlpBias = false;
    readQwenWindows(j, s);
}

void readStarcoder2(const json& j, ArchSpec& s, const std::string& path)
{
    readLlamaStyle(j, s, path);
    s.norm = NormKind::LayerNorm;
    s.normEps = numberOr(j, {"norm_epsilon"}, 1e-5);
    s.act = activationField(j, {"hidden_act"}, "gelu_pytorch_tanh", path);
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", true);
    s.qkvBias = s.outBias = s.mlpBias = boolOr(j, "use_bias", true);
    s.normBias = true;
    if (const int64_t w = intOr(j, {"sliding_window"}, 0); w > 0)
        s.window.assign(static_cast<std::size_t>(s.layers), w);
}

} // namespace cfg

namespace {
using namespace cfg;

struct Architecture {
    const char* modelType;
    void (*readConfig)(const json&, ArchSpec&, const std::string&);
    DecoderWeights (*loadWeights)(WeightStore&, const ArchSpec&);
    const char* honours; // the config options and computations it honours (ascviz-cli models; docs/architectures.md)
};

const Architecture kArchitectures[] = {
    {"gpt2", readGpt2, gpt2Weights,
     "learned positions, LayerNorm, GELU; scale_attn_weights, scale_attn_by_inverse_layer_idx, tie_word_embeddings"},
    {"gpt_neo", readGptNeo, gptNeoWeights, "learned positions, attention_types (global and local layers), window_size"},
    {"codegen", readCodegen, codegenWeights,
     "rotary_dim (GPT-J rotary), parallel attention and MLP, untied head with bias"},
    {"gpt_bigcode", readBigcode, bigcodeWeights,
     "multi_query (multi-query or multi-head attention), learned positions"},
    {"gpt_neox", readGptNeox, gptNeoxWeights,
     "rotary_pct, use_parallel_residual, attention_bias, rope_parameters (default, linear, dynamic, llama3, yarn, "
     "longrope)"},
    {"llama", readLlama, llamaStyleWeights,
     "num_key_value_heads (GQA/MQA), attention_bias, mlp_bias, head_dim, tie_word_embeddings, rope_parameters "
     "(default, linear, dynamic, llama3, yarn, longrope)"},
    {"qwen2", readQwen2, llamaStyleWeights,
     "q/k/v biases, tie_word_embeddings, use_sliding_window, sliding_window, max_window_layers, layer_types, "
     "rope_parameters"},
    {"starcoder2", readStarcoder2, llamaStyleWeights, "use_bias, sliding_window, LayerNorm, GELU MLP, rope_parameters"},
    {"qwen3", readQwen3, llamaStyleWeights,
     "per-head q/k RMSNorm, head_dim, attention_bias, use_sliding_window, sliding_window, max_window_layers, "
     "layer_types, rope_parameters"},
    {"mistral", readMistral, llamaStyleWeights, "sliding_window (null = none), head_dim, rope_parameters"},
    {"gemma", readGemma, llamaStyleWeights,
     "RMSNorm as x(1+w), embeddings times sqrt(hidden), GeGLU (hidden_activation), head_dim, rope_parameters"},
    {"gemma2", readGemma2, gemma2Weights,
     "sandwich norms, query_pre_attn_scalar, attn_logit_softcapping, final_logit_softcapping, layer_types, "
     "sliding_window"},
    {"gemma3_text", readGemma3Text, gemma2Weights,
     "gemma2's layout, per-head q/k norms, rope_parameters per layer type (or rope_local_base_freq), "
     "sliding_window_pattern"},
    {"phi3", readPhi3, phi3Weights,
     "fused qkv_proj and gate_up_proj, partial_rotary_factor, rope longrope (also su, yarn), sliding_window"},
    {"gptj", readGptj, gptjWeights, "rotary_dim (GPT-J rotary), parallel attention and MLP, head with bias"},
    {"phi", readPhi, phiWeights,
     "partial_rotary_factor, parallel attention and MLP, qk_layernorm, biases, head with bias"},
    {"stablelm", readStablelm, llamaStyleWeights,
     "partial_rotary_factor, use_qkv_bias, use_parallel_residual, layer_norm_eps"},
    {"granite", readGranite, llamaStyleWeights,
     "embedding_multiplier, residual_multiplier, attention_multiplier, logits_scaling, rope_parameters"},
    {"olmo2", readOlmo2, olmo2Weights,
     "post-norms after attention and MLP, q/k RMSNorm over the whole projections, rope_parameters"},
    {"smollm3", readSmollm3, llamaStyleWeights, "no_rope_layers, no_rope_layer_interval, rope_parameters"},
    {"mixtral", readMixtral, mixtralWeights,
     "mixture of experts: num_local_experts, num_experts_per_tok (top-k renormalised), sliding_window, "
     "rope_parameters"},
    {"qwen2_moe", readQwen2Moe, qwenMoeWeights,
     "mixture of experts: num_experts, num_experts_per_tok, moe_intermediate_size, norm_topk_prob, shared expert "
     "(shared_expert_intermediate_size) with its sigmoid gate, decoder_sparse_step, mlp_only_layers, qkv_bias"},
    {"qwen3_moe", readQwen3Moe, qwenMoeWeights,
     "mixture of experts: num_experts, num_experts_per_tok, moe_intermediate_size, norm_topk_prob, "
     "decoder_sparse_step, mlp_only_layers, per-head q/k RMSNorm, attention_bias"},
    {"deepseek_v2", readDeepseekV2, deepseekWeights,
     "multi-head latent attention (q_lora_rank or q_proj, kv_lora_rank, qk_nope/rope_head_dim, v_head_dim, "
     "interleaved rope, yarn mscale_all_dim), first_k_dense_replace, n_routed_experts, num_experts_per_tok, "
     "topk_method greedy / group_limited_greedy (n_group, topk_group), routed_scaling_factor, n_shared_experts"},
    {"deepseek_v3", readDeepseekV3, deepseekWeights,
     "multi-head latent attention as deepseek_v2 (rope_interleave), sigmoid routing with e_score_correction_bias, "
     "grouped top-k (n_group, topk_group), norm_topk_prob, routed_scaling_factor, n_shared_experts, "
     "first_k_dense_replace"},
    {"olmo3", readOlmo3, olmo2Weights, "olmo2's layout, layer_types, sliding_window, rope_parameters per layer type"},
    {"seed_oss", readSeedOss, llamaStyleWeights,
     "attention_bias, attention_out_bias, mlp_bias, head_dim, rope_parameters"},
    {"cwm", readCwm, llamaStyleWeights, "layer_types, sliding_window, rope llama3"},
    {"exaone4", readExaone4, olmo2Weights,
     "post-norms, per-head q/k norms, sliding_window, layer_types, sliding_window_pattern, rope_parameters"},
    {"mellum", readMellum, qwenMoeWeights,
     "mixture of experts: num_local_experts, num_experts_per_tok, moe_intermediate_size, norm_topk_prob, "
     "mlp_layer_types (dense or sparse), per-head q/k RMSNorm, attention_bias, layer_types, sliding_window, "
     "rope_parameters per layer type"},
    {"gpt_oss", readGptOss, gptOssWeights,
     "mixture of experts: num_local_experts, num_experts_per_tok (top-k of the biased router logits, then softmax), "
     "clamped SwiGLU experts with biases, attention sinks, attention_bias, layer_types, sliding_window, "
     "rope_parameters (yarn by default), MXFP4 expert weights (dequantised at load)"},
    {"olmoe", readOlmoe, qwenMoeWeights,
     "mixture of experts: num_experts, num_experts_per_tok, norm_topk_prob; q/k RMSNorm over the whole projections, "
     "clip_qkv, attention_bias, rope_parameters"},
    {"granitemoe", readGranitemoe, granitemoeWeights,
     "mixture of experts: num_local_experts, num_experts_per_tok (top-k of the logits, then softmax); "
     "embedding_multiplier, residual_multiplier, attention_multiplier, logits_scaling, rope_parameters"},
    {"granitemoeshared", readGranitemoeShared, granitemoeWeights,
     "granitemoe's layout with an ungated shared expert (shared_intermediate_size, 0: none)"},
    {"arcee", readArcee, llamaStyleWeights,
     "ungated MLP with relu2 (hidden_act), num_key_value_heads, head_dim, attention_bias, mlp_bias, "
     "rope_parameters"},
    {"glm4", readGlm4, glm4Weights,
     "post-attention and post-MLP norms, interleaved partial rope (partial_rotary_factor), attention_bias (q/k/v), "
     "fused gate_up_proj, rope_parameters"},
    {"ernie4_5", readErnie45, llamaStyleWeights,
     "interleaved rope in float32, use_bias, head_dim, tie_word_embeddings, rope_parameters"},
    {"apertus", readApertus, apertusWeights,
     "ungated MLP with xIELU (its learned alpha_p, alpha_n, beta, eps per layer) or another hidden_act, per-head "
     "q/k RMSNorm, attention_bias, rope_parameters (llama3 by default)"},
    {"hunyuan_v1_dense", readHunyuanDense, llamaStyleWeights,
     "per-head q/k RMSNorm after rope (query_layernorm, key_layernorm), rope dynamic with alpha (a fixed base), "
     "head_dim, attention_bias, rope_parameters"},
    {"hunyuan_v1_moe", readHunyuanMoe, hunyuanMoeWeights,
     "mixture of experts: num_experts, moe_topk (one value for all layers), float32 router, top-k renormalised, "
     "shared expert of intermediate_size; hunyuan_v1_dense's attention"},
    {"qwen3_next", readQwen3Next, qwen3NextWeights,
     "hybrid: gated DeltaNet layers (linear_attention: chunked delta rule when scoring, recurrent state and conv "
     "state in the generation cache; linear_num_key_heads, linear_num_value_heads, linear_key_head_dim, "
     "linear_value_head_dim, linear_conv_kernel_dim, gated RMSNorm) beside gated full attention (output gate, "
     "per-head q/k norms, partial_rotary_factor) by layer_types or full_attention_interval; RMSNorm as x(1+w); "
     "dense MLPs or experts (num_experts, num_experts_per_tok, moe_intermediate_size, norm_topk_prob, shared expert "
     "with its sigmoid gate, decoder_sparse_step, mlp_only_layers); rope_parameters"},
    {"qwen3_5_text", readQwen35Text, qwen3NextWeights,
     "Qwen3.5's text model: qwen3_next's gated DeltaNet and gated attention layers (plain in_proj_qkv, in_proj_z, "
     "in_proj_b, in_proj_a) with dense MLPs; text positions of its multimodal rope (mrope_section)"},
    {"qwen3_5_moe_text", readQwen35MoeText, qwen3NextWeights,
     "Qwen3.5-MoE's text model: qwen3_5_text's layers, every MLP num_experts experts (num_experts_per_tok, "
     "renormalised) with a sigmoid-gated shared expert (shared_expert_intermediate_size)"},
    {"lfm2", readLfm2, lfm2Weights,
     "hybrid: gated short convolutions (conv: in_proj to B, C, x; B*x through a causal depthwise conv of conv_L_cache "
     "taps, conv_bias; C times it; out_proj; conv state in the generation cache) beside attention with per-head q/k "
     "RMSNorm, by layer_types or full_attn_idxs; SwiGLU MLP of intermediate_size (block_ff_dim) adjusted by "
     "block_auto_adjust_ff_dim, block_ffn_dim_multiplier, block_multiple_of; norm_eps, tie_embedding, rope_parameters"},
    {"lfm2_moe", readLfm2Moe, lfm2Weights,
     "lfm2's short-convolution and attention layers (layer_types); num_dense_layers dense SwiGLU MLPs, then experts "
     "(num_experts, num_experts_per_tok, moe_intermediate_size) routed by sigmoid scores with the expert bias in "
     "the choice (use_expert_bias), norm_topk_prob, routed_scaling_factor"},
    {"granitemoehybrid", readGraniteMoeHybrid, graniteMoeHybridWeights,
     "IBM Granite 4.0-H hybrid: Mamba-2 layers (chunked SSD scan when scoring, conv and SSM states in the "
     "generation cache; mamba_n_heads, mamba_d_head, mamba_n_groups, mamba_d_state, mamba_d_conv, mamba_expand, "
     "mamba_chunk_size, mamba_conv_bias, mamba_proj_bias, time_step_limit, gated RMSNorm) beside attention by "
     "layer_types; granite's embedding, residual and attention multipliers and logits_scaling; "
     "position_embedding_type rope or none; num_local_experts experts (top-k then softmax) plus the shared MLP "
     "(shared_intermediate_size), or the shared MLP alone; attention_bias, rope_parameters"},
    {"nemotron_h", readNemotronH, nemotronHWeights,
     "NVIDIA Nemotron-H hybrid: each layer one block x + mixer(norm(x)) by layers_block_type or "
     "hybrid_override_pattern: Mamba-2 (M: mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size, conv_kernel, "
     "chunk_size, use_conv_bias, use_bias, mamba_hidden_act, dt clamped below by time_step_min, gated RMSNorm per "
     "group), attention without rope (*: head_dim), an ungated MLP (-: intermediate_size, mlp_hidden_act, mlp_bias) "
     "or ungated experts (E: n_routed_experts, num_experts_per_tok, moe_intermediate_size, grouped sigmoid router "
     "with e_score_correction_bias, n_group, topk_group, norm_topk_prob, routed_scaling_factor, shared expert of "
     "moe_shared_expert_intermediate_size)"},
    {"flex_olmo", readFlexOlmo, flexOlmoWeights,
     "mixture of experts: num_experts, num_experts_per_tok, norm_topk_prob on every layer; olmo2's post-norms, q/k "
     "RMSNorm over the whole projections, attention_bias, rope_parameters"},
    {"ernie4_5_moe", readErnie45Moe, ernie45MoeWeights,
     "mixture of experts: moe_num_experts, moe_k (softmax, choice biased by e_score_correction_bias, renormalised "
     "at least moe_norm_min), moe_num_shared_experts, moe_layer_start_index / end_index / interval; ernie4_5's "
     "interleaved rope in float32, use_bias (the head's bias too), tie_word_embeddings, rope_parameters"},
    {"glm4_moe", readGlm4Moe, sigmoidMoeWeights,
     "mixture of experts: sigmoid routing with e_score_correction_bias, n_group, topk_group, norm_topk_prob, "
     "routed_scaling_factor, n_shared_experts, first_k_dense_replace; partial rope (partial_rotary_factor), "
     "attention_bias (q/k/v), use_qk_norm, rope_parameters"},
    {"dots1", readDots1, sigmoidMoeWeights,
     "mixture of experts as glm4_moe (sigmoid routing, groups, shared experts, first_k_dense_replace); per-head q/k "
     "RMSNorm, attention_bias, layer_types, sliding_window, max_window_layers, rope_parameters"},
    {"minimax_m2", readMinimaxM2, minimaxM2Weights,
     "mixture of experts: num_local_experts, num_experts_per_tok (sigmoid scores, choice biased by "
     "e_score_correction_bias, renormalised); q/k RMSNorm over the whole projections, partial_rotary_factor, head_dim, "
     "rope_parameters"},
    {"cohere2", readCohere2, llamaStyleWeights,
     "attention and MLP in parallel on one LayerNorm, interleaved rope on sliding layers and none on global ones "
     "(layer_types or sliding_window_pattern), sliding_window, logit_scale, attention_bias, tie_word_embeddings, "
     "rope_parameters"},
    {"ministral3", readMinistral3, llamaStyleWeights,
     "mistral's layout (sliding_window, head_dim) with the query scale of rope_parameters.llama_4_scaling_beta, "
     "rope_parameters (yarn by default)"},
    {"phimoe", readPhimoe, phimoeWeights,
     "mixture of experts: num_local_experts, two experts by the sparsemixer (router_jitter_noise); LayerNorm with "
     "bias, attention_bias, sliding_window, lm_head_bias, rope default or longrope (short factors, short_mscale)"},
};

const Architecture* find(const std::string& type)
{
    for (const auto& a : kArchitectures)
        if (type == a.modelType)
            return &a;
    return nullptr;
}

} // namespace

std::string supportedArchitectures()
{
    std::string s;
    for (const auto& a : kArchitectures)
        s += (s.empty() ? "" : ", ") + std::string(a.modelType);
    return s;
}

ArchSpec readArchSpec(const json& config, const std::string& path)
{
    if (!config.is_object())
        throw ModelError(path + " is not a JSON object");
    const json* mt = field(config, {"model_type"});
    if (!mt || !mt->is_string())
        throw ModelError(path + " has no model_type (supported: " + supportedArchitectures() + ")");
    const std::string type = mt->get<std::string>();
    const Architecture* a = find(type);
    if (!a)
        throw ModelError("model_type \"" + type + "\" in " + path +
                         " is not supported (supported: " + supportedArchitectures() + ")");
    ArchSpec s;
    s.modelType = type;
    try {
        a->readConfig(config, s, path);
    } catch (const json::exception& e) {
        throw ModelError(path + ": malformed field: " + e.what());
    }
    readTokens(config, s);
    if (s.hidden <= 0 || s.heads <= 0 || s.layers <= 0 || s.vocab <= 0 || s.kvHeads <= 0 || s.headDim <= 0 ||
        s.context <= 0 || s.intermediate <= 0)
        throw ModelError(path + ": sizes must be positive");
    // Values that made every NtP NaN while the run reported success (issue 54): each must be a finite number
    // > 0 (the rope's when the model rotates).
    const auto positive = [&](double v, const char* keys) {
        if (!std::isfinite(v) || v <= 0)
            throw ModelError(path + ": " + keys + " = " + json(v).dump() + " (must be a finite number > 0)");
    };
    positive(s.normEps, "the norm epsilon (rms_norm_eps, layer_norm_eps, layer_norm_epsilon or norm_epsilon)");
    if (s.rope != RopeKind::None) {
        positive(s.ropeTheta, "rope_theta");
        positive(s.ropeLinearFactor, "the linear rope factor (rope_scaling / rope_parameters factor)");
        positive(s.ropeFactor, "the rope factor (rope_scaling / rope_parameters factor)");
        if (s.ropeLocalTheta != 0)
            positive(s.ropeLocalTheta, "rope_local_base_freq");
    }
    if (!std::isfinite(s.moe.routedScale) || s.moe.routedScale <= 0 || s.moe.routedScale > 1e6)
        throw ModelError(path + ": routed_scaling_factor = " + json(s.moe.routedScale).dump() +
                         " (must be a finite number in (0, 1e6])");
    if (s.heads % s.kvHeads != 0)
        throw ModelError(path + ": " + std::to_string(s.heads) + " attention heads are not a multiple of " +
                         std::to_string(s.kvHeads) + " key/value heads");
    if (s.rope != RopeKind::None && (s.rotaryDim <= 0 || s.rotaryDim % 2 != 0 || s.rotaryDim > s.headDim))
        throw ModelError(path + ": rotary dimension " + std::to_string(s.rotaryDim) + " must be even and in (0, " +
                         std::to_string(s.headDim) + "]");
    if (s.attnScale.empty())
        s.attnScale.assign(static_cast<std::size_t>(s.layers), 1.0 / std::sqrt(static_cast<double>(s.headDim)));
    if (s.window.empty())
        s.window.assign(static_cast<std::size_t>(s.layers), 0);
    int64_t w0 = 0;
    for (auto w : s.window) {
        if (w > 0 && w0 > 0 && w != w0)
            throw ModelError(path + ": layers with different attention windows are not supported");
        if (w > 0)
            w0 = w;
    }
    return s;
}

DecoderWeights loadDecoderWeights(WeightStore& store, const ArchSpec& spec)
{
    const Architecture* a = find(spec.modelType);
    if (!a)
        throw ModelError("model_type \"" + spec.modelType + "\" is not supported");
    return a->loadWeights(store, spec);
}

} // namespace ascviz::model

namespace ascviz {

std::vector<ModelFamily> modelFamilies()
{
    std::vector<ModelFamily> out;
    for (const auto& a : model::kArchitectures)
        out.push_back({a.modelType, a.honours});
    return out;
}

} // namespace ascviz
