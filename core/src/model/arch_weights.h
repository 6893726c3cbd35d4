// The per-architecture weight tables (arch_weights.cpp): how each Hugging Face model_type names its tensors,
// mapped into the canonical DecoderWeights (transposing Conv1D weights and reordering fused projections into
// the [q; k; v] layout). architectures.cpp pairs each with its config.json reader.
#pragma once
#include "arch.h"
#include "decoder.h"
#include "weights.h"

namespace ascviz::model {

DecoderWeights gpt2Weights(WeightStore& ws, const ArchSpec& s);
DecoderWeights bigcodeWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights gptNeoWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights codegenWeights(WeightStore& ws, const ArchSpec& s);
DecoderWeights gptNeoxWeights(WeightStore& ws, const ArchSpec& s);
// llama / qwen2 / starcoder2 (biases as the spec declares).
DecoderWeights llamaStyleWeights(WeightStore& ws, const ArchSpec& s);

} // namespace ascviz::model
