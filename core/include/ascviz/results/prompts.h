// The prompts file of `generate --prompts FILE` (docs/cli.md): JSON Lines, one object a line, {"id"?, "prompt"};
// blank lines are skipped. Unlike a corpus (whose bad entries are skipped and reported), a prompts file is one batch
// of generation requests: a malformed line is an InputError naming "file:line", and nothing is generated.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz {

struct PromptEntry {
    std::optional<std::string> id; // the line's "id": a string, or an integer (numericId) as its decimal text
    bool numericId = false;
    std::string prompt;   // UTF-8
    std::size_t line = 0; // 1-based line in the file
};

// The prompts in `text` (the file's bytes; `name` names it in errors): each line a JSON object with a string
// "prompt" and an optional "id" (a string or an integer; ids must be distinct), nothing else but these two keys.
std::vector<PromptEntry> parsePromptsJsonl(std::string_view text, const std::string& name);
// The same for a file ("-" = standard input), read within limits::kMaxInputFileBytes.
std::vector<PromptEntry> readPromptsFile(const std::filesystem::path& path);

} // namespace ascviz
