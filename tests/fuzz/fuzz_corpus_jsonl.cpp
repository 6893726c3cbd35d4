// Corpus readers: JSON Lines (core/include/ascviz/results/corpus.h).
#include "fuzz_corpus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return fuzz::expectingErrors(
        [&] { fuzz::checkCorpus(ascviz::parseJsonLines(std::string(fuzz::bytes(data, size)), "fuzz.jsonl")); });
}
