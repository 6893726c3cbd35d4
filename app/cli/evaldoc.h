// eval's JSON document (docs/cli.md `eval`), built once for `eval` and `export-html` (docs/share.md): the same
// options, the same pipeline (cmd_syntax.cpp).
#pragma once
#include "args.h"

#include "ascviz/model/model.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace ascviz::cli {

struct EvalDocument {
    nlohmann::json json; // exactly what `eval --json` prints for these options
    std::string source;  // the --text-file (or --scores file) messages name
    std::string text;    // the evaluated text
    std::string language;
    std::optional<std::filesystem::path> modelDir; // the resolved --model folder; none with --scores
    LoadOptions load;
    std::optional<std::size_t> promptBytes;
};

// Reads eval's options (everything but --out: --model/--scores, --text-file, --prompt-bytes, --aggregation,
// --aggregation-scope, --language, --categories, the limits, --layers, --experts, --ablate-heads, --ablation),
// finishes `args` (the caller reads its own options first) and evaluates.
EvalDocument evalDocument(Args& args);

} // namespace ascviz::cli
