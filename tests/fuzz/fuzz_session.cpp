// Session files (core/include/ascviz/results/session.h): what the GUI's Open session and --open-session read.
// A file that is read has every token inside its text, in order of the file, at most text bytes +
// kSessionTokenSlack of them, every NtP and alternative probability a probability; written back and read
// again, it is the same session.
#include "fuzz_check.h"

#include "ascviz/base/scored.h"
#include "ascviz/results/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return fuzz::expectingErrors([&] {
        const std::string text(fuzz::bytes(data, size));
        const ascviz::SessionData s = ascviz::sessionFromText(text, "fuzz.ascviz");
        const auto& scored = s.scored;
        FUZZ_CHECK(scored.tokens.size() <= scored.text.size() + ascviz::kSessionTokenSlack);
        FUZZ_CHECK(scored.promptBytes <= scored.text.size());
        FUZZ_CHECK(scored.promptTokens <= scored.tokens.size());
        FUZZ_CHECK(!s.ascEval || ascviz::isValidNtp(*s.ascEval));
        for (const auto& t : scored.tokens) {
            FUZZ_CHECK(t.start <= t.end && t.end <= scored.text.size());
            FUZZ_CHECK(!t.ntp || ascviz::isValidNtp(*t.ntp));
            FUZZ_CHECK(t.top.size() <= ascviz::kMaxSessionAlternatives);
            for (const auto& a : t.top)
                FUZZ_CHECK(ascviz::isValidNtp(a.prob));
        }
        const ascviz::SessionData back = ascviz::sessionFromJson(ascviz::sessionToJson(s));
        FUZZ_CHECK(back.scored.text == scored.text && back.prompt == s.prompt);
        FUZZ_CHECK(back.scored.tokens.size() == scored.tokens.size());
        for (std::size_t i = 0; i < scored.tokens.size(); ++i) {
            const auto &a = scored.tokens[i], &b = back.scored.tokens[i];
            FUZZ_CHECK(a.id == b.id && a.start == b.start && a.end == b.end && a.ntp == b.ntp &&
                       a.top.size() == b.top.size());
        }
    });
}
