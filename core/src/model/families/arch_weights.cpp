// The per-architecture weight tables: each Hugging Face model_type's tensor names, mapped to the canonical
// DecoderWeights (Conv1D weights transposed, fused projections reordered into [q; k; v]).
#include "families/arch_weights.h"
#include "families/families.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace ascviz::model {
namespace {

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

// The parts' rows one after another: a view of the mapping when they lie there one after another (a checkpoint's
// gate_proj and up_proj usually do), else a copy.
Linear fuse(const WeightStore& store, std::initializer_list<Linear> parts)
{
    Linear out;
    std::vector<at::Tensor> ws, bs;
    for (const auto& p : parts) {
        ws.push_back(p.w);
        if (p.b.defined())
            bs.push_back(p.b);
    }
    auto join = [&](const std::vector<at::Tensor>& ts) {
        if (auto joined = store.joinMapped(ts))
            return *joined;
        return at::cat(ts, 0);
    };
    out.w = join(ws);
    if (!bs.empty())
        out.b = join(bs);
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
    // A tied head shares the embedding's weight but keeps its own bias (gptj, codegen, phi).
    w.head = s.tieEmbeddings ? w.tokenEmbedding : ws.get(name + ".weight", {s.vocab, s.hidden});
    if (bias)
        w.headBias = ws.get(name + ".bias", {s.vocab});
}

} // namespace

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
        lw.qkv = fuse(ws, {linear(ws, p + "attn.attention.q_proj", H, H, false),
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

// llama / qwen2 / qwen3 / mistral / gemma / starcoder2: model.layers.N.self_attn.{q,k,v,o}_proj; biases and
// q/k norms (self_attn.{q,k}_norm) as the spec declares.
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
        if (s.residual != Residual::PostNorms)
            lw.ln1 = norm(ws, p + "input_layernorm", H, b.norm);
        if (s.residual != Residual::ParallelSharedNorm) // stablelm's parallel residual has none
            lw.ln2 = norm(ws, p + "post_attention_layernorm", H, b.norm);
        lw.qkv =
            fuse(ws, {linear(ws, p + "self_attn.q_proj", q, H, b.qkv), linear(ws, p + "self_attn.k_proj", kv, H, b.qkv),
                      linear(ws, p + "self_attn.v_proj", kv, H, b.qkv)});
        lw.o = linear(ws, p + "self_attn.o_proj", H, q, b.o);
        if (s.qkNorm == QkNorm::Full) {
            lw.qNorm = norm(ws, p + "self_attn.q_norm", q, false);
            lw.kNorm = norm(ws, p + "self_attn.k_norm", kv, false);
        }
        if (s.qkNorm == QkNorm::PerHead) {
            lw.qNorm = norm(ws, p + "self_attn.q_norm", s.headDim, false);
            lw.kNorm = norm(ws, p + "self_attn.k_norm", s.headDim, false);
        }
        if (s.qkNorm == QkNorm::PerHeadAfterRope) { // hunyuan
            lw.qNorm = norm(ws, p + "self_attn.query_layernorm", s.headDim, false);
            lw.kNorm = norm(ws, p + "self_attn.key_layernorm", s.headDim, false);
        }
        if (s.moe.experts > 0 && s.moe.sparse[static_cast<std::size_t>(l)]) {
            // a mixture-of-experts layer: its weights come from the family's table (architectures_moe.cpp)
        } else if (s.gatedMlp && ws.has(p + "mlp.gate_up_proj.weight")) { // glm4: already [gate; up]
            lw.up = linear(ws, p + "mlp.gate_up_proj", 2 * I, H, b.mlp);
            lw.down = linear(ws, p + "mlp.down_proj", H, I, b.mlp);
        } else if (s.gatedMlp) {
            lw.up =
                fuse(ws, {linear(ws, p + "mlp.gate_proj", I, H, b.mlp), linear(ws, p + "mlp.up_proj", I, H, b.mlp)});
            lw.down = linear(ws, p + "mlp.down_proj", H, I, b.mlp);
        } else if (ws.has(p + "mlp.up_proj.weight")) { // arcee, apertus: act(up(x)) without a gate
            lw.up = linear(ws, p + "mlp.up_proj", I, H, b.mlp);
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

DecoderWeights gemma2Weights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // ln2 there is post_attention_layernorm
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("model.layers.{}.", l);
        LayerWeights& lw = w.layers[static_cast<std::size_t>(l)];
        lw.postAttn = lw.ln2;
        lw.ln2 = norm(ws, p + "pre_feedforward_layernorm", s.hidden, false);
        lw.postMlp = norm(ws, p + "post_feedforward_layernorm", s.hidden, false);
    }
    return w;
}

DecoderWeights olmo2Weights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w = llamaStyleWeights(ws, s); // no input_layernorm; ln2 there is post_attention_layernorm
    for (int64_t l = 0; l < s.layers; ++l) {
        LayerWeights& lw = w.layers[static_cast<std::size_t>(l)];
        lw.postAttn = lw.ln2;
        lw.ln2 = Norm{};
        lw.postMlp = norm(ws, at_("model.layers.{}.post_feedforward_layernorm", l), s.hidden, false);
    }
    return w;
}

