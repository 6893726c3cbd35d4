// Conformance with Hugging Face `tokenizers` 0.23 on the reference fixtures: ids, tokens, UTF-8 byte
// offsets and decode, for every case of every fixture tokenizer.
#include "ascviz/tokenizer/tokenizer.h"
#include "tokenizer_test_util.h"

#include <gtest/gtest.h>

namespace {

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, MatchesReferenceForEveryCase)
{
    const std::string name = GetParam();
    const auto tok = ascviz::Tokenizer::fromFile(toktest::fixtureTokenizer(name));
    const auto cases = toktest::readJson(toktest::dataDir() / "fixtures" / "tokenizer-cases" / (name + ".json"));
    ASSERT_EQ(cases["tokenizer"], name);
    ASSERT_GE(cases["cases"].size(), 20u);
    for (std::size_t i = 0; i < cases["cases"].size(); ++i) {
        const auto& c = cases["cases"][i];
        const std::string text = c["text"];
        SCOPED_TRACE("case " + std::to_string(i) + ": " + text.substr(0, 60));
        const auto enc = tok->encode(text, false);
        EXPECT_EQ(enc.ids, c["ids"].get<std::vector<int32_t>>());
        EXPECT_EQ(enc.tokens, c["tokens"].get<std::vector<std::string>>());
        std::vector<std::pair<std::size_t, std::size_t>> want;
        for (const auto& o : c["offsets_byte"])
            want.emplace_back(o[0].get<std::size_t>(), o[1].get<std::size_t>());
        EXPECT_EQ(enc.offsets, want);
        ASSERT_EQ(enc.special.size(), enc.ids.size());
        EXPECT_EQ(tok->decode(c["ids"].get<std::vector<int32_t>>()), c["decoded"].get<std::string>());
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Conformance, ::testing::ValuesIn(ascviz::testdata::fixtureTokenizerCases()),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (auto& ch : n)
                                 if (ch == '-')
                                     ch = '_';
                             return n;
                         });

} // namespace
