// The per-architecture table: how each Hugging Face model_type names its hyper-parameters and tensors.
// Each entry has two small hooks over the shared ArchSpec / DecoderWeights: read config.json, and map the
// checkpoint's tensors (transposing Conv1D weights and reordering fused projections into the canonical
// [q; k; v] layout). The math is in decoder.cpp, once for all.
#include "arch.h"
#include "decoder.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace ascviz::model {
namespace {

// ---------- config.json helpers ----------

const json* field(const json& j, std::initializer_list<const char*> names)
{
    for (const char* n : names)
        if (auto it = j.find(n); it != j.end() && !it->is_null())
            return &*it;
    return nullptr;
}

int64_t intField(const json& j, std::initializer_list<const char*> names, const std::string& path)
{
    const json* f = field(j, names);
    if (!f || !f->is_number_integer()) {
        std::string list;
        for (const char* n : names)
            list += (list.empty() ? "" : " or ") + std::string(n);
        throw ModelError(path + ": missing or non-integer " + list);
    }
    return f->get<int64_t>();
}

int64_t intOr(const json& j, std::initializer_list<const char*> names, int64_t fallback)
{
    const json* f = field(j, names);
    return f && f->is_number_integer() ? f->get<int64_t>() : fallback;
}

double numberOr(const json& j, std::initializer_list<const char*> names, double fallback)
{
    const json* f = field(j, names);
    return f && f->is_number() ? f->get<double>() : fallback;
}

bool boolOr(const json& j, const char* name, bool fallback)
{
    const json* f = field(j, {name});
    return f && f->is_boolean() ? f->get<bool>() : fallback;
}

Activation activationOf(const std::string& name, const std::string& path)
{
    if (name == "gelu_new" || name == "gelu_fast" || name == "gelu_pytorch_tanh" || name == "gelu_python_tanh")
        return Activation::GeluTanh;
    if (name == "gelu" || name == "gelu_python")
        return Activation::GeluErf;
    if (name == "silu" || name == "swish")
        return Activation::Silu;
    if (name == "relu")
        return Activation::Relu;
    if (name == "quick_gelu")
        return Activation::QuickGelu;
    throw ModelError(path + ": activation \"" + name +
                     "\" is not supported (supported: gelu_new, gelu_fast, gelu_pytorch_tanh, gelu, silu, relu, quick_gelu)");
}

Activation activationField(const json& j, std::initializer_list<const char*> names, const std::string& fallback,
                           const std::string& path)
{
    const json* f = field(j, names);
    return activationOf(f && f->is_string() ? f->get<std::string>() : fallback, path);
}

// rope_theta (transformers 4: top level / rotary_emb_base; 5: rope_parameters), rope_scaling, partial rotary.
void readRope(const json& j, ArchSpec& s, double defaultPartial, const std::string& path)
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
    // As transformers: a top-level original_max_position_embeddings wins, then the scaling's own, then
    // max_position_embeddings.
    s.ropeOriginalContext = intOr(j, {"original_max_position_embeddings"},
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
        s.ropeFactor = f != merged.end() && f->is_number() ? f->get<double>()
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
    } else if (type != "default") {
        throw ModelError(path + ": " + typeKey + " = \"" + type +
                         "\": this rope scaling type is not supported (supported: default, linear, llama3, yarn)");
    }
    s.rotaryDim = static_cast<int64_t>(static_cast<double>(s.headDim) * partial);
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

void readCodegen(const json& j, ArchSpec& s, const std::string& path)
{
    readGpt2Style(j, s, path);
    s.headDim = s.hidden / s.heads;
    s.rope = RopeKind::GptJ;
    s.rotaryDim = intOr(j, {"rotary_dim"}, s.headDim);
    s.residual = Residual::ParallelSharedNorm;
    s.attnFp32 = true;
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
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
void readLlamaStyle(const json& j, ArchSpec& s, const std::string& path)
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
    readRope(j, s, 1.0, path);
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

void readQwen2(const json& j, ArchSpec& s, const std::string& path)
{
    readLlama(j, s, path);
    s.tieEmbeddings = boolOr(j, "tie_word_embeddings", false);
    s.qkvBias = true;
    s.outBias = s.mlpBias = false;
    // Sliding window only where use_sliding_window is on, for the layers layer_types marks.
    if (boolOr(j, "use_sliding_window", false)) {
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

// ---------- weight tables ----------

std::string at_(const std::string& tmpl, int64_t layer)
{
    std::string s = tmpl;
    if (auto p = s.find("{}"); p != std::string::npos)
        s.replace(p, 2, std::to_string(layer));
    return s;
}

Linear linear(WeightStore& ws, const std::string& name, int64_t out, int64_t in, bool bias)
{
    Linear l;
    l.w = ws.get(name + ".weight", {out, in});
    if (bias)
        l.b = ws.get(name + ".bias", {out});
    return l;
}

// GPT-2's Conv1D stores [in, out].
Linear conv1d(WeightStore& ws, const std::string& name, int64_t in, int64_t out)
{
    Linear l;
    l.w = ws.get(name + ".weight", {in, out}).t().contiguous();
    l.b = ws.get(name + ".bias", {out});
    return l;
}

Norm norm(WeightStore& ws, const std::string& name, int64_t n, bool bias)
{
    Norm m;
    m.w = ws.get(name + ".weight", {n});
    if (bias)
        m.b = ws.get(name + ".bias", {n});
    return m;
}

Linear fuse(std::initializer_list<Linear> parts)
{
    Linear out;
    std::vector<at::Tensor> ws, bs;
    for (const auto& p : parts) {
        ws.push_back(p.w);
        if (p.b.defined())
            bs.push_back(p.b);
    }
    out.w = at::cat(ws, 0);
    if (!bs.empty())
        out.b = at::cat(bs, 0);
    return out;
}

// [heads, 3, headDim] rows (per-head interleaved q, k, v) -> [3, heads, headDim].
at::Tensor perHeadToBlocks(const at::Tensor& t, int64_t heads, int64_t headDim)
{
    auto sizes = t.sizes().vec();
    std::vector<int64_t> v = {heads, 3, headDim};
    v.insert(v.end(), sizes.begin() + 1, sizes.end());
    std::vector<int64_t> perm = {1, 0, 2};
    for (std::size_t i = 3; i < v.size(); ++i)
        perm.push_back(static_cast<int64_t>(i));
    return t.reshape(v).permute(perm).reshape(sizes).contiguous();
}

void head(WeightStore& ws, const ArchSpec& s, DecoderWeights& w, const std::string& name, bool bias)
{
    if (s.tieEmbeddings) {
        w.head = w.tokenEmbedding;
        return;
    }
    w.head = ws.get(name + ".weight", {s.vocab, s.hidden});
    if (bias)
        w.headBias = ws.get(name + ".bias", {s.vocab});
}

DecoderWeights gpt2Weights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate;
    w.tokenEmbedding = ws.get("transformer.wte.weight", {s.vocab, H});
    w.positionEmbedding = ws.get("transformer.wpe.weight", {s.context, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("transformer.h.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "ln_1", H, true);
        lw.qkv = conv1d(ws, p + "attn.c_attn", H, 3 * H);
        lw.o = conv1d(ws, p + "attn.c_proj", H, H);
        lw.ln2 = norm(ws, p + "ln_2", H, true);
        lw.up = conv1d(ws, p + "mlp.c_fc", H, I);
        lw.down = conv1d(ws, p + "mlp.c_proj", I, H);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "transformer.ln_f", H, true);
    head(ws, s, w, "lm_head", false);
    return w;
}

DecoderWeights bigcodeWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate, hd = s.headDim;
    w.tokenEmbedding = ws.get("transformer.wte.weight", {s.vocab, H});
    w.positionEmbedding = ws.get("transformer.wpe.weight", {s.context, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("transformer.h.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "ln_1", H, true);
        lw.qkv = linear(ws, p + "attn.c_attn", H + 2 * s.kvHeads * hd, H, true);
        if (s.kvHeads != 1) { // multi-head: per-head interleaved [heads, 3, headDim]
            lw.qkv.w = perHeadToBlocks(lw.qkv.w, s.heads, hd);
            lw.qkv.b = perHeadToBlocks(lw.qkv.b, s.heads, hd);
        }
        lw.o = linear(ws, p + "attn.c_proj", H, H, true);
        lw.ln2 = norm(ws, p + "ln_2", H, true);
        lw.up = linear(ws, p + "mlp.c_fc", I, H, true);
        lw.down = linear(ws, p + "mlp.c_proj", H, I, true);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "transformer.ln_f", H, true);
    head(ws, s, w, "lm_head", false);
    return w;
}

DecoderWeights gptNeoWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate;
    w.tokenEmbedding = ws.get("transformer.wte.weight", {s.vocab, H});
    w.positionEmbedding = ws.get("transformer.wpe.weight", {s.context, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("transformer.h.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "ln_1", H, true);
        lw.qkv = fuse({linear(ws, p + "attn.attention.q_proj", H, H, false),
                       linear(ws, p + "attn.attention.k_proj", H, H, false),
                       linear(ws, p + "attn.attention.v_proj", H, H, false)});
        lw.o = linear(ws, p + "attn.attention.out_proj", H, H, true);
        lw.ln2 = norm(ws, p + "ln_2", H, true);
        lw.up = linear(ws, p + "mlp.c_fc", I, H, true);
        lw.down = linear(ws, p + "mlp.c_proj", H, I, true);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "transformer.ln_f", H, true);
    head(ws, s, w, "lm_head", false);
    return w;
}

DecoderWeights codegenWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate;
    w.tokenEmbedding = ws.get("transformer.wte.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("transformer.h.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "ln_1", H, true);
        // qkv_proj rows: mp_num = 4 blocks, each [q | v | k] of H/4 rows (heads split across the blocks).
        const at::Tensor qkv = ws.get(p + "attn.qkv_proj.weight", {3 * H, H});
        const int64_t mp = 4, local = H / mp;
        const at::Tensor parts = qkv.reshape({mp, 3, local, H}).permute({1, 0, 2, 3}).reshape({3, H, H});
        lw.qkv.w = at::cat({parts[0], parts[2], parts[1]}, 0).contiguous(); // q, k, v
        lw.o = linear(ws, p + "attn.out_proj", H, H, false);
        lw.up = linear(ws, p + "mlp.fc_in", I, H, true);
        lw.down = linear(ws, p + "mlp.fc_out", H, I, true);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "transformer.ln_f", H, true);
    head(ws, s, w, "lm_head", true);
    return w;
}

DecoderWeights gptNeoxWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate;
    w.tokenEmbedding = ws.get("gpt_neox.embed_in.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("gpt_neox.layers.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "input_layernorm", H, true);
        lw.ln2 = norm(ws, p + "post_attention_layernorm", H, true);
        lw.qkv = linear(ws, p + "attention.query_key_value", 3 * H, H, s.qkvBias);
        lw.qkv.w = perHeadToBlocks(lw.qkv.w, s.heads, s.headDim);
        if (s.qkvBias)
            lw.qkv.b = perHeadToBlocks(lw.qkv.b, s.heads, s.headDim);
        lw.o = linear(ws, p + "attention.dense", H, H, s.outBias);
        lw.up = linear(ws, p + "mlp.dense_h_to_4h", I, H, true);
        lw.down = linear(ws, p + "mlp.dense_4h_to_h", H, I, true);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "gpt_neox.final_layer_norm", H, true);
    head(ws, s, w, "embed_out", false);
    return w;
}

// llama / qwen2 / starcoder2: model.layers.N.self_attn.{q,k,v,o}_proj; biases as the spec declares.
DecoderWeights llamaStyleWeights(WeightStore& ws, const ArchSpec& s)
{
    struct {
        bool qkv, o, mlp, norm;
    } b{s.qkvBias, s.outBias, s.mlpBias, s.normBias};
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate, q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
    w.tokenEmbedding = ws.get("model.embed_tokens.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("model.layers.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "input_layernorm", H, b.norm);
        lw.ln2 = norm(ws, p + "post_attention_layernorm", H, b.norm);
        lw.qkv = fuse({linear(ws, p + "self_attn.q_proj", q, H, b.qkv), linear(ws, p + "self_attn.k_proj", kv, H, b.qkv),
                       linear(ws, p + "self_attn.v_proj", kv, H, b.qkv)});
        lw.o = linear(ws, p + "self_attn.o_proj", H, q, b.o);
        if (s.gatedMlp) {
            lw.up = fuse({linear(ws, p + "mlp.gate_proj", I, H, b.mlp), linear(ws, p + "mlp.up_proj", I, H, b.mlp)});
            lw.down = linear(ws, p + "mlp.down_proj", H, I, b.mlp);
        } else {
            lw.up = linear(ws, p + "mlp.c_fc", I, H, b.mlp);
            lw.down = linear(ws, p + "mlp.c_proj", H, I, b.mlp);
        }
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "model.norm", H, b.norm);
    head(ws, s, w, "lm_head", false);
    return w;
}

struct Architecture {
    const char* modelType;
    void (*readConfig)(const json&, ArchSpec&, const std::string&);
    DecoderWeights (*loadWeights)(WeightStore&, const ArchSpec&);
};

const Architecture kArchitectures[] = {
    {"gpt2", readGpt2, gpt2Weights},
    {"gpt_neo", readGptNeo, gptNeoWeights},
    {"codegen", readCodegen, codegenWeights},
    {"gpt_bigcode", readBigcode, bigcodeWeights},
    {"gpt_neox", readGptNeox, gptNeoxWeights},
    {"llama", readLlama, llamaStyleWeights},
    {"qwen2", readQwen2, llamaStyleWeights},
    {"starcoder2", readStarcoder2, llamaStyleWeights},
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
        throw ModelError("model_type \"" + type + "\" in " + path + " is not supported (supported: " +
                         supportedArchitectures() + ")");
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
