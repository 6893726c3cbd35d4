// The JSON of an evaluated text in the schema of `ascviz-cli eval` (docs/cli.md): score's fields
// ("model", "tokens", "cross_entropy") plus "nodes" and "summary". Shared by the CLI and the GUI's export.
#pragma once
#include "ascviz/eval/eval.h"

#include <nlohmann/json.hpp>

namespace ascviz {

// Fields beyond the contract: "aggregation", "prompt_bytes", "prompt_tokens", and per token "generated".
nlohmann::json evalResultJson(const EvalResult& r);

// The whole document `ascviz-cli eval` prints (docs/cli.md): evalResultJson plus "language", "syntax_errors",
// "dtype" (null when empty), "summary.categories" and per token "straddles" (method.md §14.4). The CLI, the GUI's
// HTML export and the Python package write it from here, so that they agree.
nlohmann::json evalDocumentJson(const EvalResult& r, const std::string& language, const std::string& dtype);

// The syntax errors of a tree as `parse` and `eval` list them: [{"node", "what", "start", "end", "line", "column"}].
nlohmann::json syntaxProblemsJson(const SyntaxTree& tree);

// The document `ascviz-cli parse` prints (docs/cli.md): {"language", "levels", "syntax_errors", "nodes"} with
// astNodeJson per node. The CLI and the Python package write it from here.
nlohmann::json syntaxTreeJson(const SyntaxTree& tree);

// One AST node as in `ascviz-cli parse`: "id", "type", "named", "start", "end", "parent", "depth", "error"
// (ERROR or MISSING), and "missing".
nlohmann::json astNodeJson(const AstNode& n);

} // namespace ascviz
