// parse → align → layout → SVG: a snippet in one of the registered languages, cut into tokens at places and
// with NtP values the input decides, evaluated (tree-sitter, alignment, aggregation), laid out (Graphviz)
// and rendered (both AST views and the sequence view). Every SVG must be well-formed XML.
//
// Input: byte 0 picks the language, byte 1 the aggregation and the token cutting, then the token lengths
// and NtP values are drawn from a generator seeded by bytes 2..5; the rest is the code (UTF-8, as every
// caller of evaluate() holds it).
#include "fuzz_check.h"

#include "ascviz/base/utf8.h"
#include "ascviz/eval/eval.h"
#include "ascviz/figure/views.h"
#include "ascviz/render/layout.h"
#include "ascviz/render/svg.h"
#include "ascviz/syntax/language.h"

#include "../eval/eval_test_util.h"

#include <map>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    if (size < 6)
        return 0;
    const auto code = fuzz::bytes(data + 6, size - 6);
    if (ascviz::findInvalidUtf8(code))
        return 0;
    static const auto languages = ascviz::LanguageRegistry::instance().ids();
    static std::map<std::string, ascviz::CategoryMap> categories;
    const auto& language = languages[data[0] % languages.size()];
    if (!categories.count(language))
        categories.emplace(language, ascviz::CategoryMap::forLanguage(language));
    const auto aggregation = static_cast<ascviz::Aggregation>(data[1] % 4);
    const unsigned maxLen = 1 + (data[1] >> 2) % 8;
    uint32_t state = static_cast<uint32_t>(data[2]) << 24 | data[3] << 16 | data[4] << 8 | data[5];
    auto next = [&] { // xorshift32
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    };

    ascviz::ScoredText scored;
    scored.model = "fuzz";
    scored.text = std::string(code);
    for (std::size_t pos = 0; pos < scored.text.size();) {
        ascviz::ScoredToken t;
        t.id = static_cast<int32_t>(scored.tokens.size());
        t.start = pos;
        t.end = std::min(scored.text.size(), pos + 1 + next() % maxLen); // may cut a UTF-8 sequence, as byte BPE does
        const auto r = next() % 16;
        if (r == 0 && !scored.tokens.empty())
            t.ntp = std::nullopt;
        else
            t.ntp = r == 1 ? 0.0 : r == 2 ? 1.0 : r == 3 ? 1e-300 : (next() % 1000001) / 1e6;
        t.generated = next() % 2;
        scored.tokens.push_back(t);
        pos = t.end;
    }
    scored.promptBytes = scored.text.size();
    scored.promptTokens = scored.tokens.size();

    return fuzz::expectingErrors([&] {
        auto r = ascviz::evaluate(std::move(scored), language, aggregation, categories.at(language));
        FUZZ_CHECK(r.nodes.size() == r.tree.nodes().size());
        for (const auto view : {ascviz::AstView::Complete, ascviz::AstView::Partial}) {
            const auto layout = ascviz::layoutAst(r, view);
            FUZZ_CHECK(layout.nodes.size() == ascviz::visibleNodes(r, view).size());
            const auto svg = ascviz::renderAstSvg(r, view);
            const auto xml = evaltest::checkXml(svg);
            if (!xml.ok)
                std::fprintf(stderr, "AST SVG is not well-formed: %s\n", xml.error.c_str());
            FUZZ_CHECK(xml.ok);
        }
        const auto seq = evaltest::checkXml(ascviz::renderSequenceSvg(r));
        if (!seq.ok)
            std::fprintf(stderr, "sequence SVG is not well-formed: %s\n", seq.error.c_str());
        FUZZ_CHECK(seq.ok);
        ascviz::reaggregate(r, static_cast<ascviz::Aggregation>((data[1] + 1) % 4));
    });
}
