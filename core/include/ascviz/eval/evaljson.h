// The JSON of an evaluated text in the schema of `ascviz-cli eval` (docs/cli.md): score's fields
// ("model", "tokens", "cross_entropy") plus "nodes" and "summary". Shared by the CLI and the GUI's export.
#pragma once
#include "ascviz/eval/eval.h"

#include <nlohmann/json.hpp>

namespace ascviz {

// Fields beyond the contract: "aggregation", "prompt_bytes", "prompt_tokens", and per token "generated".
nlohmann::json evalResultJson(const EvalResult& r);

// One AST node as in `ascviz-cli parse`: "id", "type", "named", "start", "end", "parent", "depth", "error"
// (ERROR or MISSING), and "missing".
nlohmann::json astNodeJson(const AstNode& n);

} // namespace ascviz
