#include "ascviz/results/prompts.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/utf8.h"

#include <nlohmann/json.hpp>

#include <set>

namespace ascviz {

std::vector<PromptEntry> parsePromptsJsonl(std::string_view text, const std::string& name)
{
    if (const auto bad = findInvalidUtf8(text))
        throw InputError(name + " is not valid UTF-8 (first invalid byte at offset " + std::to_string(*bad) + ")",
                         ErrorContext{name, *bad, {}});
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    std::vector<PromptEntry> out;
    std::set<std::string> ids;
    std::size_t line = 0, pos = 0;
    while (pos <= text.size()) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        std::string_view l = text.substr(pos, end - pos);
        pos = end + 1;
        ++line;
        if (!l.empty() && l.back() == '\r')
            l.remove_suffix(1);
        if (l.find_first_not_of(" \t") == std::string_view::npos) {
            if (end == text.size())
                break;
            continue;
        }
        const std::string where = name + ":" + std::to_string(line);
        const auto fail = [&](const std::string& what) {
            return InputError(where + ": " + what, ErrorContext{name, {}, line});
        };
        const nlohmann::json j = nlohmann::json::parse(l.begin(), l.end(), nullptr, false);
        if (j.is_discarded() || !j.is_object())
            throw fail("not a JSON object (a line is {\"id\": ..., \"prompt\": \"...\"})");
        PromptEntry e;
        e.line = line;
        for (const auto& [key, value] : j.items()) {
            if (key == "prompt") {
                if (!value.is_string())
                    throw fail("\"prompt\" is not a string");
                e.prompt = value.get<std::string>();
            } else if (key == "id") {
                if (value.is_string()) {
                    e.id = value.get<std::string>();
                } else if (value.is_number_integer()) {
                    e.id = value.dump();
                    e.numericId = true;
                } else if (!value.is_null()) {
                    throw fail("\"id\" is neither a string nor an integer");
                }
            } else {
                throw fail("unknown key \"" + key + "\" (a line has \"prompt\" and an optional \"id\")");
            }
        }
        if (!j.contains("prompt"))
            throw fail("no \"prompt\"");
        if (e.id && !ids.insert(*e.id).second)
            throw fail("the id " + *e.id + " repeats an earlier line's");
        out.push_back(std::move(e));
        if (end == text.size())
            break;
    }
    if (out.empty())
        throw InputError(name + " has no prompts", ErrorContext{name, {}, {}});
    return out;
}

std::vector<PromptEntry> readPromptsFile(const std::filesystem::path& path)
{
    const std::string name = path == "-" ? std::string("standard input") : path.string();
    return parsePromptsJsonl(readFileBounded(path, limits::kMaxInputFileBytes, "the prompts file"), name);
}

} // namespace ascviz
