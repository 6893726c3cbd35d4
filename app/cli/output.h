// Torch-free helpers of the ascviz-cli commands: JSON output and the --language option.
#pragma once
#include "args.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace ascviz::cli {

// Writes JSON to --out FILE (when given) or stdout, followed by a newline.
void writeJson(const nlohmann::json& j, const std::optional<std::string>& outFile);

// --language, else the language of the file's extension (language registry), else the registry's default
// (cli.md). Throws UsageError for a language that is not registered.
std::string languageOption(Args& args, const std::optional<std::string>& file);

} // namespace ascviz::cli
