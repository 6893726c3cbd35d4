// ascviz-cli: the scripting interface of AsC-Viz (docs/cli.md). Exit 0 success, 2 usage error, 1 failure
// with a one-line reason on stderr.
#include "commands.h"

#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

const char* kUsage =
    "usage: ascviz-cli <command> [options]\n"
    "commands:\n"
    "  --version                                   version, libtorch version, CUDA availability\n"
    "  tokenize (--tokenizer FILE | --model DIR) --text-file F\n"
    "  score    --model DIR --text-file F\n"
    "  generate --model DIR --prompt-file F --max-new-tokens N [--greedy | --temperature T --top-p P --top-k K --seed S]\n"
    "  parse    --language python --text-file F\n"
    "  eval     --model DIR --text-file F [--prompt-bytes N] [--aggregation median|mean|max|min]\n"
    "  render   --model DIR --text-file F --view complete|partial|sequence --svg OUT\n"
    "  batch    --model DIR --corpus FILE --db RESULTS [--limit N] [--resume]\n"
    "  report   --db RESULTS [--json | --csv DIR]\n"
    "common options: --model DIR|default, --device auto|cpu|cuda, --dtype auto|float32|float16|bfloat16,\n"
    "                --threads N, --out FILE; text files must be UTF-8 ('-' = stdin)\n";

} // namespace

int main(int argc, char** argv)
{
    using namespace ascviz::cli;
    const std::map<std::string, std::function<int(Args&)>> commands = {
        {"--version", cmdVersion}, {"version", cmdVersion},   {"tokenize", cmdTokenize},
        {"score", cmdScore},       {"generate", cmdGenerate}, {"parse", cmdParse},
        {"eval", cmdEval},         {"render", cmdRender},     {"batch", cmdBatch},
        {"report", cmdReport},
    };
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        (argc < 2 ? std::cerr : std::cout) << kUsage;
        return argc < 2 ? 2 : 0;
    }
    const auto it = commands.find(argv[1]);
    if (it == commands.end()) {
        std::cerr << "ascviz-cli: unknown command '" << argv[1] << "'\n" << kUsage;
        return 2;
    }
    try {
        Args args(std::vector<std::string>(argv + 2, argv + argc));
        return it->second(args);
    } catch (const UsageError& e) {
        std::cerr << "ascviz-cli " << argv[1] << ": usage error: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::string msg = e.what();
        for (auto& c : msg)
            if (c == '\n')
                c = ' ';
        std::cerr << "ascviz-cli " << argv[1] << ": error: " << msg << '\n';
        return 1;
    }
}
