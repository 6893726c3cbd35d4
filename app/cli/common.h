// Helpers shared by the ascviz-cli commands.
#pragma once
#include "args.h"

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

// Writes JSON to --out FILE (when given) or stdout, followed by a newline.
void writeJson(const nlohmann::json& j, const std::optional<std::string>& outFile);

// JSON of a scored token list, per docs/cli.md: {"id","start","end","ntp"[, "generated"]}.
nlohmann::json tokensJson(const ScoredText& s, bool withGenerated);

// --language, else the language of the file's extension (language registry), else the registry's default
// (cli.md). Throws UsageError for a language that is not registered.
std::string languageOption(Args& args, const std::optional<std::string>& file);

} // namespace ascviz::cli
