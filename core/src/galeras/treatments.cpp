// Galeras prompt treatments: the JSON file and the templates (treatments.h).
#include "ascviz/galeras/treatments.h"

#include "fnv.h"

#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"
#include "ascviz/syntax/language.h"

#include <nlohmann/json.hpp>

#include <set>

namespace ascviz {
namespace {

const std::set<std::string>& placeholders()
{
    static const std::set<std::string> p = {"code", "signature", "docstring", "language"};
    return p;
}

// Walks a template: calls `text` for literal pieces and `field` for placeholders; throws InputError (naming
// `where`) for an unmatched brace or an unknown placeholder.
template <class Text, class Field>
void walkTemplate(const std::string& t, const std::string& where, Text text, Field field)
{
    std::size_t i = 0;
    while (i < t.size()) {
        const char c = t[i];
        if ((c == '{' || c == '}') && i + 1 < t.size() && t[i + 1] == c) {
            text(std::string(1, c));
            i += 2;
        } else if (c == '{') {
            const auto close = t.find('}', i);
            if (close == std::string::npos)
                throw InputError(where + ": unmatched '{' at byte " + std::to_string(i) + " of the template");
            const std::string name = t.substr(i + 1, close - i - 1);
            if (!placeholders().count(name))
                throw InputError(where + ": unknown placeholder {" + name +
                                 "} (known: {code}, {signature}, {docstring}, {language}; {{ and }} are braces)");
            field(name);
            i = close + 1;
        } else if (c == '}') {
            throw InputError(where + ": unmatched '}' at byte " + std::to_string(i) + " of the template");
        } else {
            const auto next = t.find_first_of("{}", i);
            const std::size_t end = next == std::string::npos ? t.size() : next;
            text(t.substr(i, end - i));
            i = end;
        }
    }
}

Treatment readTreatment(const nlohmann::json& j, const std::string& where)
{
    if (!j.is_object())
        throw InputError(where + " must be an object {\"name\", \"template\"}");
    const auto name = j.find("name");
    const auto tmpl = j.find("template");
    if (name == j.end() || !name->is_string() || name->get<std::string>().empty())
        throw InputError(where + " needs a non-empty string \"name\"");
    const std::string w = where + " ('" + name->get<std::string>() + "')";
    if (tmpl == j.end() || !tmpl->is_string())
        throw InputError(w + " needs a string \"template\"");
    Treatment t{name->get<std::string>(), tmpl->get<std::string>()};
    if (findInvalidUtf8(t.name) || findInvalidUtf8(t.tmpl))
        throw InputError(w + " is not valid UTF-8");
    bool hasCode = false;
    walkTemplate(
        t.tmpl, w, [](const std::string&) {}, [&](const std::string& f) { hasCode |= f == "code"; });
    if (!hasCode)
        throw InputError(w + ": the template has no {code} placeholder (the partial code must be in every prompt)");
    return t;
}

} // namespace

std::vector<Treatment> TreatmentSet::all() const
{
    std::vector<Treatment> v{control};
    v.insert(v.end(), treatments.begin(), treatments.end());
    return v;
}

std::string TreatmentSet::fingerprint() const
{
    uint64_t h = galeras_detail::kFnvBasis;
    for (const auto& t : all())
        for (const std::string* s : {&t.name, &t.tmpl})
            h = galeras_detail::fnvMix(h, *s);
    return galeras_detail::hex16(h);
}

TreatmentSet parseTreatments(const std::string& text, const std::string& where)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw InputError("treatments file " + where + " is not valid JSON: " + e.what(), ErrorContext(where));
    }
    if (!j.is_object())
        throw InputError("treatments file " + where + " must be a JSON object {\"control\", \"treatments\"}",
                         ErrorContext(where));
    try {
        TreatmentSet s;
        if (!j.contains("control"))
            throw InputError("treatments file " + where + " has no \"control\"");
        s.control = readTreatment(j.at("control"), "treatments file " + where + ": control");
        const auto ts = j.find("treatments");
        if (ts == j.end() || !ts->is_array() || ts->empty())
            throw InputError("treatments file " + where + " needs a non-empty array \"treatments\"");
        std::set<std::string> names{s.control.name};
        for (std::size_t i = 0; i < ts->size(); ++i) {
            auto t = readTreatment((*ts)[i], "treatments file " + where + ": treatments[" + std::to_string(i) + "]");
            if (!names.insert(t.name).second)
                throw InputError("treatments file " + where + ": the name '" + t.name + "' is used twice");
            s.treatments.push_back(std::move(t));
        }
        if (const auto d = j.find("description"); d != j.end() && d->is_string())
            s.description = d->get<std::string>();
        return s;
    } catch (const InputError& e) {
        throw InputError(e.what(), ErrorContext(where));
    } catch (const nlohmann::json::exception& e) {
        throw InputError("treatments file " + where + ": " + e.what(), ErrorContext(where));
    }
}

TreatmentSet readTreatments(const std::filesystem::path& path)
{
    return parseTreatments(readUtf8File(path, kMaxTreatmentsFileBytes, "the treatments file"), path.string());
}

std::string renderPrompt(const std::string& tmpl, const TestbedItem& item)
{
    const LanguageInfo* lang = LanguageRegistry::instance().find(item.language);
    std::string out;
    // A field inserted into a comment line (the line so far is indentation + the language's line comment)
    // stays a comment: each of its later lines gets the same prefix ("# "), so a multi-line docstring never
    // stands uncommented above the code.
    const std::string lc = lang ? lang->highlight.lineComment : std::string();
    auto commentPrefix = [&]() -> std::string {
        if (lc.empty())
            return {};
        const auto nl = out.rfind('\n');
        const std::size_t start = nl == std::string::npos ? 0 : nl + 1;
        const auto first = out.find_first_not_of(" \t", start);
        if (first == std::string::npos || out.compare(first, lc.size(), lc) != 0)
            return {};
        std::string prefix = out.substr(start, first - start) + lc;
        const std::size_t after = first + lc.size();
        if (after < out.size() && out[after] == ' ')
            prefix += ' ';
        return prefix;
    };
    auto insert = [&](const std::string& value) {
        const std::string prefix = commentPrefix();
        if (prefix.empty()) {
            out += value;
            return;
        }
        for (char c : value) {
            out += c;
            if (c == '\n')
                out += prefix;
        }
    };
    walkTemplate(
        tmpl, "template", [&](const std::string& s) { out += s; },
        [&](const std::string& f) {
            if (f == "code")
                out += item.partial;
            else if (f == "signature")
                insert(item.signature);
            else if (f == "docstring")
                insert(item.docstring);
            else
                out += LanguageRegistry::instance().get(item.language).name;
        });
    return out;
}

} // namespace ascviz
