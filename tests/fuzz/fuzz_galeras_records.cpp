// Galeras records (core/include/ascviz/galeras/records.h): JSON Lines or CSV (the first byte picks: '#' CSV,
// else JSON Lines), then the testbeds cut from them (tree-sitter, the cut rule).
#include "fuzz_check.h"

#include "ascviz/base/utf8.h"
#include "ascviz/galeras/testbed.h"

#include <set>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return fuzz::expectingErrors([&] {
        const std::string text(fuzz::bytes(data, size));
        const bool csv = !text.empty() && text[0] == '#';
        const ascviz::RecordSet rs =
            csv ? ascviz::parseRecordsCsv(text.substr(1), "fuzz.csv") : ascviz::parseRecordsJsonl(text, "fuzz.jsonl");
        std::set<std::string> ids;
        for (const auto& r : rs.records) {
            FUZZ_CHECK(!r.code.empty());
            FUZZ_CHECK(!ascviz::findInvalidUtf8(r.code));
            FUZZ_CHECK(ids.insert(r.id).second);
            FUZZ_CHECK(!r.location.empty());
        }
        for (const auto& i : rs.issues)
            FUZZ_CHECK(!i.location.empty() && !i.message.empty());
        for (auto kind : {ascviz::Testbed::RandomCut, ascviz::Testbed::WithDocString, ascviz::Testbed::FromDocString}) {
            const auto tb = ascviz::buildTestbed(rs, kind, 7);
            std::size_t skipped = 0;
            for (const auto& [why, n] : tb.skipped)
                skipped += static_cast<std::size_t>(n);
            FUZZ_CHECK(tb.items.size() + skipped == rs.records.size());
            for (const auto& it : tb.items) {
                FUZZ_CHECK(!it.groundTruth.empty());
                FUZZ_CHECK(it.partial.size() + it.groundTruth.size() <= it.record->code.size());
            }
        }
    });
}
