// The language registry (language.h): descriptors under resources/languages/<id>/language.json.
#include "ascviz/syntax/language.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/utf8.h"
#include "ascviz/syntax/syntax.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace ascviz {
namespace fs = std::filesystem;
namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

struct Reader {
    const nlohmann::json& j;
    std::string where;

    [[noreturn]] void fail(const std::string& what) const { throw InputError(where + ": " + what); }

    std::string str(const char* key, bool required, const nlohmann::json* in = nullptr) const
    {
        const auto& o = in ? *in : j;
        if (!o.contains(key)) {
            if (required)
                fail(std::string("missing \"") + key + "\"");
            return {};
        }
        if (!o[key].is_string())
            fail(std::string("\"") + key + "\" must be a string");
        return o[key].get<std::string>();
    }
    std::vector<std::string> strs(const char* key, const nlohmann::json* in = nullptr) const
    {
        const auto& o = in ? *in : j;
        std::vector<std::string> out;
        if (!o.contains(key))
            return out;
        if (!o[key].is_array())
            fail(std::string("\"") + key + "\" must be an array of strings");
        for (const auto& v : o[key]) {
            if (!v.is_string())
                fail(std::string("\"") + key + "\" must be an array of strings");
            out.push_back(v.get<std::string>());
        }
        return out;
    }
};

} // namespace

LanguageInfo readLanguageDescriptor(const fs::path& file)
{
    const std::string text = readUtf8File(file);
    const std::string where = "language descriptor " + file.string();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(where + " is not valid JSON: " + e.what(), ErrorContext{file.string(), e.byte});
    } catch (const nlohmann::json::exception& e) { // out_of_range for a number like 1e400
        throw InputError(where + " is not valid JSON: " + e.what(), ErrorContext{file.string()});
    }
    if (!j.is_object())
        throw InputError(where + ": expected a JSON object", ErrorContext{file.string()});
    Reader r{j, where};
    LanguageInfo l;
    l.folder = file.parent_path();
    l.id = r.str("id", true);
    if (l.id.empty() || l.id != lower(l.id) || l.id.find_first_of("/\\ .") != std::string::npos)
        r.fail("\"id\" must be a non-empty lower-case name without '/', '.' or spaces");
    if (l.id != file.parent_path().filename().string())
        r.fail("\"id\" \"" + l.id + "\" differs from its folder name \"" + file.parent_path().filename().string() +
               "\"");
    l.name = r.str("name", false);
    if (l.name.empty())
        l.name = l.id;
    if (j.contains("default") && !j["default"].is_boolean())
        r.fail("\"default\" must be true or false");
    l.isDefault = j.value("default", false);
    if (!j.contains("grammar") || !j["grammar"].is_object())
        r.fail("missing \"grammar\": {\"distribution\", \"version\", \"sha256\", \"symbol\"}");
    l.grammarDistribution = r.str("distribution", true, &j["grammar"]);
    l.grammarVersion = r.str("version", true, &j["grammar"]);
    for (auto a : r.strs("aliases"))
        l.aliases.push_back(lower(std::move(a)));
    for (auto e : r.strs("extensions")) {
        if (e.empty() || e[0] != '.')
            r.fail("extension \"" + e + "\" must start with '.'");
        l.extensions.push_back(lower(std::move(e)));
    }
    const std::string cats = r.str("categories", true);
    l.categoryFile = l.folder / cats;
    if (const std::string sample = r.str("sample_corpus", false); !sample.empty())
        l.sampleCorpus = (l.folder / sample).lexically_normal();
    if (j.contains("decision_points")) {
        const auto& d = j["decision_points"];
        if (!d.is_object())
            r.fail("\"decision_points\" must be an object {\"types\": [...], \"tokens\": [...]}");
        l.decisionPoints = r.strs("types", &d);
        l.decisionTokens = r.strs("tokens", &d);
    }
    if (j.contains("calls")) {
        const auto& c = j["calls"];
        if (!c.is_object())
            r.fail("\"calls\" must be an object {\"types\", \"arguments\", \"definitions\", \"builtins\"}");
        l.calls.types = r.strs("types", &c);
        l.calls.arguments = r.strs("arguments", &c);
        l.calls.definitions = r.strs("definitions", &c);
        l.calls.builtins = r.strs("builtins", &c);
        if (c.contains("leaves"))
            l.calls.leaves = r.strs("leaves", &c);
    }
    if (j.contains("highlight")) {
        const auto& h = j["highlight"];
        if (!h.is_object())
            r.fail("\"highlight\" must be an object");
        auto& hl = l.highlight;
        hl.keywords = r.strs("keywords", &h);
        hl.constants = r.strs("constants", &h);
        hl.builtins = r.strs("builtins", &h);
        hl.number = r.str("number", false, &h);
        hl.annotation = r.str("annotation", false, &h);
        hl.definition = r.str("definition", false, &h);
        hl.lineComment = r.str("line_comment", false, &h);
        hl.strings = r.strs("strings", &h);
        hl.multilineStrings = r.strs("multiline_strings", &h);
        if (h.contains("block_comments")) {
            if (!h["block_comments"].is_array())
                r.fail("\"block_comments\" must be an array of [open, close] pairs");
            for (const auto& p : h["block_comments"]) {
                if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_string())
                    r.fail("\"block_comments\" must be an array of [open, close] pairs");
                hl.blockComments.emplace_back(p[0].get<std::string>(), p[1].get<std::string>());
            }
        }
    }
    if (j.contains("keyword_baseline"))
        l.keywordBaseline = r.strs("keyword_baseline");
    if (j.contains("codebleu_keywords"))
        l.codebleuKeywords = r.strs("codebleu_keywords");
    if (j.contains("codebleu_rules")) {
        const auto& c = j["codebleu_rules"];
        if (!c.is_object())
            r.fail("\"codebleu_rules\" must be an object {\"comments\": \"tokenize\" | \"c-style\", \"dataflow\": "
                   "\"DFG_python\" | \"DFG_java\"}");
        if (c.contains("comments"))
            l.codebleuRules.comments = r.str("comments", true, &c);
        l.codebleuRules.dataflow = r.str("dataflow", true, &c);
        if (l.codebleuRules.comments != "tokenize" && l.codebleuRules.comments != "c-style")
            r.fail("\"codebleu_rules\": \"comments\" is \"" + l.codebleuRules.comments +
                   "\"; known: \"tokenize\", \"c-style\"");
        if (l.codebleuRules.dataflow != "DFG_python" && l.codebleuRules.dataflow != "DFG_java")
            r.fail("\"codebleu_rules\": \"dataflow\" is \"" + l.codebleuRules.dataflow +
                   "\"; known: \"DFG_python\", \"DFG_java\"");
    }
    l.placeholder = r.str("placeholder", false);
    if (j.contains("indent_after"))
        l.indentAfter = r.strs("indent_after");
    if (const std::string unit = r.str("indent_unit", false); !unit.empty())
        l.indentUnit = unit;
    return l;
}

