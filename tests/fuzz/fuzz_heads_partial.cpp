// Partial files of `analyze heads` (core/include/ascviz/attention/headpartial.h): what --resume and --from
// read. A file that is read tallies into a report without crashing, and every text record written back and
// read again is the same record.
#include "fuzz_check.h"

#include "ascviz/attention/headpartial.h"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return fuzz::expectingErrors([&] {
        const std::string text(fuzz::bytes(data, size));
        std::istringstream first(text);
        const auto got = ascviz::readHeadPartial(first, "fuzz.jsonl", nullptr);
        FUZZ_CHECK(got.settings.layers >= 1 && got.settings.maxK >= 1 && got.settings.maxK < 255);
        ascviz::HeadTally tally(got.settings.layers, got.settings.maxK, {"if", "for"});
        std::istringstream second(text);
        const auto again = ascviz::readHeadPartial(second, "fuzz.jsonl", &tally);
        FUZZ_CHECK(again.ids == got.ids);
        FUZZ_CHECK(tally.texts() == static_cast<int>(got.ids.size()));
        const auto report = tally.report({1, got.settings.maxK}, 1);
        for (const auto& r : report.relations) {
            FUZZ_CHECK(r.bestScores.size() == 2 && r.diff.size() == 2);
            for (double s : r.bestScores)
                FUZZ_CHECK(s >= 0.0 && s <= 1.0);
        }
        std::istringstream lines(text);
        std::string line;
        std::getline(lines, line); // the header
        while (std::getline(lines, line)) {
            const auto j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_discarded() || line.empty())
                continue;
            const auto rec = ascviz::textRecordFromJson(j, "fuzz");
            const auto back = ascviz::textRecordFromJson(ascviz::textRecordJson(rec), "fuzz");
            FUZZ_CHECK(back.id == rec.id && back.edges.size() == rec.edges.size() && back.outside == rec.outside);
            for (std::size_t i = 0; i < rec.edges.size(); ++i)
                FUZZ_CHECK(back.edges[i].ranks == rec.edges[i].ranks && back.edges[i].hits == rec.edges[i].hits);
        }
    });
}
