// The prompts file of `generate --prompts` (core/include/ascviz/results/prompts.h): JSON Lines of {"id"?, "prompt"}.
#include "fuzz_check.h"

#include "ascviz/results/prompts.h"

#include <set>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return fuzz::expectingErrors([&] {
        const auto prompts = ascviz::parsePromptsJsonl(fuzz::bytes(data, size), "fuzz.jsonl");
        // At least one prompt, lines increasing, ids distinct.
        FUZZ_CHECK(!prompts.empty());
        std::set<std::string> ids;
        std::size_t line = 0;
        for (const auto& p : prompts) {
            FUZZ_CHECK(p.line > line);
            line = p.line;
            if (p.id)
                FUZZ_CHECK(ids.insert(*p.id).second);
        }
    });
}
