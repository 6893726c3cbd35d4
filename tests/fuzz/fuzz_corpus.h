// What every corpus reader promises of what it returns (corpus.h): UTF-8 code, unique ids, a registered
// language and a location for every entry, a location and a message for every issue.
#pragma once
#include "fuzz_check.h"

#include "ascviz/base/utf8.h"
#include "ascviz/results/corpus.h"
#include "ascviz/syntax/language.h"

#include <set>

namespace fuzz {

inline void checkCorpus(const ascviz::Corpus& corpus)
{
    const auto& registry = ascviz::LanguageRegistry::instance();
    std::set<std::string> ids;
    for (const auto& e : corpus.entries) {
        FUZZ_CHECK(!ascviz::findInvalidUtf8(e.code));
        FUZZ_CHECK(ids.insert(e.id).second);
        FUZZ_CHECK(!e.location.empty());
        FUZZ_CHECK(e.language.empty() || registry.find(e.language) != nullptr);
    }
    for (const auto& i : corpus.issues)
        FUZZ_CHECK(!i.location.empty() && !i.message.empty());
    (void)corpus.fingerprint();
    (void)corpus.languages();
}

} // namespace fuzz
