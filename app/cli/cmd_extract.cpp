// ascviz-cli extract: cut a sample corpus (JSON Lines) of functions/methods out of source files.
#include "commands.h"
#include "common.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/results/corpus_cut.h"
#include "ascviz/syntax/language.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

namespace ascviz::cli {

int cmdExtract(Args& args)
{
    CutOptions opts;
    opts.language = languageOption(args, std::nullopt);
    opts.nodeTypes = splitList(args.require("--node-types"));
    const auto sources = splitList(args.require("--source"));
    const std::string outFile = args.require("--out");
    opts.minLines = args.intValue("--min-lines", 3);
    opts.maxLines = args.intValue("--max-lines", 40);
    const int maxBytes = args.intValue("--max-bytes", 4000);
    const int sample = args.intValue("--sample", 0);
    const int seed = args.intValue("--seed", 1);
    const std::string prefix = args.valueOr("--id-prefix", opts.language);
    const auto root = args.value("--root");
    const auto repoArg = args.value("--repo");
    const auto licence = args.value("--licence");
    const bool prompts = args.flag("--prompts");
    args.finish();
    if (opts.minLines < 1 || opts.maxLines < opts.minLines || maxBytes < 1 || sample < 0)
        throw UsageError("need 1 <= --min-lines <= --max-lines, --max-bytes >= 1 and --sample >= 0");
    opts.maxBytes = static_cast<std::size_t>(maxBytes);
    if (sources.empty())
        throw UsageError("--source needs at least one file or folder");

    std::vector<std::filesystem::path> paths(sources.begin(), sources.end());
    const std::filesystem::path base = root ? std::filesystem::path(*root) : paths.front().parent_path();
    // The repository every snippet comes from (method.md §10): --repo, else the root folder's name.
    std::filesystem::path rootAbs = std::filesystem::absolute(base).lexically_normal();
    if (rootAbs.filename().empty()) // "dir/" ends in an empty name
        rootAbs = rootAbs.parent_path();
    const std::string repo = repoArg ? *repoArg : rootAbs.filename().string();
    std::vector<std::string> skipped;
    const auto snippets =
        cutCorpus(paths, base, opts, static_cast<std::size_t>(sample), static_cast<uint64_t>(seed), &skipped);
    for (const auto& s : skipped)
        std::cerr << "extract: skipped " << s << '\n';
    if (snippets.empty())
        throw InputError("no " + opts.language + " snippet of the node types given fits the limits in the sources");
    std::ofstream out(outFile, std::ios::binary);
    if (!out)
        throw InputError("cannot write " + outFile);
    char id[32];
    for (std::size_t i = 0; i < snippets.size(); ++i) {
        std::snprintf(id, sizeof id, "%04zu", i);
        nlohmann::ordered_json j;
        j["id"] = prefix + "-" + id;
        j["language"] = opts.language;
        j["source"] = snippets[i].source;
        j["repo"] = repo;
        j["path"] = snippets[i].path;
        j["line"] = snippets[i].line;
        if (licence)
            j["licence"] = *licence;
        j["code"] = snippets[i].code;
        if (prompts) {
            // The code cut after line k, k drawn uniformly from [1, lines - 1] (the signature line is always
            // in the prompt, at least one line is left to complete), by mt19937_64(seed + entry index).
            const std::string& code = snippets[i].code;
            std::vector<std::size_t> ends; // byte offsets just after each '\n' that is not the last char
            for (std::size_t k = 0; k + 1 < code.size(); ++k)
                if (code[k] == '\n')
                    ends.push_back(k + 1);
            if (!ends.empty()) {
                std::mt19937_64 rng(static_cast<uint64_t>(seed) + i);
                j["prompt"] = code.substr(0, ends[static_cast<std::size_t>(rng() % ends.size())]);
            }
        }
        out << j.dump() << '\n';
    }
    if (!out)
        throw InputError("failed writing " + outFile);
    std::cerr << "extract: wrote " << snippets.size() << " snippets to " << outFile << '\n';
    return 0;
}

} // namespace ascviz::cli
