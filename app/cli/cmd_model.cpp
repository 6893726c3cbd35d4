// ascviz-cli score / generate: the model runtime from the command line (docs/cli.md).
#include "commands.h"
#include "common.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/utf8.h"
#include "ascviz/model/modeljson.h"
#include "ascviz/results/prompts.h"

#include <cmath>

namespace ascviz::cli {

// score --model DIR --text-file F [--out FILE]
// {"model", "tokens":[{"id","start","end","ntp"}], "cross_entropy"}
int cmdScore(Args& args)
{
    const auto dir = resolveModelDir(args.valueOr("--model", "default"));
    const auto load = loadOptions(args);
    const auto textFile = args.value("--text-file");
    const auto outFile = args.value("--out");
    const std::size_t maxTextBytes = maxTextBytesOption(args);
    args.finish();
    if (!textFile)
        throw UsageError("missing required option --text-file");
    const std::string text = readUtf8File(*textFile);
    limits::checkTextSize(text.size(), maxTextBytes, *textFile);
    const auto model = LanguageModel::load(dir, load);
    writeJson(scoreJson(model->score(text), model->info()), outFile);
    return 0;
}

// generate --model DIR --prompt-file F --max-new-tokens N [--greedy | --temperature T --top-p P --top-k K
//          --seed S] [--ignore-eos] [--out FILE]
// {"model", "text", "prompt_tokens", "prompt_bytes", "tokens":[{"id","start","end","ntp","generated"}],
// "cross_entropy",
//  "stop": "eos"|"length"|"cancelled"|"context"}
int cmdGenerate(Args& args)
{
    const auto dir = resolveModelDir(args.valueOr("--model", "default"));
    const auto load = loadOptions(args);
    const auto promptFile = args.value("--prompt-file");
    const auto promptsFile = args.value("--prompts");
    const auto outFile = args.value("--out");
    GenerationOptions g;
    g.maxNewTokens = args.intValue("--max-new-tokens", 64);
    g.stopAtEos = !args.flag("--ignore-eos");
    samplingOptions(args, g, "--seed");
    const std::size_t maxTextBytes = maxTextBytesOption(args);
    args.finish();
    if (promptFile && promptsFile)
        throw UsageError("give --prompt-file or --prompts, not both");
    if (!promptFile && !promptsFile)
        throw UsageError("missing required option --prompt-file (or --prompts FILE.jsonl)");
    if (g.maxNewTokens < 0)
        throw UsageError("--max-new-tokens must be >= 0");
    if (promptsFile) {
        // JSON Lines in ({"id"?, "prompt"}), one line out per input in the same order: generate's JSON and "id".
        // Every prompt is read and checked before the model loads. One prompt after another; the batched
        // generation of the GPU engine (issue 56) is to replace this loop, greedy results unchanged.
        const std::vector<PromptEntry> prompts = readPromptsFile(*promptsFile);
        for (const auto& p : prompts)
            limits::checkTextSize(p.prompt.size(), maxTextBytes, *promptsFile + ":" + std::to_string(p.line));
        const auto model = LanguageModel::load(dir, load);
        std::string lines;
        for (const auto& p : prompts) {
            nlohmann::json j = generationJson(model->generate(p.prompt, g), model->info());
            j["id"] = !p.id         ? nlohmann::json(nullptr)
                      : p.numericId ? nlohmann::json::parse(*p.id)
                                    : nlohmann::json(*p.id);
            lines += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
        }
        writeText(lines, outFile);
        return 0;
    }

    const std::string prompt = readUtf8File(*promptFile);
    // before the model loads: a long prompt would take minutes to read into the model
    limits::checkTextSize(prompt.size(), maxTextBytes, *promptFile);
    const auto model = LanguageModel::load(dir, load);
    writeJson(generationJson(model->generate(prompt, g), model->info()), outFile);
    return 0;
}

} // namespace ascviz::cli
