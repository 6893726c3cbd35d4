// The JSON of scored texts and models (docs/cli.md `score`, `generate`, `model info`), next to their types: the
// CLI prints it, Python returns it, so that both agree. Torch-free.
#pragma once
#include "ascviz/base/scored.h"
#include "ascviz/model/model.h"

#include <nlohmann/json.hpp>

namespace ascviz {

// A scored text's tokens: [{"id", "start", "end", "ntp" (null when not scored)[, "generated"]}].
nlohmann::json scoredTokensJson(const ScoredText& s, bool withGenerated);

// `score`'s document: {"model", "dtype", "device", "tokens", "cross_entropy" (null when not finite)}.
nlohmann::json scoreJson(const ScoredText& s, const ModelInfo& info);

// `generate`'s document: score's fields plus "text", "prompt_tokens", "prompt_bytes", "stop", and per token
// "generated".
nlohmann::json generationJson(const ScoredText& s, const ModelInfo& info);

// A loaded model: "name", "dir", "architecture", "device", "dtype", "parameters", "context_length", "vocab_size",
// "layers", "hidden", "threads", "fingerprint".
nlohmann::json modelInfoJson(const ModelInfo& info);

} // namespace ascviz
