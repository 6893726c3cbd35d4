// The hyper-parameters of a decoder-only checkpoint, read from config.json into one architecture-neutral
// description (torch-free). The generic decoder (decoder.h) runs any ArchSpec; what differs between
// model types is only this description and the weight-name table (arch_weights.cpp).
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ascviz::model {

// RMSNormPlusOne: Gemma's RMSNorm, x·(1 + w) computed in float32 and then cast (llama casts before the weight).
// RMSNormWeightFp32: OLMo 2's, w · x in float32 and then cast.
enum class NormKind { LayerNorm, RMSNorm, RMSNormPlusOne, RMSNormWeightFp32 };
// Per-head q/k norms before rope: None; PerHead over each head's headDim (qwen3, gemma3); Full over the whole
// q and k projections (olmo2); PerHeadAfterRope over each head's headDim after rope (hunyuan_v1_dense).
enum class QkNorm { None, PerHead, Full, PerHeadAfterRope };
enum class RopeKind { None, NeoX, GptJ }; // NeoX: rotate halves; GptJ: rotate interleaved pairs
// Relu2: relu(x)² (arcee's relu2). XIelu: apertus's xIELU with each layer's learned parameters
// (LayerWeights::xielu): x > 0: a_p·x² + b·x, else (expm1(min(x, eps)) − x)·a_n + b·x, where a_p = softplus(alpha_p)
// and a_n = b + softplus(alpha_n).
enum class Activation { GeluTanh, GeluErf, Silu, Relu, QuickGelu, Relu2, XIelu };
// MultiHead: q, k, v of one fused projection (LayerWeights::qkv). Latent: DeepSeek's multi-head latent attention
// (ArchSpec::Mla, mla.cpp): q through an optional low-rank bottleneck, k and v decompressed from a shared latent,
// rope on a decoupled part of q and k only; the KV cache holds the decompressed keys and values.
enum class AttentionKind { MultiHead, Latent };
// Attention sinks: None; PerHead: a learned logit per head joins the denominator of each query's softmax (its
// column is dropped after the softmax, so a row sums to less than 1; gpt_oss).
enum class AttnSink { None, PerHead };
// A layer's token mixer: Attention (the kinds above), or GatedDeltaNet: gated linear attention by the gated delta rule
// (qwen3_next; gated_delta.cpp, ArchSpec::GatedDelta): a causal depthwise convolution over [q; k; v], then the
// delta rule's recurrent state per value head (chunked parallel form when scoring, recurrent step when decoding on
// the cache), a gated RMSNorm and the output projection. ShortConv: LFM2's gated short convolution (short_conv.cpp,
// ArchSpec::ShortConv): in_proj to [B; C; x], B·x through a causal depthwise convolution of `kernel` taps (with its
// bias where the checkpoint has one, no activation), C times that, out_proj. Mamba2: the Mamba-2 (SSD) mixer
// (granitemoehybrid, nemotron_h; mamba2.cpp, ArchSpec::Mamba2): in_proj into gate, xBC and dt, a causal depthwise
// convolution (with bias) over xBC, the state-space scan (chunked form when scoring, recurrent step when decoding on
// the cache), a gated RMSNorm and the output projection.
// Mlp: no token mixer; the layer's block is its MLP (or mixture of experts) alone, under Residual::SingleMixer
// (nemotron_h's "-" and "E" blocks).
enum class LayerKind { Attention, GatedDeltaNet, ShortConv, Mamba2, Mlp };
enum class Residual {
    Sequential,         // x += attn(ln1(x)); x += mlp(ln2(x))
    ParallelSharedNorm, // x += attn(ln1(x)) + mlp(ln1(x))       (CodeGen, GPT-J)
    ParallelTwoNorms,   // x += attn(ln1(x)) + mlp(ln2(x))       (GPT-NeoX parallel residual)
    Sandwich,           // x += postAttn(attn(ln1(x))); x += postMlp(mlp(ln2(x)))   (Gemma 2 and 3)
    PostNorms,          // x += postAttn(attn(x)); x += postMlp(mlp(x))              (OLMo 2: no input norms)
    SingleMixer, // x += mixer(ln1(x)): each layer one block, its mixer the layer kind's (LayerKind::Mlp: the MLP or
                 // mixture of experts) and no other MLP (nemotron_h)
};

struct ArchSpec {
    std::string modelType;
    int64_t vocab = 0;
    int64_t hidden = 0;
    int64_t layers = 0;
    int64_t heads = 0;
    int64_t kvHeads = 0;
    int64_t headDim = 0;
    int64_t intermediate = 0;
    int64_t context = 0;

    NormKind norm = NormKind::LayerNorm;
    double normEps = 1e-5;
    bool learnedPositions = false;

    RopeKind rope = RopeKind::None;
    int64_t rotaryDim = 0; // leading dims of each head that rotate
    double ropeTheta = 10000.0;
    double ropeLinearFactor = 1.0; // rope_scaling {"type": "linear", "factor": f}: inv_freq / f
    // Frequency-rescaling rope types (inv_freq computed once, cos/sin times an attention factor).
    // LongRope: inv_freq = 1 / (ext · theta^(2i/d)) with ext = short_factor while the forward pass's sequence
    // (past + new) is at most original_max_position_embeddings, long_factor beyond (transformers' longrope).
    // Dynamic (transformers' dynamic NTK): a forward pass over S > ropeOriginalContext (max_position_embeddings)
    // positions rotates with base' = theta · (factor · S / orig − (factor − 1))^(d / (d − 2)); shorter ones as
    // default. Its context is orig · factor (the extension the factor is for).
    enum class RopeScaling { None, Llama3, Yarn, LongRope, Dynamic };
    RopeScaling ropeScaling = RopeScaling::None;
    double ropeFactor = 1.0;
    int64_t ropeOriginalContext = 0;                          // original_max_position_embeddings
    double ropeLowFreqFactor = 1.0, ropeHighFreqFactor = 4.0; // llama3
    double ropeBetaFast = 32.0, ropeBetaSlow = 1.0;           // yarn
    bool ropeTruncate = true;                                 // yarn: floor/ceil the correction range
    double ropeAttentionFactor = 1.0;                         // yarn, longrope: multiplies cos and sin
    std::vector<double> ropeShortFactor, ropeLongFactor;      // longrope: rotaryDim / 2 each
    double ropeLocalTheta = 0.0; // > 0: local (windowed) layers rotate with this base, unscaled (gemma3)

    Activation act = Activation::GeluTanh;
    bool gatedMlp = false; // SwiGLU-style act(gate(x)) * up(x)
    Residual residual = Residual::Sequential;

    std::vector<double> attnScale; // per layer multiplier of q.k
    std::vector<int64_t> window;   // per layer: 0 = global causal, w = key within the last w positions
    bool attnFp32 = false;         // upcast q and k to float32 before q.k (GPT-Neo, CodeGen do)
    bool ropeFp32 = false;         // rotate q and k in float32 with float32 tables, then cast back (ernie4_5)
    double qkvClip = 0.0;          // > 0: q, k (after QkNorm::Full) and v clamped to ±qkvClip (olmoe clip_qkv)
    QkNorm qkNorm = QkNorm::None;
    AttnSink attnSink = AttnSink::None;
    double attnSoftcap = 0.0;  // > 0: scores = cap · tanh(scaled q.k / cap) before the mask (gemma2)
    double finalSoftcap = 0.0; // > 0: logits = cap · tanh(logits / cap) (gemma2, gemma3)
    // Embeddings times embedScale (gemma: √hidden; granite: embedding_multiplier). embedScaleInDtype: the
    // factor is first rounded to the model dtype (gemma's normalizer tensor), else a double scalar.
    double embedScale = 1.0;
    bool embedScaleInDtype = false;
    double residualScale = 1.0; // Residual::Sequential: x += attn · r; x += mlp · r (granite residual_multiplier)
    double logitsDivisor = 1.0; // logits / d (granite logits_scaling)
    double logitsScale = 1.0;   // logits · s (cohere2 logit_scale), in the compute dtype
    // Position-dependent query scale (ministral3's llama_4_scaling_beta): after rope, each query at position p is
    // multiplied by 1 + queryScaleBeta · log(1 + floor(p / queryScaleLength)) (float32, cast to the compute dtype);
    // queryScaleBeta 0: none.
    double queryScaleBeta = 0.0;
    int64_t queryScaleLength = 1;
    std::vector<bool> ropeOff;  // per layer (empty: none): layers without rope (smollm3 no_rope_layers = 0)
    bool tieEmbeddings = false; // declared by config.json (tie_word_embeddings), never guessed
    // Bias flags of the llama-style layouts (llama: attention_bias/mlp_bias; qwen2: q/k/v only;
    // starcoder2: use_bias everywhere, LayerNorm with bias).
    bool qkvBias = false, outBias = false, mlpBias = false, normBias = false;

    // AttentionKind::Latent (deepseek_v2/v3): headDim = nopeDim + ropeDim (q and k), rotaryDim = ropeDim (its rope
    // part, the last ropeDim of each head), kvHeads = heads; values have vDim per head. qLoraRank 0: plain q_proj.
    AttentionKind attention = AttentionKind::MultiHead;
    struct Mla {
        int64_t qLoraRank = 0, kvLoraRank = 0, nopeDim = 0, ropeDim = 0, vDim = 0;
    } mla;
    // Each head's width of the attention output (the output projection's input): vDim under latent attention.
    int64_t valueDim() const { return attention == AttentionKind::Latent ? mla.vDim : headDim; }

    // Mixture of experts (moe.h): experts == 0 is a dense model. On the layers marked sparse the MLP is a router
    // (softmax over `experts` logits in float32, the top `topK`, renormalised to sum 1 when normTopK) and the
    // weighted sum of the chosen experts' gated MLPs (expertIntermediate each), plus a shared expert
    // (sharedIntermediate > 0) scaled by sigmoid(sharedGate · x) when sharedGate (qwen2_moe). Dense layers keep
    // the ordinary MLP of `intermediate`.
    //
    // Routing (moe.cpp): Softmax as above. SoftmaxGroupLimited (deepseek_v2 group_limited_greedy): the experts in
    // `groups` equal groups, only the topkGroup groups of the highest maximum probability compete (the others'
    // probabilities count 0). SigmoidGrouped (deepseek_v3): sigmoid scores; the choice ranks scores plus the
    // correction bias (MoeWeights::scoreBias) within the topkGroup groups of the highest top-2 sums; the weights are
    // the chosen experts' plain scores, renormalised (+1e-20) when normTopK. Then every weight × routedScale.
    // routerFp32: the router logits in float32 (deepseek), else in the compute dtype. sortedTopK false: the top-k
    // in torch.topk(sorted=False)'s order, as the deepseek routers return it.
    // TopKThenSoftmax (gpt_oss): the top k of the router logits (router bias included), then a softmax over
    // those k in the compute dtype. ExpertMlp::ClampedSwiGlu (gpt_oss): gate clamped to at most swigluLimit, up to
    // ±swigluLimit, (up + 1) · gate · sigmoid(swigluAlpha · gate), with the experts' biases. softmaxFp32: that
    // softmax in float32 (granitemoe: the router logits cast to float32 before the top k).
    // Sigmoid (lfm2_moe): sigmoid scores of the router logits, both in the compute dtype; the choice ranks the scores
    // plus MoeWeights::scoreBias (float32) where defined (use_expert_bias), else the scores; the weights are the chosen
    // experts' scores, renormalised (+1e-6) when normTopK, × routedScale, in the compute dtype.
    // SoftmaxBiased (ernie4_5_moe): SigmoidGrouped's choice (scores plus the correction bias, sorted top k) over
    // softmax scores instead of sigmoid ones, without groups. The renormalisation of both divides by
    // max(sum + normEps, normMin): deepseek_v3 / glm4_moe / dots1 add 1e-20, minimax_m2 nothing (normEps 0),
    // ernie4_5_moe clamps at moe_norm_min (normEps 0, normMin 1e-12).
    // SparseMixer (phimoe's sparsemixer in eval mode, always two experts): the first is the router logits' argmax,
    // weighted by its softmax over the logits within a relative distance 2·jitterEps of that maximum
    // ((max − l) / max(|l|, max) ≤ 2·jitterEps, the others −∞); the second likewise among the logits without the
    // first. Logits and weights in the compute dtype.
    struct Moe {
        enum class Routing {
            Softmax,
            SoftmaxGroupLimited,
            SigmoidGrouped,
            TopKThenSoftmax,
            Sigmoid,
            SoftmaxBiased,
            SparseMixer
        };
        double normEps = 1e-20, normMin = 0.0;
        double jitterEps = 0.01;
        // Plain (nemotron_h): down(act(up(x))) without a gate, for the experts (gateUp holds the up rows only) and the
        // shared expert (sharedUp likewise).
        enum class ExpertMlp { Gated, ClampedSwiGlu, Plain };
        ExpertMlp expertMlp = ExpertMlp::Gated;
        double swigluAlpha = 1.702, swigluLimit = 7.0;
        int64_t experts = 0, topK = 0, expertIntermediate = 0, sharedIntermediate = 0;
        bool normTopK = false, sharedGate = false;
        bool routerWeightsInDtype = false; // qwen2/3_moe cast the top-k weights to the compute dtype; mixtral not
        std::vector<bool> sparse;          // per layer
        Routing routing = Routing::Softmax;
        int64_t groups = 1, topkGroup = 1;
        double routedScale = 1.0;
        bool routerFp32 = false, sortedTopK = true, softmaxFp32 = false;
        bool expertBias = false; // Sigmoid: the checkpoint's expert bias takes part in the choice (use_expert_bias)
    } moe;

    // Per layer (empty: every layer attention). The gated-DeltaNet layers' sizes are `delta`'s, the short
    // convolutions' `shortConv`'s.
    std::vector<LayerKind> layerKinds;
    LayerKind layerKind(int64_t layer) const
    {
        return layerKinds.empty() ? LayerKind::Attention : layerKinds[static_cast<std::size_t>(layer)];
    }
    bool hasRecurrentLayers() const
    {
        for (const LayerKind k : layerKinds)
            if (k == LayerKind::GatedDeltaNet || k == LayerKind::Mamba2 || k == LayerKind::ShortConv)
                return true;
        return false;
    }
    // LayerKind::GatedDeltaNet (qwen3_next's linear_attention): keyHeads × keyDim queries and keys, valueHeads ×
    // valueDim values (valueHeads a multiple of keyHeads: each key head serves valueHeads / keyHeads value heads), a
    // causal depthwise convolution of convKernel taps (no bias) then the activation, chunks of `chunk` positions in
    // the parallel form. The gated RMSNorm after the delta rule has epsilon normEps.
    struct GatedDelta {
        int64_t keyHeads = 0, valueHeads = 0, keyDim = 0, valueDim = 0, convKernel = 0, chunk = 64;
        bool groupedProjections = false; // qwen3_next's in_proj_qkvz / in_proj_ba (per key head), not qwen3_5's plain
        int64_t convChannels() const { return 2 * keyHeads * keyDim + valueHeads * valueDim; }
    } delta;
    // LayerKind::ShortConv (lfm2's conv layers): one causal depthwise convolution of `kernel` taps (conv_L_cache) over
    // the hidden channels; `bias`: in_proj, the convolution and out_proj have biases (conv_bias).
    struct ShortConv {
        int64_t kernel = 0;
        bool bias = false;
    } shortConv;
    // LayerKind::Mamba2: heads × headDim channels (the intermediate size), `groups` groups of B and C with stateSize
    // each (each group serves heads / groups heads), a causal depthwise convolution of convKernel taps (bias when
    // convBias) and the activation `act` over [x; B; C], chunks of `chunk` positions in the scan, dt clamped to
    // [dtMin, dtMax] there (time_step_limit), and the gated RMSNorm (epsilon normEps) over normGroups equal groups of
    // the intermediate channels. projBias: in_proj and out_proj have biases.
    struct Mamba2 {
        int64_t heads = 0, headDim = 0, groups = 1, stateSize = 0, convKernel = 4, chunk = 256, normGroups = 1;
        bool convBias = true, projBias = false;
        double dtMin = 0.0, dtMax = std::numeric_limits<double>::infinity(), normEps = 1e-6;
        Activation act = Activation::Silu;
        int64_t intermediate() const { return heads * headDim; }
        int64_t convChannels() const { return intermediate() + 2 * groups * stateSize; }
    } mamba;
    // Attention output gate (qwen3_next): q_proj emits each head's query and a gate; the heads' outputs are multiplied
    // by sigmoid(gate) before the output projection (the fused qkv then holds [q; k; v; gate] rows).
    bool attnOutputGate = false;

    std::vector<int32_t> eosIds; // config.json eos_token_id (int or list)
    int32_t bosId = -1;
};

} // namespace ascviz::model
