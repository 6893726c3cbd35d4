// The config.json readers of the newer families (architectures.cpp holds the helpers, the older families and the
// model_type table): each fills the shared ArchSpec; decoder.cpp computes every option once for all.
#include "families/arch_config.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

using nlohmann::json;

namespace ascviz::model::cfg {

// qwen3: llama with RMSNorm over each head's q and k before rope; attention_bias on q/k/v/o.
void readQwen3(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.mlpBias = false;
    s.qkNorm = QkNorm::PerHead;
    readQwenWindows(j, s);
}

// mistral: llama with a sliding window on every layer (sliding_window null: none).
void readMistral(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.qkvBias = s.outBias = s.mlpBias = false;
    if (const int64_t w = intOr(j, {"sliding_window"}, 0); w > 0)
        s.window.assign(static_cast<std::size_t>(s.layers), w);
}

// phi3: llama-style with fused qkv_proj and gate_up_proj, partial rotary, longrope ("su"/"yarn" are longrope).
void readPhi3(const json& j, ArchSpec& s, const std::string& path)
{
    readLlamaStyle(j, s, path, /*legacyLongrope=*/true);
    s.norm = NormKind::RMSNorm;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.act = activationField(j, {"hidden_act"}, "silu", path);
    s.gatedMlp = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    if (const int64_t w = intOr(j, {"sliding_window"}, 0); w > 0)
        s.window.assign(static_cast<std::size_t>(s.layers), w);
}

// The Gemma family: RMSNorm as x·(1 + w), embeddings times √hidden rounded to the model dtype, GeGLU.
void readGemmaCommon(const json& j, ArchSpec& s, const std::string& path, const char* actKey)
{
    readLlamaStyle(j, s, path);
    s.norm = NormKind::RMSNormPlusOne;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-6);
    s.act = activationField(j, {actKey}, "gelu_pytorch_tanh", path);
    s.gatedMlp = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", true);
    s.qkvBias = s.outBias = boolOr(j, "attention_bias", false);
    s.embedScale = std::sqrt(static_cast<double>(s.hidden));
    s.embedScaleInDtype = true;
    if (boolOr(j, "use_bidirectional_attention", false))
        throw ModelError(path + ": use_bidirectional_attention = true is not supported (causal decoders only)");
}

void readGemma(const json& j, ArchSpec& s, const std::string& path)
{
    readGemmaCommon(j, s, path, "hidden_act");
}

// Gemma 2 and 3: sandwich norms, q.k scaled by query_pre_attn_scalar^-0.5, local (sliding_window) and global
// layers by layer_types (else every `pattern`-th layer global), final-logit soft-capping.
void readGemmaLocalGlobal(const json& j, ArchSpec& s, const std::string& path, int64_t pattern)
{
    readGemmaCommon(j, s, path, "hidden_activation");
    s.residual = Residual::Sandwich;
    const double scalar = numberOr(j, {"query_pre_attn_scalar"}, 256.0);
    s.attnScale.assign(static_cast<std::size_t>(s.layers), std::pow(scalar, -0.5)); // as Python's scalar**-0.5
    s.finalSoftcap = numberOr(j, {"final_logit_softcapping"}, 0.0);
    readLayerWindows(j, s, path, [pattern](int64_t l) { return (l + 1) % pattern != 0; });
}

void readGemma2(const json& j, ArchSpec& s, const std::string& path)
{
    readGemmaLocalGlobal(j, s, path, 2);
    s.attnSoftcap = numberOr(j, {"attn_logit_softcapping"}, 0.0);
}

// gemma3_text: q/k norms per head; local layers rotate with their own base (rope_parameters.sliding_attention,
// transformers 4: rope_local_base_freq), global layers with rope_parameters.full_attention (4: rope_theta,
// rope_scaling). transformers 5.17 does not apply attn_logit_softcapping to Gemma 3 (nor does the runtime).
void readGemma3Text(const json& j, ArchSpec& s, const std::string& path)
{
    double localTheta = 0;
    const json global = perLayerTypeRope(j, 1000000.0, "rope_local_base_freq", 10000.0, localTheta, path);
    readGemmaLocalGlobal(global, s, path, intOr(j, {"sliding_window_pattern"}, 6));
    s.qkNorm = QkNorm::PerHead;
    s.ropeLocalTheta = localTheta;
}

