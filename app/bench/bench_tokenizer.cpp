// ascviz-bench-tokenizer [TOKENIZERS_DIR] [--mb N]
// Encodes ~1 MB of Python (the bundled corpus's `code` fields, concatenated) with every fixture tokenizer
// (TOKENIZERS_DIR/*/tokenizer.json; default: the source tree's tests/data/fixtures/tokenizers) and prints
// load time and tokens/s with a cold cache, a warm cache and the cache disabled, plus 100k spaces.
#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string buildText(std::size_t bytes)
{
    const auto corpus = ascviz::sampleCorpus();
    std::vector<std::string> codes;
    std::ifstream in(corpus, std::ios::binary);
    if (!in)
        throw ascviz::InputError("cannot read " + corpus.string());
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object() && j.contains("code") && j["code"].is_string())
            codes.push_back(j["code"].get<std::string>());
    }
    if (codes.empty())
        throw ascviz::InputError("no code in " + corpus.string());
    std::string text;
    for (std::size_t i = 0; text.size() < bytes; ++i)
        text += codes[i % codes.size()] + "\n\n";
    return text;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        fs::path dir = ASCVIZ_FIXTURE_TOKENIZERS;
        std::size_t mb = 1;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--mb" && i + 1 < argc)
                mb = std::max(1, std::atoi(argv[++i]));
            else if (a == "--help" || a == "-h") {
                std::cout << "usage: ascviz-bench-tokenizer [TOKENIZERS_DIR] [--mb N]\n";
                return 0;
            } else
                dir = a;
        }
        const std::string text = buildText(mb << 20);
        const std::string spaces(100000, ' ');
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir))
            if (fs::exists(e.path() / "tokenizer.json"))
                files.push_back(e.path() / "tokenizer.json");
        std::sort(files.begin(), files.end());
        if (files.empty())
            throw ascviz::InputError("no */tokenizer.json under " + dir.string());
        std::printf("text: %zu bytes of Python from %s\n", text.size(), ascviz::sampleCorpus().string().c_str());
        std::printf("%-20s %8s %9s %14s %14s %14s %12s\n", "tokenizer", "load_s", "tokens", "cold_tok/s", "warm_tok/s",
                    "nocache_tok/s", "100k_sp_ms");
        for (const auto& f : files) {
            auto t0 = std::chrono::steady_clock::now();
            const auto cached = ascviz::Tokenizer::fromFile(f);
            const double load = seconds(t0);
            const auto uncached = ascviz::Tokenizer::fromFile(f, ascviz::TokenizerOptions{false, 0});

            t0 = std::chrono::steady_clock::now();
            const auto e1 = cached->encode(text);
            const double cold = seconds(t0);
            t0 = std::chrono::steady_clock::now();
            const auto e2 = cached->encode(text);
            const double warm = seconds(t0);
            t0 = std::chrono::steady_clock::now();
            const auto e3 = uncached->encode(text);
            const double none = seconds(t0);
            t0 = std::chrono::steady_clock::now();
            const auto e4 = cached->encode(spaces);
            const double sp = seconds(t0);
            if (e1.ids != e2.ids || e1.ids != e3.ids)
                throw ascviz::Error("cached and uncached encodings differ for " + f.string());
            if (cached->decode(e4.ids) != spaces)
                throw ascviz::Error("100k spaces do not round-trip for " + f.string());
            const double n = static_cast<double>(e1.ids.size());
            std::printf("%-20s %8.2f %9zu %14.0f %14.0f %14.0f %12.1f\n", f.parent_path().filename().string().c_str(),
                        load, e1.ids.size(), n / cold, n / warm, n / none, sp * 1000.0);
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "ascviz-bench-tokenizer: " << e.what() << '\n';
        return 1;
    }
}
