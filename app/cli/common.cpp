#include "common.h"

#include "ascviz/syntax/language.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"

#include <fstream>
#include <iostream>

namespace ascviz::cli {

LoadOptions loadOptions(Args& args)
{
    LoadOptions o;
    o.device = args.valueOr("--device", "auto");
    if (o.device != "auto" && o.device != "cpu" && o.device != "cuda")
        throw UsageError("--device must be auto, cpu or cuda");
    o.dtype = args.valueOr("--dtype", "auto");
    if (o.dtype != "auto" && o.dtype != "float32" && o.dtype != "float16" && o.dtype != "bfloat16")
        throw UsageError("--dtype must be auto, float32, float16 or bfloat16");
    o.threads = args.intValue("--threads", 0);
    if (o.threads < 0)
        throw UsageError("--threads must be >= 0");
    return o;
}

std::unique_ptr<LanguageModel> loadModel(Args& args)
{
    const auto dir = resolveModelDir(args.valueOr("--model", "default"));
    auto opts = loadOptions(args);
    return LanguageModel::load(dir, opts);
}

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

nlohmann::json tokensJson(const ScoredText& s, bool withGenerated)
{
    auto arr = nlohmann::json::array();
    for (const auto& t : s.tokens) {
        nlohmann::json o = {{"id", t.id}, {"start", t.start}, {"end", t.end}};
        o["ntp"] = t.ntp ? nlohmann::json(*t.ntp) : nlohmann::json(nullptr);
        if (withGenerated)
            o["generated"] = t.generated;
        arr.push_back(std::move(o));
    }
    return arr;
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
