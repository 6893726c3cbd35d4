// One generic decoder-only transformer (torch). Every supported architecture is an ArchSpec plus a
// weight-name table (arch_weights.cpp) that fills the canonical weights below; the math lives here once.
// Immutable after loading; forward() is const and may run on several threads at once (each with its own
// KvCache).
#pragma once
#include "decoder/arch.h"
#include "formats/weights.h"

#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace ascviz::model {

struct Linear {
    at::Tensor w; // [out, in]
    at::Tensor b; // [out] or undefined
    at::Tensor operator()(const at::Tensor& x) const;
};

struct Norm {
    at::Tensor w;
    at::Tensor b; // undefined for RMSNorm / LayerNorm without bias
};

// A mixture-of-experts layer (ArchSpec::moe; moe.cpp); undefined (router undefined) on dense layers.
struct MoeWeights {
    at::Tensor router;     // [experts, hidden]
    at::Tensor routerBias; // [experts] or undefined (gpt_oss)
    at::Tensor gateUp;     // [experts, 2 I, hidden]: each expert's [gate; up] rows
    at::Tensor gateUpBias; // [experts, 2 I] or undefined (gpt_oss)
    at::Tensor down;       // [experts, hidden, I]
    at::Tensor downBias;   // [experts, hidden] or undefined (gpt_oss)
    Linear sharedUp;       // the shared expert's [gate; up] ([2 S, hidden]), or undefined
    Linear sharedDown;     // [hidden, S]
    Linear sharedGate;     // [1, hidden]: sigmoid(sharedGate · x) scales the shared expert, or undefined
    at::Tensor scoreBias;  // [experts] float32: deepseek_v3's e_score_correction_bias (choice only), or undefined
    bool defined() const { return router.defined(); }
};

// Multi-head latent attention (AttentionKind::Latent, mla.cpp); q = qB(rms(qA(x))) or qB(x) where qA is undefined
// (q_lora_rank null); [latent; k_rope] = kvA(x); [k_nope; v] per head = kvB(rms(latent)).
struct MlaWeights {
    Linear qA;    // [qLoraRank, hidden] or undefined
    Norm qANorm;  // [qLoraRank] (RMSNorm, eps 1e-6)
    Linear qB;    // [heads·(nope + rope), qLoraRank | hidden]
    Linear kvA;   // [kvLoraRank + rope, hidden]
    Norm kvANorm; // [kvLoraRank] (RMSNorm, eps 1e-6)
    Linear kvB;   // [heads·(nope + v), kvLoraRank]
};

// A gated-DeltaNet layer (LayerKind::GatedDeltaNet, gated_delta.cpp), its projections reordered at load so that
// inProj's rows are [q (keyHeads·keyDim); k (keyHeads·keyDim); v (valueHeads·valueDim); z (valueHeads·valueDim);
// b (valueHeads); a (valueHeads)], heads in order.
struct GatedDeltaWeights {
    Linear inProj;     // [2 K + 2 V + 2 valueHeads, hidden]
    at::Tensor conv;   // [convChannels, 1, convKernel]: the depthwise convolution over [q; k; v]
    at::Tensor aLog;   // [valueHeads]
    at::Tensor dtBias; // [valueHeads]
    Norm norm;         // [valueDim]: the gated RMSNorm, w · x (plain weight)
    Linear out;        // [hidden, valueHeads·valueDim]
    bool defined() const { return inProj.w.defined(); }
};

// A gated short convolution (LayerKind::ShortConv, short_conv.cpp): inProj's rows [B; C; x] (hidden each).
struct ShortConvWeights {
    Linear inProj;       // [3 hidden, hidden] (bias where ArchSpec::ShortConv::bias)
    at::Tensor conv;     // [hidden, 1, kernel]: the depthwise convolution over B·x
    at::Tensor convBias; // [hidden] or undefined
    Linear out;          // [hidden, hidden]
    bool defined() const { return inProj.w.defined(); }
};

// A Mamba-2 layer (LayerKind::Mamba2, mamba2.cpp): inProj's rows [gate (I); x (I); B (groups·n); C (groups·n);
// dt (heads)] as the checkpoint stores them.
struct Mamba2Weights {
    Linear inProj;              // [2 I + 2 groups·n + heads, hidden]
    at::Tensor conv;            // [convChannels, 1, convKernel]: the depthwise convolution over [x; B; C]
    at::Tensor convBias;        // [convChannels] or undefined
    at::Tensor aLog, dtBias, d; // [heads] each
    Norm norm;                  // [I]: the gated RMSNorm's weight
    Linear out;                 // [hidden, I]
    bool defined() const { return inProj.w.defined(); }
};

