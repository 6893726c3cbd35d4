// CategoryMap: node type -> category (method.md §5), loaded from an editable JSON file:
//   {"language": "python", "categories": {"Iterative": ["for_statement", ...], ...}}
// Categories keep their file order; a node type may belong to one category only.
#include "ascviz/eval/eval.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"
#include "ascviz/syntax/language.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ascviz {

CategoryMap CategoryMap::fromFile(const std::filesystem::path& file, const std::string& language)
{
    const std::string text = readUtf8File(file); // InputError when missing / not UTF-8
    return fromJson(text, "category file " + file.string(), language);
}

CategoryMap CategoryMap::fromJson(const std::string& text, const std::string& where, const std::string& language)
{
    nlohmann::ordered_json j;
    try {
        j = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::exception& e) { // parse_error, or out_of_range for a number like 1e400
        throw InputError(where + " is not valid JSON: " + e.what());
    }
    if (!j.is_object())
        throw InputError(where + ": expected a JSON object {\"language\": ..., \"categories\": {...}}");
    if (j.contains("language") && !j["language"].is_string())
        throw InputError(where + ": \"language\" must be a string");
    if (!j.contains("categories") || !j["categories"].is_object())
        throw InputError(where + ": expected \"categories\": {\"<category>\": [\"<node type>\", ...], ...}");

    CategoryMap m;
    if (j.contains("language"))
        m.m_language = j["language"].get<std::string>();
    for (const auto& [name, types] : j["categories"].items()) {
        if (name.empty())
            throw InputError(where + ": a category has an empty name");
        if (!types.is_array())
            throw InputError(where + ": category \"" + name + "\" must be an array of node type strings");
        m.m_categories.push_back(name);
        for (const auto& t : types) {
            if (!t.is_string() || t.get<std::string>().empty())
                throw InputError(where + ": category \"" + name + "\" has an entry that is not a node type string");
            const auto type = t.get<std::string>();
            auto [it, inserted] = m.m_byType.emplace(type, name);
            if (!inserted && it->second != name)
                throw InputError(where + ": node type \"" + type + "\" is in both \"" + it->second + "\" and \"" +
                                 name + "\"");
        }
    }
    if (!language.empty()) {
        const auto& info = LanguageRegistry::instance().get(language); // InputError for an unknown language
        if (!m.m_language.empty() && m.m_language != language)
            throw InputError(where + " is for language '" + m.m_language + "', not '" + language + "'");
        const auto unknown = m.unknownTypes(language);
        if (!unknown.empty()) {
            std::string list;
            for (const auto& t : unknown)
                list += (list.empty() ? "\"" : ", \"") + t + "\"";
            throw InputError(where + " names node types that the " + info.name + " grammar (" +
                             info.grammarDistribution + " " + info.grammarVersion + ") does not have: " + list +
                             " (the node types of " + language + " list the grammar's types)");
        }
    }
    return m;
}

CategoryMap CategoryMap::forLanguage(const std::string& language)
{
    const auto file = LanguageRegistry::instance().get(language).categoryFile;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        throw InputError("no category table for language '" + language + "' (expected " + file.string() + ")");
    return fromFile(file, language);
}

std::vector<std::string> CategoryMap::types() const
{
    std::vector<std::string> out;
    for (const auto& [type, cat] : m_byType)
        out.push_back(type);
    return out;
}

std::vector<std::string> CategoryMap::unknownTypes(const std::string& language) const
{
    const auto known = SyntaxTree::nodeTypes(language);
    std::vector<std::string> out;
    for (const auto& entry : m_byType) { // not a structured binding: clang 14 (the fuzz build) cannot capture one
        const std::string& type = entry.first;
        if (std::none_of(known.begin(), known.end(), [&](const NodeType& t) { return t.name == type; }))
            out.push_back(type);
    }
    return out;
}

std::optional<std::string> CategoryMap::categoryOf(const std::string& nodeType) const
{
    auto it = m_byType.find(nodeType);
    if (it == m_byType.end())
        return std::nullopt;
    return it->second;
}

std::vector<std::string> CategoryMap::categories() const
{
    return m_categories;
}

} // namespace ascviz