LanguageRegistry LanguageRegistry::load(const fs::path& dir, const std::vector<std::string>& compiledGrammars)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError("no language descriptors: " + dir.string() + " is not a folder", ErrorContext{dir.string()});
    LanguageRegistry reg;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const fs::path file = entry.path() / "language.json";
        if (!entry.is_directory() || !fs::exists(file))
            continue;
        LanguageInfo l = readLanguageDescriptor(file);
        if (!compiledGrammars.empty() &&
            std::find(compiledGrammars.begin(), compiledGrammars.end(), l.id) == compiledGrammars.end())
            continue;
        reg.m_languages.push_back(std::move(l));
    }
    if (reg.m_languages.empty())
        throw InputError("no usable language descriptor under " + dir.string(), ErrorContext{dir.string()});
    std::sort(reg.m_languages.begin(), reg.m_languages.end(),
              [](const LanguageInfo& a, const LanguageInfo& b) { return a.id < b.id; });
    if (std::count_if(reg.m_languages.begin(), reg.m_languages.end(), [](const auto& l) { return l.isDefault; }) > 1)
        throw InputError("more than one language descriptor under " + dir.string() + " says \"default\": true");
    return reg;
}

const LanguageRegistry& LanguageRegistry::instance()
{
    static const LanguageRegistry reg = load(resourceDir() / "languages", SyntaxTree::languages());
    return reg;
}

std::vector<std::string> LanguageRegistry::ids() const
{
    std::vector<std::string> out;
    for (const auto& l : m_languages)
        out.push_back(l.id);
    return out;
}

const LanguageInfo* LanguageRegistry::find(std::string_view id) const
{
    for (const auto& l : m_languages)
        if (l.id == id)
            return &l;
    return nullptr;
}

const LanguageInfo& LanguageRegistry::get(std::string_view id) const
{
    if (const auto* l = find(id))
        return *l;
    std::string known;
    for (const auto& l : m_languages)
        known += (known.empty() ? "" : ", ") + l.id;
    throw InputError("unknown language '" + std::string(id) + "' (supported: " + known + ")");
}

const LanguageInfo* LanguageRegistry::lookup(std::string_view name) const
{
    const std::string want = lower(std::string(name));
    for (const auto& l : m_languages)
        if (l.id == want || lower(l.name) == want ||
            std::find(l.aliases.begin(), l.aliases.end(), want) != l.aliases.end())
            return &l;
    return nullptr;
}

const LanguageInfo* LanguageRegistry::forFile(const fs::path& file) const
{
    const std::string ext = lower(file.extension().string());
    if (ext.empty())
        return nullptr;
    for (const auto& l : m_languages)
        if (std::find(l.extensions.begin(), l.extensions.end(), ext) != l.extensions.end())
            return &l;
    return nullptr;
}

const LanguageInfo& LanguageRegistry::defaultLanguage() const
{
    for (const auto& l : m_languages)
        if (l.isDefault)
            return l;
    return m_languages.front();
}

std::vector<std::string> LanguageRegistry::allExtensions() const
{
    std::vector<std::string> out;
    for (const auto& l : m_languages)
        out.insert(out.end(), l.extensions.begin(), l.extensions.end());
    return out;
}

} // namespace ascviz
