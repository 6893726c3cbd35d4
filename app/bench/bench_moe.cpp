// ascviz-bench-moe: scoring and generation throughput and the peak memory of one checkpoint, for the
// mixture-of-experts vs dense comparison of issue 42 (app/bench/moe_dense_twin.py makes an MoE and its dense twin
// of the same active parameters; app/bench/moe_vs_dense.sh runs this once per model, each in its own process so
// that the peak resident memory is that model's). Prints one JSON line; it is not a test.
//
//   ascviz-bench-moe --model DIR --texts FILE.jsonl [--limit N] [--runs R] [--new-tokens N] [--prompt P]
//                    [--threads T] [--device D] [--dtype T]
//
// Scoring: the first N texts ({"code": ...} per line) scored one call each, R times (after one warm-up text); the
// tokens/s of each run and their median. Generation: greedy, N new tokens (EOS not stopping it) after the first P
// ids of the first text, R times; tokens/s. Memory: the process's resident set before loading (the runtime), after
// loading, the peak up to then (loading) and the peak of the whole run (getrusage), beside the weights' bytes in the
// compute dtype (parameters x the dtype's size).
#include "ascviz/base/error.h"
#include "ascviz/model/model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <vector>

using nlohmann::json;

namespace {

double peakRssMb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0; // Linux: kilobytes
}

double currentRssMb()
{
    std::ifstream in("/proc/self/statm");
    long pages = 0, resident = 0;
    in >> pages >> resident;
    return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(int argc, char** argv)
{
    std::string modelDir, textsFile;
    int limit = 20, runs = 5, newTokens = 32, prompt = 32;
    ascviz::LoadOptions lo;
    lo.device = ascviz::Device::Cpu;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc)
                throw ascviz::InputError(a + " needs a value");
            return argv[++i];
        };
        if (a == "--model")
            modelDir = next();
        else if (a == "--texts")
            textsFile = next();
        else if (a == "--limit")
            limit = std::stoi(next());
        else if (a == "--runs")
            runs = std::stoi(next());
        else if (a == "--new-tokens")
            newTokens = std::stoi(next());
        else if (a == "--prompt")
            prompt = std::stoi(next());
        else if (a == "--threads")
            lo.threads = std::stoi(next());
        else if (a == "--device")
            lo.device = ascviz::requireLoadOption<ascviz::Device>(next());
        else if (a == "--dtype")
            lo.dtype = ascviz::requireLoadOption<ascviz::Dtype>(next());
        else
            throw ascviz::InputError("unknown option " + a +
                                     " (--model DIR --texts FILE.jsonl [--limit N] [--runs R] [--new-tokens N] "
                                     "[--prompt P] [--threads T] [--device D] [--dtype T])");
    }
    if (modelDir.empty() || textsFile.empty() || limit < 1 || runs < 1 || newTokens < 1 || prompt < 1)
        throw ascviz::InputError("ascviz-bench-moe needs --model DIR and --texts FILE.jsonl (limit, runs, new tokens "
                                 "and prompt >= 1)");
    std::vector<std::string> texts;
    std::ifstream in(textsFile);
    if (!in)
        throw ascviz::InputError("cannot read " + textsFile);
    for (std::string line; std::getline(in, line) && static_cast<int>(texts.size()) < limit;)
        if (!line.empty())
            texts.push_back(json::parse(line).at("code").get<std::string>());
    if (texts.empty())
        throw ascviz::InputError(textsFile + " holds no text");

    const double runtimeMb = currentRssMb();
    auto t0 = std::chrono::steady_clock::now();
    const auto model = ascviz::LanguageModel::load(modelDir, lo);
    const double loadS = seconds(t0);
    const double loadedMb = currentRssMb(), loadPeakMb = peakRssMb();
    const ascviz::ModelInfo& info = model->info();
    const double bytesPer = info.dtype == "float32" ? 4.0 : 2.0;
    const double weightsMb = static_cast<double>(info.parameters) * bytesPer / (1024.0 * 1024.0);

    model->score(texts[0]); // warm-up
    std::vector<double> scoreRates;
    int64_t tokens = 0;
    for (int r = 0; r < runs; ++r) {
        tokens = 0;
        t0 = std::chrono::steady_clock::now();
        for (const auto& t : texts)
            tokens += static_cast<int64_t>(model->score(t).tokens.size());
        scoreRates.push_back(static_cast<double>(tokens) / seconds(t0));
    }
    auto ids = model->tokenizer().encode(texts[0], false).ids;
    ids.resize(std::min(ids.size(), static_cast<std::size_t>(prompt)));
    ascviz::GenerationOptions g;
    g.maxNewTokens = newTokens;
    g.stopAtEos = false;
    {
        ascviz::GenerationOptions w = g;
        w.maxNewTokens = 4;
        model->generateIds(ids, w);
    }
    std::vector<double> genRates;
    for (int r = 0; r < runs; ++r) {
        t0 = std::chrono::steady_clock::now();
        const auto out = model->generateIds(ids, g);
        genRates.push_back(static_cast<double>(out.size()) / seconds(t0));
    }
    const json j = {{"model", info.name},
                    {"architecture", info.architecture},
                    {"parameters", info.parameters},
                    {"experts", info.experts},
                    {"experts_per_token", info.expertsPerToken},
                    {"dtype", info.dtype},
                    {"load_s", loadS},
                    {"score_tokens", tokens},
                    {"score_tok_s", scoreRates},
                    {"score_tok_s_median", median(scoreRates)},
                    {"generate_tokens", newTokens},
                    {"generate_tok_s", genRates},
                    {"generate_tok_s_median", median(genRates)},
                    {"weights_mb", weightsMb},
                    {"runtime_rss_mb", runtimeMb},
                    {"loaded_rss_mb", loadedMb},
                    {"load_peak_rss_mb", loadPeakMb},
                    {"peak_rss_mb", peakRssMb()}};
    std::cout << j.dump() << '\n';
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "ascviz-bench-moe: " << e.what() << '\n';
        return 1;
    }
}