struct LayerWeights {
    Norm ln1, ln2; // ln2 unused for ParallelSharedNorm
    Linear qkv;    // fused [q (heads*headDim); k (kvHeads*headDim); v (kvHeads*headDim)] rows
    Linear o;
    Linear up; // fc_in, or fused [gate; up] for gated MLPs
    Linear down;
    Norm postAttn, postMlp; // Residual::Sandwich only
    Norm qNorm, kNorm;      // QkNorm::PerHead ([headDim]) or Full ([heads·headDim], [kvHeads·headDim])
    MoeWeights moe;         // replaces up/down where defined
    MlaWeights mla;         // AttentionKind::Latent: replaces qkv
    at::Tensor sinks;       // [heads]: AttnSink::PerHead's logits
    struct {
        at::Tensor alphaP, alphaN, beta, eps; // Activation::XIelu's parameters (raw, as stored), else undefined
    } xielu;
    GatedDeltaWeights delta; // LayerKind::GatedDeltaNet: replaces the attention's weights
    ShortConvWeights conv;   // LayerKind::ShortConv: replaces the attention's weights
    Mamba2Weights mamba;     // LayerKind::Mamba2: replaces the attention's weights
};

struct DecoderWeights {
    at::Tensor tokenEmbedding;    // [vocab, hidden]
    at::Tensor positionEmbedding; // [context, hidden] or undefined
    std::vector<LayerWeights> layers;
    Norm finalNorm;
    at::Tensor head;     // [vocab, hidden]; the same tensor as tokenEmbedding when tied
    at::Tensor headBias; // undefined when absent
};

// Keys and values of every layer for a batch, preallocated to a capacity: [batch, kvHeads, capacity, headDim]
// (values: valueDim; latent attention keeps its keys and values decompressed). Gated-DeltaNet and Mamba-2 layers
// keep no keys and values (undefined there) but their convolution's last convKernel inputs `conv` [batch,
// convChannels, convKernel] and their recurrent state `state` (float32): the delta rule's [batch, valueHeads,
// keyDim, valueDim], the SSM's [batch, heads, headDim, stateSize]; both undefined on attention layers.
// Short-convolution layers keep only `conv`, the last `kernel` inputs of their convolution [batch, hidden, kernel]
// (`state` undefined).
struct KvCache {
    std::vector<at::Tensor> k, v;
    std::vector<at::Tensor> conv, state;
    int64_t length = 0;
    int64_t capacity = 0;
};

// Head ablation (method.md §14.1), applied to the input of every layer's output projection in every forward pass:
// per layer, `keep` [heads·headDim] (1, or 0 on an ablated head's slice) and `fill` (0, or the value that replaces
// an ablated slice: its mean for mean ablation), both in the compute dtype; undefined where no head of the layer is
// ablated.
struct HeadIntervention {
    std::vector<at::Tensor> keep, fill;
    // Expert ablation (method.md §14.1): per layer a bool [experts] mask of the experts the router may not choose
    // (their router logits become −∞ before the softmax), or undefined.
    std::vector<at::Tensor> blockedExperts;
};

// The heads' outputs, the input of the output projection [B, T, heads·headDim] per layer (compute dtype) before any
// ablation: an intermediate private to the model room (the mean of mean ablation), never offered to public
// observers.
inline constexpr std::string_view kHeadOutputs = "head_outputs";

// Receives the named intermediates of one forward pass (the names of ascviz/model/observer.h) as tensors on the
// device with the batch first: [B, T, hidden] in the compute dtype for embeddings, hidden and final_norm,
// [B, heads, T, S] float32 for attention (S = past + T keys). Decoder::hidden() asks wants() once per name and
// layer per pass, and computes nothing extra for what is not wanted. Logits are not part of hidden().
class ForwardObserver {
public:
    virtual ~ForwardObserver() = default;
    virtual bool wants(std::string_view name, int layer) const = 0;
    virtual void observe(std::string_view name, int layer, const at::Tensor& value) = 0;
};

class Decoder {
public:
    Decoder(ArchSpec spec, DecoderWeights weights, at::Device device, at::ScalarType dtype);

    const ArchSpec& spec() const { return m_spec; }
    at::Device device() const { return m_device; }
    at::ScalarType dtype() const { return m_dtype; }
    int64_t parameterCount() const;

    KvCache makeCache(int64_t batch, int64_t capacity) const;

