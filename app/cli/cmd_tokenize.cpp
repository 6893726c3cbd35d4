// ascviz-cli tokenize (--tokenizer tokenizer.json | --model DIR) --text-file F [--out FILE]
// Encodes without special tokens; prints {"ids", "offsets":[[start,end]] (UTF-8 bytes), "tokens", "decoded"}.
#include "commands.h"
#include "common.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/utf8.h"
#include "ascviz/tokenizer/tokenizer.h"

namespace ascviz::cli {

int cmdTokenize(Args& args)
{
    const auto tokenizerFile = args.value("--tokenizer");
    const auto modelArg = args.value("--model");
    const auto textFile = args.value("--text-file");
    const auto outFile = args.value("--out");
    args.finish();
    if (!textFile)
        throw UsageError("missing required option --text-file");
    if (tokenizerFile && modelArg)
        throw UsageError("give either --tokenizer or --model, not both");

    const auto tokenizer = tokenizerFile ? Tokenizer::fromFile(*tokenizerFile)
                                         : Tokenizer::fromModelDir(resolveModelDir(modelArg.value_or("default")));
    const std::string text = readUtf8File(*textFile);
    const Encoding enc = tokenizer->encode(text, false);

    auto offsets = nlohmann::json::array();
    for (const auto& [s, e] : enc.offsets)
        offsets.push_back({s, e});
    nlohmann::json j;
    j["ids"] = enc.ids;
    j["offsets"] = std::move(offsets);
    j["tokens"] = enc.tokens;
    j["decoded"] = tokenizer->decode(enc.ids);
    writeJson(j, outFile);
    return 0;
}

} // namespace ascviz::cli
