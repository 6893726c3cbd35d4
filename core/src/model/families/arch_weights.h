// The per-architecture weight tables (arch_weights.cpp): how each Hugging Face model_type names its tensors,
// mapped into the canonical DecoderWeights (transposing Conv1D weights and reordering fused projections into
// the [q; k; v] layout). architectures.cpp pairs each with its config.json reader.
#pragma once
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "formats/weights.h"

#include <string>

namespace ascviz::model {

DecoderWeights gpt2Weights(WeightStore& ws, const ArchSpec& s);
DecoderWeights bigcodeWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights gptNeoWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights codegenWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights gptNeoxWeights(WeightStore& ws, const ArchSpec& s);
// llama / qwen2 / qwen3 / mistral / gemma / starcoder2 (biases and per-head q/k norms as the spec declares).
DecoderWeights llamaStyleWeights(WeightStore& ws, const ArchSpec& s);
// gemma2 / gemma3_text: the llama names plus the sandwich norms (and gemma3's q/k norms).
DecoderWeights gemma2Weights(WeightStore& ws, const ArchSpec& s);
// phi3: fused qkv_proj ([q; k; v]) and gate_up_proj ([gate; up]).
DecoderWeights phi3Weights(WeightStore& ws, const ArchSpec& s);
// gptj: transformer.h.N.attn.{q,k,v,out}_proj, mlp.fc_in/fc_out, lm_head with bias.
DecoderWeights gptjWeights(WeightStore& ws, const ArchSpec& s);
// phi: model.layers.N.self_attn.{q,k,v}_proj + dense, mlp.fc1/fc2, model.final_layernorm, lm_head with bias.
DecoderWeights phiWeights(WeightStore& ws, const ArchSpec& s);
// olmo2: the llama names without input_layernorm, with post_feedforward_layernorm and full q/k norms.
DecoderWeights olmo2Weights(WeightStore& ws, const ArchSpec& s);
// mixtral (block_sparse_moe.gate, experts.N.w1/w3/w2) and qwen2_moe / qwen3_moe (mlp.gate, mlp.experts.N.
// gate_proj/up_proj/down_proj, qwen2_moe's mlp.shared_expert and shared_expert_gate); dense layers as llama
// (architectures_moe.cpp).
DecoderWeights mixtralWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights qwenMoeWeights(WeightStore& ws, const ArchSpec& s);
// deepseek_v2 / deepseek_v3: self_attn.{q_proj | q_a_proj, q_a_layernorm, q_b_proj}, kv_a_proj_with_mqa,
// kv_a_layernorm, kv_b_proj, o_proj; mlp.gate (+ e_score_correction_bias), mlp.experts, mlp.shared_experts
// (architectures_deepseek.cpp).
DecoderWeights deepseekWeights(WeightStore& ws, const ArchSpec& s);

// The experts of one sparse layer (architectures_moe.cpp): per-expert tensors `<prefix>N.<gate|up|down>.weight` (as
// save_pretrained writes them), or transformers 5's fused `<prefix>gate_up_proj` [E, 2I, H] and `<prefix>down_proj`
// [E, H, I].
void experts(WeightStore& ws, const ArchSpec& s, const std::string& prefix, const char* gate, const char* up,
             const char* down, MoeWeights& m);
// gpt_oss: llama's names with self_attn.sinks, mlp.router (weight, bias) and mlp.experts' biased, interleaved
// gate_up_proj / down_proj, plain or MXFP4 (*_blocks, *_scales; mxfp4.h) (architectures_moe.cpp).
DecoderWeights gptOssWeights(WeightStore& ws, const ArchSpec& s);
// granitemoe / granitemoeshared: block_sparse_moe.router.layer, block_sparse_moe.input_linear [E, 2I, H] and
// output_linear [E, H, I], shared_mlp.input_linear / output_linear (architectures_wave.cpp).
DecoderWeights granitemoeWeights(WeightStore& ws, const ArchSpec& s);
// glm4: the llama names (fused mlp.gate_up_proj) with post_self_attn_layernorm and post_mlp_layernorm.
DecoderWeights glm4Weights(WeightStore& ws, const ArchSpec& s);
// apertus: attention_layernorm / feedforward_layernorm, per-head q/k norms, mlp.up_proj / down_proj and the xIELU
// parameters mlp.act_fn.{alpha_p, alpha_n, beta, eps}.
DecoderWeights apertusWeights(WeightStore& ws, const ArchSpec& s);
// hunyuan_v1_moe: mlp.gate.wg, mlp.experts (per expert or fused), mlp.shared_mlp.{gate,up,down}_proj.
DecoderWeights hunyuanMoeWeights(WeightStore& ws, const ArchSpec& s);
// qwen3_next: linear_attn.{in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log, norm, out_proj} on the gated-DeltaNet
// layers, self_attn.{q_proj ([q; gate] per head), k_proj, v_proj, o_proj, q_norm, k_norm} on the others, dense or
// qwen2_moe-style sparse MLPs (architectures_hybrid.cpp); qwen3_5_text / qwen3_5_moe_text with linear_attn's
// plain in_proj_qkv, in_proj_z, in_proj_b, in_proj_a (ArchSpec::GatedDelta::groupedProjections off).
DecoderWeights qwen3NextWeights(WeightStore& ws, const ArchSpec& s);
// lfm2 / lfm2_moe: operator_norm, ffn_norm; conv.{in_proj, conv, out_proj} (biases where conv_bias) on the short-
// convolution layers, self_attn.{q_proj, k_proj, v_proj, out_proj, q_layernorm, k_layernorm} on the others;
// feed_forward.{w1, w3, w2}, or lfm2_moe's feed_forward.gate, expert_bias and experts (per expert w1/w3/w2 or fused
// gate_up_proj/down_proj); model.embedding_norm as the final norm (architectures_lfm2.cpp).
DecoderWeights lfm2Weights(WeightStore& ws, const ArchSpec& s);

// granitemoehybrid: mamba.{in_proj, conv1d (weight, bias), dt_bias, A_log, D, norm, out_proj} on the Mamba-2 layers,
// self_attn.{q,k,v,o}_proj on the others; block_sparse_moe.{router.layer, input_linear, output_linear} and
// shared_mlp.{input_linear, output_linear}, or shared_mlp alone as the dense MLP (architectures_mamba.cpp).
DecoderWeights graniteMoeHybridWeights(WeightStore& ws, const ArchSpec& s);
// nemotron_h: backbone.embeddings, backbone.layers.N.{norm, mixer.*} (a Mamba-2 mixer's tensors as above; attention's
// q_proj, k_proj, v_proj, o_proj; an MLP's up_proj, down_proj; experts' gate (+ e_score_correction_bias),
// experts.N.{up_proj, down_proj} or fused experts.up_proj / down_proj, shared_experts.{up_proj, down_proj}),
// backbone.norm_f, lm_head (architectures_mamba.cpp).
DecoderWeights nemotronHWeights(WeightStore& ws, const ArchSpec& s);

// The attention-only wave (architectures_wave2.cpp). flex_olmo: olmo2's names with mlp.gate and mlp.experts on every
// layer; ernie4_5_moe: mlp.gate, mlp.moe_statics.e_score_correction_bias (transformers 5: under mlp.gate), mlp.experts,
// mlp.shared_experts on the sparse layers; glm4_moe / dots1: mlp.gate (+ e_score_correction_bias), mlp.experts,
// mlp.shared_experts on the sparse layers; minimax_m2: block_sparse_moe.{gate, e_score_correction_bias,
// experts.N.w1/w3/w2} (transformers 5: mlp.*), full q/k norms.
DecoderWeights flexOlmoWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights ernie45MoeWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights sigmoidMoeWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights minimaxM2Weights(WeightStore& ws, const ArchSpec& s);
// phimoe: llama's names with LayerNorm biases, block_sparse_moe.{gate, experts.N.w1/w3/w2} (transformers 5: mlp.router,
// mlp.experts) on every layer, lm_head.bias where present.
DecoderWeights phimoeWeights(WeightStore& ws, const ArchSpec& s);

} // namespace ascviz::model
