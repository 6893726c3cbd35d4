// tokenizer.json loading, then encode/decode with what was loaded. The input is a tokenizer.json, then
// optionally a NUL byte and a text to encode (JSON text never holds a raw NUL).
#include "fuzz_check.h"

#include "ascviz/base/utf8.h"
#include "ascviz/tokenizer/tokenizer.h"

#include "fuzz_tokenizer_use.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    const auto input = fuzz::bytes(data, size);
    const auto nul = input.find('\0');
    const std::string json(input.substr(0, nul));
    const std::string_view text =
        nul == std::string_view::npos ? std::string_view("def f(x):\n    return x + 1\n") : input.substr(nul + 1);
    return fuzz::expectingErrors([&] {
        ascviz::TokenizerOptions options;
        options.cacheCapacity = 64;
        const auto tok = ascviz::Tokenizer::fromJson(json, "fuzz/tokenizer.json", options);
        fuzz::useTokenizer(*tok, text);
    });
}