// gptj: codegen's layout (GPT-J rotary on rotary_dim, parallel attention + MLP on ln_1, q.k in float32) with
// separate q/k/v projections and an LM head with bias.
void readGptj(const json& j, ArchSpec& s, const std::string& path)
{
    readGpt2Style(j, s, path);
    s.headDim = s.hidden / s.heads;
    s.rope = RopeKind::GptJ;
    s.rotaryDim = intOr(j, {"rotary_dim"}, s.headDim);
    s.residual = Residual::ParallelSharedNorm;
    s.attnFp32 = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
}

// phi (phi-1, phi-1.5, phi-2): LayerNorm, partial NeoX rotary, attention and MLP in parallel on one norm, biases
// everywhere (head included), optional LayerNorm of each head's q and k (qk_layernorm).
void readPhi(const json& j, ArchSpec& s, const std::string& path)
{
    readLlamaStyle(j, s, path);
    s.headDim = s.hidden / s.heads;
    readRope(j, s, 0.5, path);
    s.norm = NormKind::LayerNorm;
    s.normEps = numberOr(j, {"layer_norm_eps"}, 1e-5);
    s.act = activationField(j, {"hidden_act"}, "gelu_new", path);
    s.residual = Residual::ParallelSharedNorm;
    s.qkvBias = s.outBias = s.mlpBias = s.normBias = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    if (boolOr(j, "qk_layernorm", false))
        s.qkNorm = QkNorm::PerHead;
}

// stablelm: LayerNorm with bias, partial rotary (0.25), SwiGLU, use_qkv_bias, use_parallel_residual (attention
// and MLP on the input norm).
void readStablelm(const json& j, ArchSpec& s, const std::string& path)
{
    readLlamaStyle(j, s, path);
    s.headDim = s.hidden / s.heads;
    readRope(j, s, 0.25, path);
    s.norm = NormKind::LayerNorm;
    s.normEps = numberOr(j, {"layer_norm_eps"}, 1e-5);
    s.act = activationField(j, {"hidden_act"}, "silu", path);
    s.gatedMlp = true;
    s.qkvBias = boolOr(j, "use_qkv_bias", false);
    s.normBias = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    if (boolOr(j, "use_parallel_residual", false))
        s.residual = Residual::ParallelSharedNorm;
    if (boolOr(j, "qk_layernorm", false))
        throw ModelError(path + ": qk_layernorm = true is not supported for stablelm (one LayerNorm per head)");
}

// granite: llama with embedding_multiplier, residual_multiplier, attention_multiplier (the q.k scale) and
// logits_scaling (logits divided by it).
void readGranite(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.embedScale = numberOr(j, {"embedding_multiplier"}, 1.0);
    s.residualScale = numberOr(j, {"residual_multiplier"}, 1.0);
    s.attnScale.assign(static_cast<std::size_t>(s.layers), numberOr(j, {"attention_multiplier"}, 1.0));
    s.logitsDivisor = numberOr(j, {"logits_scaling"}, 1.0);
}

// olmo2: no input norms; RMSNorm (w · x in float32) after attention and after the MLP, and over the whole q and
// k projections before rope.
void readOlmo2(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.norm = NormKind::RMSNormWeightFp32;
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.mlpBias = false;
    s.residual = Residual::PostNorms;
    s.qkNorm = QkNorm::Full;
}

// smollm3: llama whose layers listed 0 in no_rope_layers use no rope (default: every no_rope_layer_interval-th).
void readSmollm3(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", true);
    if (boolOr(j, "use_sliding_window", false))
        throw ModelError(path + ": use_sliding_window = true is not supported for smollm3");
    const json* list = field(j, {"no_rope_layers"});
    const int64_t interval = intOr(j, {"no_rope_layer_interval"}, 4);
    for (int64_t l = 0; l < s.layers; ++l) {
        bool rope = (l + 1) % interval != 0;
        if (list && list->is_array()) {
            if (static_cast<int64_t>(list->size()) != s.layers)
                throw ModelError(path + ": no_rope_layers names " + std::to_string(list->size()) +
                                 " layers but num_hidden_layers is " + std::to_string(s.layers));
            rope = (*list)[static_cast<std::size_t>(l)].get<int64_t>() != 0;
        }
        s.ropeOff.push_back(!rope);
    }
}

