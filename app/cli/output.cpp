#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/syntax/language.h"

#include <fstream>
#include <iostream>

namespace ascviz::cli {

void writeJson(const nlohmann::json& j, const std::optional<std::string>& outFile)
{
    const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (outFile) {
        std::ofstream out(*outFile, std::ios::binary);
        if (!out)
            throw InputError("cannot write " + *outFile);
        out << text << '\n';
        if (!out)
            throw InputError("failed writing " + *outFile);
    } else {
        std::cout << text << '\n';
    }
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
    if (!reg.find(*given)) {
        std::string list;
        for (const auto& l : reg.ids())
            list += (list.empty() ? "" : ", ") + l;
        throw UsageError("--language must be one of: " + list);
    }
    return *given;
}

} // namespace ascviz::cli