    // ids [batch, T] (int64, on device). `keyValid` [batch, past + T] bool marks real (non-padding) keys, or is
    // undefined when every key is real. With a cache, the new keys/values are appended at cache->length
    // (which then grows by T); without one, past must be 0. Returns the final normed hidden states
    // [batch, T, hidden] in the compute dtype. `observer` (may be null) receives the intermediates it wants.
    at::Tensor hidden(const at::Tensor& ids, const at::Tensor& keyValid, KvCache* cache,
                      ForwardObserver* observer = nullptr) const;
    // Packed (variable-length) forward of several whole sequences without padding: `ids` [N] (int64, on device)
    // holds the sequences one after another, `lengths` their sizes (summing to N); each starts at position 0.
    // Token-wise work (embeddings, norms, projections, MLP) runs on all N rows at once; attention runs per
    // sequence (causal, and windowed on local layers). Returns the final normed hidden states [N, hidden].
    at::Tensor hiddenPacked(const at::Tensor& ids, const std::vector<int64_t>& lengths) const;
    // Float32 logits [..., vocab] of hidden states.
    at::Tensor logits(const at::Tensor& hidden) const;
    // Float32 logits [..., cols] of the vocabulary columns [col, col + cols): the fused head's one product
    // (fused_head.h, HeadColumnLogits).
    at::Tensor logitsColumns(const at::Tensor& hidden, int64_t col, int64_t cols) const;
    // The layer lens (lens.cpp): float32 logits of a residual stream [..., hidden] through the final norm and the
    // head; whether the checkpoint has a final norm and a head to apply to every layer.
    at::Tensor lensLogits(const at::Tensor& residual) const;
    bool hasLensHead() const;
    // Head ablation (ablation.cpp): every later forward pass of this decoder applies it. Set before the decoder is
    // shared (a copy of a loaded decoder shares its weights).
    void setHeadIntervention(HeadIntervention h) { m_ablation = std::move(h); }
    // Whether block `layer` is a mixture of experts (ablation.cpp).
    bool moeLayer(int layer) const;

private:
    at::Tensor norm(const Norm& n, const at::Tensor& x) const;
    // `lw`: the layer whose learned activation parameters apply (Activation::XIelu).
    at::Tensor activation(const at::Tensor& x, const LayerWeights* lw = nullptr) const
    {
        return activationOf(m_spec.act, x, lw);
    }
    at::Tensor activationOf(Activation act, const at::Tensor& x, const LayerWeights* lw = nullptr) const;
    at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) const;
    // `probsTo` (may be null) receives the layer's attention probabilities (explicit path), `headsTo` (may be null)
    // the heads' outputs before any ablation (kHeadOutputs).
    at::Tensor attention(int layer, const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin,
                         const at::Tensor& mask, const at::Tensor& localMask, KvCache* cache, int64_t past,
                         ForwardObserver* probsTo, ForwardObserver* headsTo = nullptr) const;
    // The layer's MLP, or its mixture of experts (moe.cpp), whose routing goes to `expertsTo` (may be null).
    at::Tensor mlp(const LayerWeights& lw, const at::Tensor& x, int layer = -1,
                   ForwardObserver* expertsTo = nullptr) const;
    at::Tensor moe(const MoeWeights& m, const at::Tensor& x, int layer, ForwardObserver* expertsTo) const;
    // The router's top-k weights and expert ids [N, K] of `flat` [N, H] at `layer` (moe.cpp), with the layer's
    // blocked experts (expert ablation) masked.
    std::tuple<at::Tensor, at::Tensor> route(const MoeWeights& m, const at::Tensor& flat, int layer) const;
    // The attention probabilities of float32 scores [B, kvHeads, rep, T, S] (masked) with the layer's sinks in
    // each softmax's denominator (AttnSink::PerHead; sinks.cpp), the sink's own column dropped.
    at::Tensor sinkSoftmax(int layer, const at::Tensor& scores) const;
    // Rotary tables cos/sin [N, rotaryDim] in the compute dtype for positions [N] (undefined without rope), of a
    // forward pass over `seqLen` positions (longrope picks its factors by it); local: the local layers' tables.
    struct RopeTables {
        at::Tensor cos, sin, cosLocal, sinLocal;
        std::pair<at::Tensor, at::Tensor> of(const ArchSpec& s, int64_t layer) const;
    };
    RopeTables ropeTables(const at::Tensor& positions, int64_t seqLen) const;
    // q, k, v [B, heads|kvHeads, T, headDim] of the fused projection `qkv` [B, T, (nh + 2 nkv) hd]: q/k norms,
    // then rope.
    std::tuple<at::Tensor, at::Tensor, at::Tensor> heads(const LayerWeights& lw, const at::Tensor& qkv,
                                                         const at::Tensor& cos, const at::Tensor& sin) const;
    // The same of multi-head latent attention (mla.cpp) from the attention's input x [B, T, hidden]: q, k
    // [B, heads, T, nope + rope] (rope on the last rope dims), v [B, heads, T, vDim].
    std::tuple<at::Tensor, at::Tensor, at::Tensor> latentHeads(const LayerWeights& lw, const at::Tensor& x,
                                                               const at::Tensor& cos, const at::Tensor& sin) const;
    at::Tensor embed(const at::Tensor& ids, const at::Tensor& positions) const;
    // q [B, heads, T, hd] of positions past .. past + T - 1 times ArchSpec::queryScaleBeta's scale (query_scale.cpp);
    // q itself without one.
    at::Tensor scaleQueries(const at::Tensor& q, int64_t past) const;
    // The attention's input: ln1(x), or x itself where the layout has no input norm (Residual::PostNorms).
    at::Tensor inputNorm(const LayerWeights& lw, const at::Tensor& x) const;
    // Scaled-dot-product attention of q [B, heads, T, hd] over k, v [B, kvHeads, S, hd] with `mask`
    // [B|1, 1, T, S] (undefined: `causal` says whether query i sees keys 0..i of S == T, else all keys).
    at::Tensor attend(int layer, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                      bool causal, ForwardObserver* probsTo) const;
    // A gated-DeltaNet layer's output (its out projection included) of the normed input x [B, T, hidden]
    // (gated_delta.cpp): the chunked parallel form, from the cache's states where cache->length > 0 (the recurrent
    // step instead for one position on a cache). `valid` [B, T] bool (or undefined) zeroes padding inputs as
    // transformers does.
    at::Tensor gatedDelta(int layer, const at::Tensor& x, const at::Tensor& valid, KvCache* cache, int64_t past) const;
    // A gated short convolution's output (out_proj included) of the normed input x [B, T, hidden] (short_conv.cpp),
    // its convolution continuing from the cache's last inputs where cache->length > 0; `valid` as gatedDelta's.
    at::Tensor shortConv(int layer, const at::Tensor& x, const at::Tensor& valid, KvCache* cache, int64_t past) const;
    // A Mamba-2 layer's output (its out projection included) of the normed input x [B, T, hidden] (mamba2.cpp), in
    // gatedDelta's manner: the chunked scan, from the cache's states where cache->length > 0, the recurrent step
    // for one position on a cache; `valid` zeroes padding as transformers does.
    at::Tensor mamba2(int layer, const at::Tensor& x, const at::Tensor& valid, KvCache* cache, int64_t past) const;
    // The token mixer of a layer that is not attention (gatedDelta, shortConv or mamba2 by its LayerKind).
    at::Tensor recurrentMixer(int layer, const at::Tensor& x, const at::Tensor& valid, KvCache* cache,
                              int64_t past) const;
    // The causal depthwise convolution (weight w [C, 1, K], bias b [C] or undefined) of x [B, C, T], then the
    // activation `act` (none: nullopt), as transformers' causal_conv1d_fn / causal_conv1d_update (gated_delta.cpp;
    // the gated DeltaNet's, the short convolution's and Mamba-2's): with a cache, continued from the layer's last K
    // inputs (cache->conv), which it then holds.
    at::Tensor causalConv(int layer, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                          std::optional<Activation> act, KvCache* cache, int64_t past) const;
    // One layer's residual update from its attention output `a` and the normed input `h` of x.
    at::Tensor residual(const LayerWeights& lw, const at::Tensor& x, const at::Tensor& h, const at::Tensor& a,
                        int layer = -1, ForwardObserver* expertsTo = nullptr) const;

    // The output projection's input `heads` [..., heads·headDim] of `layer` under the head ablation (ablation.cpp).
    at::Tensor ablateHeads(int layer, const at::Tensor& heads) const;

    ArchSpec m_spec;
    DecoderWeights m_w;
    HeadIntervention m_ablation;
    at::Device m_device;
    at::ScalarType m_dtype;
    at::Tensor scaledInvFreq(const at::Tensor& invFreq, const at::Tensor& exponents) const;
    at::Tensor m_invFreq;       // [rotaryDim / 2] float32
    at::Tensor m_invFreqLong;   // longrope's long factors, else undefined
    at::Tensor m_ropeExponents; // arange(0, rotaryDim, 2) / rotaryDim, float32
    // The inverse frequencies a forward pass over `seqLen` positions rotates with.
    at::Tensor invFreqFor(int64_t seqLen) const;
    at::Tensor m_invFreqLocal; // ropeLocalTheta's, else undefined

public:
    // Whether a forward pass over `seqLen` positions rotates differently from one over seqLen - 1 (longrope
    // crossing original_max_position_embeddings): generation then recomputes its KV cache, as transformers
    // recomputes every position with the long factors.
    bool ropeChangesAt(int64_t seqLen) const;
    // Whether a forward pass over `seqLen` positions rotates with longrope's long factors (batches of padded rows
    // do not mix the two, so that every row rotates as it would alone).
    bool longRope(int64_t seqLen) const;
    // Which rotation a forward pass over `seqLen` positions uses: equal values rotate alike (0: the default
    // frequencies; longrope: 1 beyond the original context; dynamic: the length itself beyond it). Batches of
    // padded rows hold one value only.
    int64_t ropeVariant(int64_t seqLen) const;
};

} // namespace ascviz::model