// Local ("sliding_attention") and global layers by layer_types, else by `slidingByDefault(layer)`; local layers
// attend within sliding_window.
void readLayerWindows(const json& j, ArchSpec& s, const std::string& path,
                      const std::function<bool(int64_t)>& slidingByDefault)
{
    const json* types = field(j, {"layer_types"});
    if (types && !types->is_array())
        throw ModelError(path + ": layer_types = " + types->dump() + " (a list of layer types expected)");
    const int64_t w = intOr(j, {"sliding_window"}, 0);
    s.window.clear();
    for (int64_t l = 0; l < s.layers; ++l) {
        bool sliding = slidingByDefault(l);
        if (types && types->is_array()) {
            if (static_cast<int64_t>(types->size()) != s.layers)
                throw ModelError(path + ": layer_types names " + std::to_string(types->size()) +
                                 " layers but num_hidden_layers is " + std::to_string(s.layers));
            const std::string t = (*types)[static_cast<std::size_t>(l)].get<std::string>();
            if (t != "sliding_attention" && t != "full_attention")
                throw ModelError(path + ": layer_types = \"" + t + "\" is not supported");
            sliding = t == "sliding_attention";
        }
        if (sliding && w <= 0)
            throw ModelError(path + ": sliding layers need a positive sliding_window");
        s.window.push_back(sliding ? w : 0);
    }
}

// rope_parameters keyed by layer type (gemma3_text, olmo3): a copy of config.json whose rope keys are the global
// layers' (full_attention; transformers 4: the top-level ones, rope_theta defaulting to globalTheta), and the
// local layers' base (sliding_attention.rope_theta; 4: `localKey`), whose rope type must be default.
json perLayerTypeRope(const json& j, double globalTheta, const char* localKey, double localDefault, double& localTheta,
                      const std::string& path)
{
    const json* params = field(j, {"rope_parameters"});
    json global = j;
    localTheta = numberOr(j, {localKey}, localDefault);
    if (params && params->is_object() && params->contains("full_attention")) {
        global["rope_parameters"] = params->at("full_attention");
        if (const auto it = params->find("sliding_attention"); it != params->end() && it->is_object()) {
            const auto t = it->find("rope_type");
            if (t != it->end() && t->is_string() && t->get<std::string>() != "default")
                throw ModelError(path + ": rope_parameters.sliding_attention.rope_type = \"" + t->get<std::string>() +
                                 "\" is not supported (local layers: default)");
            localTheta = numberOr(*it, {"rope_theta"}, localTheta);
        }
    } else if (!field(j, {"rope_theta"})) {
        global["rope_theta"] = globalTheta;
    }
    return global;
}

// olmo3: olmo2 with local layers (layer_types, default every 4th global) and the per-layer-type rope of
// gemma3_text (local layers: default rope).
void readOlmo3(const json& j, ArchSpec& s, const std::string& path)
{
    double localTheta = 0;
    const json global = perLayerTypeRope(j, 500000.0, "rope_theta", 500000.0, localTheta, path);
    readOlmo2(global, s, path);
    readLayerWindows(j, s, path, [](int64_t l) { return (l + 1) % 4 != 0; });
    s.ropeLocalTheta = localTheta;
}

// seed_oss: llama with attention_bias (q/k/v, default on), attention_out_bias (o) and mlp_bias.
void readSeedOss(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.qkvBias = boolOr(j, "attention_bias", true);
    s.outBias = boolOr(j, "attention_out_bias", false);
}

// cwm: llama (no biases) with local layers by layer_types (default: layers 0, 4, 8, ... global).
void readCwm(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.qkvBias = s.outBias = false;
    readLayerWindows(j, s, path, [](int64_t l) { return l % 4 != 0; });
}

// exaone4: OLMo 2's post-norm layout with llama's RMSNorm and per-head q/k norms; with a sliding_window, local
// layers (layer_types, else every sliding_window_pattern-th global) use rope and global layers none.
void readExaone4(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.normEps = numberOr(j, {"rms_norm_eps"}, 1e-5);
    s.qkvBias = s.outBias = s.mlpBias = false;
    s.residual = Residual::PostNorms;
    s.qkNorm = QkNorm::PerHead;
    if (intOr(j, {"sliding_window"}, 0) <= 0) // transformers: no local layers, rope on every layer
        return;
    const json* pattern = field(j, {"sliding_window_pattern"});
    if (pattern && !pattern->is_number_integer() && !field(j, {"layer_types"}))
        throw ModelError(path + ": sliding_window_pattern = " + pattern->dump() +
                         " is not supported without layer_types");
    const int64_t every = pattern && pattern->is_number_integer() ? pattern->get<int64_t>() : 4;
    readLayerWindows(j, s, path, [every](int64_t l) { return every > 0 && (l + 1) % every != 0; });
    for (int64_t l = 0; l < s.layers; ++l)
        s.ropeOff.push_back(s.window[static_cast<std::size_t>(l)] == 0);
}

} // namespace ascviz::model::cfg
