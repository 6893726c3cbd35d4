// Encode/decode of any text with the real tokenizers of the fixtures (GPT-2, Llama 2, Qwen3, the bundled
// model's BPE) and the family-style ones (Gemma, Phi-3, Metaspace, o200k, Llama 3, Tekken, OLMo, the BPE
// option sets): loaded once; the input's first byte picks one, the rest is the text.
#include "fuzz_check.h"
#include "fuzz_tokenizer_use.h"

#include "ascviz/tokenizer/tokenizer.h"

#include <memory>
#include <vector>

namespace {

const std::vector<std::shared_ptr<const ascviz::Tokenizer>>& tokenizers()
{
    static const auto all = [] {
        std::vector<std::shared_ptr<const ascviz::Tokenizer>> v;
        for (const char* name : {"gpt2", "llama2", "qwen3", "ascviz-code-bpe2k", "family-gemma", "family-phi3",
                                 "family-mistral-metaspace", "family-metaspace-always", "family-o200k", "family-llama3",
                                 "family-tekken", "family-olmo", "family-options-subword", "family-options-split"})
            v.push_back(
                ascviz::Tokenizer::fromModelDir(std::string(ASCVIZ_FUZZ_TEST_DATA "/fixtures/tokenizers/") + name));
        return v;
    }();
    return all;
}

} // namespace

// Loading them takes seconds under the sanitizers: done before the first input's -timeout starts.
extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    (void)tokenizers();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    const auto& all = tokenizers();
    const auto& tok = *all[data[0] % all.size()];
    return fuzz::expectingErrors([&] { fuzz::useTokenizer(tok, fuzz::bytes(data + 1, size - 1)); });
}
