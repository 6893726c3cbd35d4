// Corpus readers: CSV, RFC 4180 (core/include/ascviz/results/corpus.h).
#include "fuzz_corpus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return fuzz::expectingErrors(
        [&] { fuzz::checkCorpus(ascviz::parseCsv(std::string(fuzz::bytes(data, size)), "fuzz.csv")); });
}