DecoderWeights gptjWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate;
    w.tokenEmbedding = ws.get("transformer.wte.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("transformer.h.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "ln_1", H, true);
        lw.qkv = fuse(ws, {linear(ws, p + "attn.q_proj", H, H, false), linear(ws, p + "attn.k_proj", H, H, false),
                           linear(ws, p + "attn.v_proj", H, H, false)});
        lw.o = linear(ws, p + "attn.out_proj", H, H, false);
        lw.up = linear(ws, p + "mlp.fc_in", I, H, true);
        lw.down = linear(ws, p + "mlp.fc_out", H, I, true);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "transformer.ln_f", H, true);
    head(ws, s, w, "lm_head", true);
    return w;
}

DecoderWeights phiWeights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate, q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
    w.tokenEmbedding = ws.get("model.embed_tokens.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("model.layers.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "input_layernorm", H, true);
        lw.qkv =
            fuse(ws, {linear(ws, p + "self_attn.q_proj", q, H, true), linear(ws, p + "self_attn.k_proj", kv, H, true),
                      linear(ws, p + "self_attn.v_proj", kv, H, true)});
        lw.o = linear(ws, p + "self_attn.dense", H, q, true);
        if (s.qkNorm == QkNorm::PerHead) {
            lw.qNorm = norm(ws, p + "self_attn.q_layernorm", s.headDim, true);
            lw.kNorm = norm(ws, p + "self_attn.k_layernorm", s.headDim, true);
        }
        lw.up = linear(ws, p + "mlp.fc1", I, H, true);
        lw.down = linear(ws, p + "mlp.fc2", H, I, true);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "model.final_layernorm", H, true);
    head(ws, s, w, "lm_head", true);
    return w;
}

DecoderWeights phi3Weights(WeightStore& ws, const ArchSpec& s)
{
    DecoderWeights w;
    const int64_t H = s.hidden, I = s.intermediate, q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
    w.tokenEmbedding = ws.get("model.embed_tokens.weight", {s.vocab, H});
    for (int64_t l = 0; l < s.layers; ++l) {
        const std::string p = at_("model.layers.{}.", l);
        LayerWeights lw;
        lw.ln1 = norm(ws, p + "input_layernorm", H, false);
        lw.ln2 = norm(ws, p + "post_attention_layernorm", H, false);
        lw.qkv = linear(ws, p + "self_attn.qkv_proj", q + 2 * kv, H, false); // already [q; k; v]
        lw.o = linear(ws, p + "self_attn.o_proj", H, q, false);
        lw.up = linear(ws, p + "mlp.gate_up_proj", 2 * I, H, false); // already [gate; up]
        lw.down = linear(ws, p + "mlp.down_proj", H, I, false);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = norm(ws, "model.norm", H, false);
    head(ws, s, w, "lm_head", false);
    return w;
}

} // namespace ascviz::model
