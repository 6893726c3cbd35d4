// Galeras treatments files (core/include/ascviz/galeras/treatments.h): parsed, then every template rendered.
#include "fuzz_check.h"

#include "ascviz/galeras/treatments.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return fuzz::expectingErrors([&] {
        const ascviz::TreatmentSet t =
            ascviz::parseTreatments(std::string(fuzz::bytes(data, size)), "fuzz-treatments.json");
        ascviz::TestbedItem item;
        item.partial = "def f(x):\n    y = x\n";
        item.signature = "def f(x):";
        item.docstring = "\"\"\"Doc.\"\"\"";
        item.language = "python";
        FUZZ_CHECK(!t.treatments.empty());
        for (const auto& tr : t.all()) {
            FUZZ_CHECK(!tr.name.empty());
            FUZZ_CHECK(ascviz::renderPrompt(tr.tmpl, item).find(item.partial) != std::string::npos);
        }
    });
}
