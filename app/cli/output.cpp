#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/syntax/language.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace ascviz::cli {

std::string fmt(double v, const char* format)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

void writeText(const std::string& text, const std::optional<std::string>& outFile)
{
    if (!outFile) {
        std::cout << text;
        return;
    }
    std::ofstream out(*outFile, std::ios::binary);
    if (!out)
        throw InputError("cannot write " + *outFile);
    out << text;
    if (!out)
        throw InputError("failed writing " + *outFile);
}

void writeJson(const nlohmann::json& j, const std::optional<std::string>& outFile)
{
    writeText(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n', outFile);
}

namespace {
std::string checkedLanguage(const std::string& given)
{
    const auto& reg = LanguageRegistry::instance();
    const LanguageInfo* l = reg.lookup(given); // the id, the name or an alias ("C++", "js")
    if (!l) {
        std::string list;
        for (const auto& id : reg.ids())
            list += (list.empty() ? "" : ", ") + id;
        throw UsageError("--language must be one of: " + list + " (got '" + given + "')");
    }
    return l->id;
}
} // namespace

std::string languageOptionOrEmpty(Args& args)
{
    const auto given = args.value("--language"); // an option is consumed once
    return given ? checkedLanguage(*given) : std::string();
}

// --language, else the language of the file's extension, else the registry's default (cli.md).
std::string languageOption(Args& args, const std::optional<std::string>& file)
{
    const auto& reg = LanguageRegistry::instance();
    const auto given = args.value("--language");
    if (!given) {
        if (file)
            if (const LanguageInfo* l = reg.forFile(*file))
                return l->id;
        return reg.defaultLanguage().id;
    }
    return checkedLanguage(*given);
}

void warnSyntaxProblems(const SyntaxTree& tree, const std::string& what)
{
    const std::string d = describeSyntaxProblems(tree);
    if (d.empty())
        return;
    std::string also;
    for (const auto& id : languagesParsingCleanly(tree.text(), tree.language()))
        also += (also.empty() ? "" : ", ") + id;
    std::cerr << "ascviz-cli: warning: " << what << ": " << d
              << (also.empty() ? std::string() : " (it parses without errors as " + also + "; see --language)") << '\n';
}

std::vector<std::string> splitList(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

} // namespace ascviz::cli
