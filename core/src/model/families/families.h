// The families sub-room's face to the rest of the model room: a checkpoint's config.json read into the decoder's
// ArchSpec and its tensors mapped to the decoder's weights, by model_type (the registry in architectures.cpp).
// Torch-free apart from decoder.h's types; the decoder itself knows no family (docs/adding-an-architecture.md).
#pragma once
#include "decoder/arch.h"
#include "decoder/decoder.h"
#include "formats/weights.h"

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace ascviz::model {

// Reads config.json (already parsed). Throws ModelError for an unknown model_type (listing the supported
// ones) or a missing/inconsistent field.
ArchSpec readArchSpec(const nlohmann::json& config, const std::string& configPath);

// "gpt2, gpt_neo, ..." for messages.
std::string supportedArchitectures();

// Maps the checkpoint's tensors to canonical weights (the model_type registry in architectures.cpp picks the
// weight table of arch_weights.cpp).
DecoderWeights loadDecoderWeights(WeightStore& store, const ArchSpec& spec);

} // namespace ascviz::model
