// ascviz-bench-inside: the cost of looking inside the model (method.md §13) with the bundled model on the sample
// corpus: the layer lens beside plain scoring of the same texts (the ratio the issue bounds at 2x), and occlusion
// attribution of a 300-token prompt with its 256 deepest nodes (target < 10 s on a 2-core CPU), beside gradient x
// input. Wall and process CPU seconds are printed (on a shared machine the CPU time is the steadier number). Prints
// numbers; it is not a test.
//
//   ascviz-bench-inside [--model DIR] [--corpus FILE.jsonl] [--texts N] [--prompt-tokens P] [--target-tokens T]
//                       [--budget B] [--batch-size S] [--threads N] [--repeat R]
#include "ascviz/attribution/attribution.h"
#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/utf8.h"
#include "ascviz/model/lens.h"
#include "ascviz/model/model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Clock {
    std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
    std::clock_t cpu = std::clock();
    double wallSeconds() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    }
    double cpuSeconds() const { return static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC; }
};

std::vector<std::string> readCodes(const std::string& file)
{
    std::ifstream in(file);
    if (!in)
        throw ascviz::InputError("cannot read " + file);
    std::vector<std::string> codes;
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            codes.push_back(nlohmann::json::parse(line).at("code").get<std::string>());
    return codes;
}

} // namespace

int main(int argc, char** argv)
{
    std::string modelArg = "default", corpus;
    int texts = 40, promptTokens = 300, targetTokens = 16, budget = 256, batch = 16, threads = 0, repeat = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--model")
            modelArg = v;
        else if (k == "--corpus")
            corpus = v;
        else if (k == "--texts")
            texts = std::stoi(v);
        else if (k == "--prompt-tokens")
            promptTokens = std::stoi(v);
        else if (k == "--target-tokens")
            targetTokens = std::stoi(v);
        else if (k == "--budget")
            budget = std::stoi(v);
        else if (k == "--batch-size")
            batch = std::stoi(v);
        else if (k == "--threads")
            threads = std::stoi(v);
        else if (k == "--repeat")
            repeat = std::stoi(v);
        else {
            std::cerr << "unknown option " << k << '\n';
            return 2;
        }
    }
    try {
        if (corpus.empty())
            corpus = (ascviz::resourceDir() / "corpus" / "stdlib-functions.jsonl").string();
        ascviz::LoadOptions load;
        load.threads = threads;
        const auto model = ascviz::LanguageModel::load(ascviz::resolveModelDir(modelArg), load);
        std::printf("model %s (%d layers, hidden %d, vocab %lld), %s\n", model->info().name.c_str(),
                    model->info().layers, model->info().hidden, static_cast<long long>(model->info().vocabSize),
                    model->info().cpuThreads.c_str());
        const auto codes = readCodes(corpus);

        // 1. The layer lens beside plain scoring, text by text (best of `repeat` runs of the whole set).
        std::vector<std::string> set(codes.begin(), codes.begin() + std::min<std::ptrdiff_t>(texts, codes.size()));
        std::size_t tokens = 0;
        for (const auto& c : set)
            tokens += model->tokenizer().encode(c, false).ids.size();
        double plainWall = 1e30, plainCpu = 1e30, lensWall = 1e30, lensCpu = 1e30;
        for (int r = 0; r < repeat; ++r) {
            Clock a;
            for (const auto& c : set)
                (void)model->score(c);
            plainWall = std::min(plainWall, a.wallSeconds());
            plainCpu = std::min(plainCpu, a.cpuSeconds());
            Clock b;
            for (const auto& c : set)
                (void)ascviz::scoreLayers(*model, c);
            lensWall = std::min(lensWall, b.wallSeconds());
            lensCpu = std::min(lensCpu, b.cpuSeconds());
        }
        std::printf("layer lens: %zu texts, %zu tokens; plain scoring %.2f s wall (%.2f s CPU), lens %.2f s wall "
                    "(%.2f s CPU): ratio %.2fx wall, %.2fx CPU\n",
                    set.size(), tokens, plainWall, plainCpu, lensWall, lensCpu, lensWall / plainWall,
                    lensCpu / plainCpu);

        // 2. Occlusion of a prompt of `promptTokens` tokens (the corpus's functions joined until long enough).
        std::string text;
        for (const auto& c : codes) {
            text += c + "\n\n";
            if (model->tokenizer().encode(text, false).ids.size() >=
                static_cast<std::size_t>(promptTokens + targetTokens))
                break;
        }
        const auto enc = model->tokenizer().encode(text, false);
        const auto cut = static_cast<std::size_t>(promptTokens + targetTokens);
        if (enc.ids.size() < cut)
            throw ascviz::InputError("the corpus is too short for a " + std::to_string(cut) + "-token text");
        text.resize(enc.offsets[cut - 1].second);
        const std::size_t promptBytes = enc.offsets[static_cast<std::size_t>(promptTokens)].first;
        ascviz::AttributionOptions o;
        o.budget = static_cast<std::size_t>(budget);
        o.batch = batch;
        for (int r = 0; r < repeat; ++r) {
            Clock c;
            const auto res = ascviz::attribute(*model, text, promptBytes, "python", {}, o);
            std::printf("occlusion: %d-token prompt, %zu prompt nodes, %zu weighed (deepest first, budget %d), %zu "
                        "masked copies (batch %d), target %zu tokens: %.2f s wall (%.2f s CPU)\n",
                        promptTokens, res.promptNodes, res.nodes.size(), budget, res.forwardPasses, batch,
                        res.tokenEnd - res.tokenBegin, c.wallSeconds(), c.cpuSeconds());
        }
        ascviz::AttributionOptions g;
        g.method = ascviz::AttributionMethod::GradientTimesInput;
        Clock c;
        const auto res = ascviz::attribute(*model, text, promptBytes, "python", {}, g);
        std::printf("gradient x input: %zu prompt nodes: %.2f s wall (%.2f s CPU)\n", res.nodes.size(), c.wallSeconds(),
                    c.cpuSeconds());
    } catch (const std::exception& e) {
        std::cerr << "ascviz-bench-inside: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
