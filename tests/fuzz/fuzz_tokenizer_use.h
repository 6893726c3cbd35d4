// Encode/decode with a loaded tokenizer, checking what tokenizer.h promises: offsets inside the text and
// in order, one token and one offset per id, ids that decode, whatever the ids.
#pragma once
#include "fuzz_check.h"

#include "ascviz/base/utf8.h"
#include "ascviz/tokenizer/tokenizer.h"

#include <vector>

namespace fuzz {

inline void useTokenizer(const ascviz::Tokenizer& tok, std::string_view text)
{
    (void)tok.vocabSize();
    (void)tok.addsBos();
    for (bool special : {false, true}) {
        ascviz::Encoding enc;
        try {
            enc = tok.encode(text, special);
        } catch (const ascviz::InputError&) {
            FUZZ_CHECK(ascviz::findInvalidUtf8(text).has_value()); // the one documented reason
            return;
        }
        FUZZ_CHECK(enc.offsets.size() == enc.ids.size() && enc.tokens.size() == enc.ids.size() &&
                   enc.special.size() == enc.ids.size());
        for (const auto& [start, end] : enc.offsets)
            FUZZ_CHECK(start <= end && end <= text.size());
        (void)tok.decode(enc.ids, false);
        (void)tok.decode(enc.ids, true);
        for (const auto id : enc.ids) {
            (void)tok.idToToken(id);
            if (const auto v = tok.vocabToken(id))
                (void)tok.tokenToId(*v);
        }
    }
    // Arbitrary ids (unknown, negative, huge) read from the text's bytes.
    std::vector<int32_t> ids;
    for (std::size_t k = 0; k + 4 <= text.size() && ids.size() < 64; k += 4) {
        uint32_t v = 0;
        for (int b = 0; b < 4; ++b)
            v = v << 8 | static_cast<unsigned char>(text[k + b]);
        ids.push_back(static_cast<int32_t>(v % 7 == 0 ? v : v % 70000));
    }
    (void)tok.decode(ids, false);
    (void)tok.decode(ids, true);
    for (const auto id : ids)
        (void)tok.idToToken(id);
    (void)tok.tokenToId(text);
}

} // namespace fuzz
