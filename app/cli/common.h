// Helpers shared by the ascviz-cli commands.
#pragma once
#include "args.h"
#include "output.h"

#include "ascviz/model/model.h"

#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

namespace ascviz::cli {

// Reads --model (default: bundled), --device, --dtype, --threads and loads the model (progress on stderr).
std::unique_ptr<LanguageModel> loadModel(Args& args);
// The common model options without loading (for commands that load later or several times).
LoadOptions loadOptions(Args& args);

// JSON of a scored token list, per docs/cli.md: {"id","start","end","ntp"[, "generated"]}.
nlohmann::json tokensJson(const ScoredText& s, bool withGenerated);

} // namespace ascviz::cli
