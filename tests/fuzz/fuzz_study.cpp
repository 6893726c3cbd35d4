// Study files (core/include/ascviz/study/study.h): what `study render|report`, the Study tab and participant
// mode read. A study that is read must be one the writer could have written: every trial names a sample that
// exists and one of the study's conditions, every sample's stored evaluation is parallel to its tree, and
// writing it out and reading that back gives the same study (its fingerprint).
#include "fuzz_check.h"

#include "ascviz/study/study.h"

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return fuzz::expectingErrors([&] {
        const ascviz::Study s = ascviz::studyFromText(fuzz::bytes(data, size), "fuzz.study.json");
        FUZZ_CHECK(!s.participants.empty());
        for (const auto& p : s.participants)
            for (const auto& t : p.trials) {
                FUZZ_CHECK(t.sample >= 0 && static_cast<std::size_t>(t.sample) < s.samples.size());
                FUZZ_CHECK(std::find(s.conditions.begin(), s.conditions.end(), t.condition) != s.conditions.end());
            }
        for (const auto& sm : s.samples) {
            FUZZ_CHECK(sm.eval != nullptr);
            FUZZ_CHECK(sm.eval->nodes.size() == sm.eval->tree.nodes().size());
            FUZZ_CHECK(sm.eval->tree.text() == sm.eval->scored.text);
        }
        const ascviz::Study again = ascviz::studyFromJson(ascviz::studyToJson(s));
        FUZZ_CHECK(again.fingerprint() == s.fingerprint());
        FUZZ_CHECK(again.samples.size() == s.samples.size() && again.participants.size() == s.participants.size());
    });
}
