// Torch-free helpers of the ascviz-cli commands: JSON output and the --language option.
#pragma once
#include "args.h"

#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/syntax/syntax.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ascviz::cli {

// printf-formatted number for text reports ("%.3f" by default).
std::string fmt(double v, const char* format = "%.3f");

// Writes text to FILE (when given) or stdout; InputError naming the file when it cannot be written.
void writeText(const std::string& text, const std::optional<std::string>& outFile);
// Writes JSON to --out FILE (when given) or stdout, followed by a newline.
void writeJson(const nlohmann::json& j, const std::optional<std::string>& outFile);

// --language, else the language of the file's extension (language registry), else the registry's default
// (cli.md). Throws UsageError for a language that is not registered.
std::string languageOption(Args& args, const std::optional<std::string>& file);
// --language when given (checked, as its registry id), else "" (batch: each snippet's own language).
std::string languageOptionOrEmpty(Args& args);

// Syntax errors of a parsed text, for JSON output: ascviz::syntaxProblemsJson (eval/evaljson.h).
using ascviz::syntaxProblemsJson;
// The JSON documents of core's types are written in core, next to the types (eval/evaljson.h: parse's
// syntaxTreeJson and eval's evalDocumentJson; model/modeljson.h: score's and generate's), so that the CLI, the
// GUI's export and the Python package print the same.
// When the tree has ERROR/MISSING nodes, one warning line on stderr naming them and the languages under
// which the text parses cleanly (never switching language on its own). `what` names the input.
void warnSyntaxProblems(const SyntaxTree& tree, const std::string& what);

// "a,b,,c" -> {"a", "b", "c"} (comma-separated option values; empty items dropped).
std::vector<std::string> splitList(const std::string& s);

} // namespace ascviz::cli
