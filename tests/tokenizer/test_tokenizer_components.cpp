// Components that the fixtures do not exercise, on small hand-written tokenizer.json files. Expected values
// follow the documented behaviour (and unit tests) of Hugging Face tokenizers.
#include "ascviz/base/error.h"
#include "ascviz/tokenizer/tokenizer.h"
#include "testdata.h"
#include "tokenizer_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace {

using nlohmann::json;
using Offsets = std::vector<std::pair<std::size_t, std::size_t>>;

std::shared_ptr<const ascviz::Tokenizer> build(const json& j, const std::string& name)
{
    const auto dir = ascviz::testdata::processTempDir() / ("tok-" + name); // removed at exit
    std::filesystem::create_directories(dir);
    const auto file = dir / "tokenizer.json";
    std::ofstream(file, std::ios::binary) << j.dump();
    return ascviz::Tokenizer::fromFile(file);
}

json bpe(const std::vector<std::string>& vocab, json extra = json::object())
{
    json v = json::object();
    for (std::size_t i = 0; i < vocab.size(); ++i)
        v[vocab[i]] = i;
    json m = {{"type", "BPE"}, {"vocab", v}, {"merges", json::array()}};
    for (auto& [k, val] : extra.items())
        m[k] = val;
    return m;
}

json base(json model)
{
    return {{"version", "1.0"},         {"added_tokens", json::array()}, {"normalizer", nullptr},
            {"pre_tokenizer", nullptr}, {"post_processor", nullptr},     {"decoder", nullptr},
            {"model", std::move(model)}};
}

const std::string kMeta = "\xE2\x96\x81"; // ▁

TEST(TokenizerComponents, MetaspaceMultipleSpaces)
{
    auto j = base(bpe({kMeta, "H", "e", "y", "f", "r", "i", "n", "d", "!"}));
    j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", kMeta}, {"prepend_scheme", "always"}, {"split", true}};
    j["decoder"] = {{"type", "Metaspace"}, {"replacement", kMeta}, {"prepend_scheme", "always"}, {"split", true}};
    const auto tok = build(j, "metaspace");
    const auto e = tok->encode("Hey   friend!");
    EXPECT_EQ(e.tokens,
              (std::vector<std::string>{kMeta, "H", "e", "y", kMeta, kMeta, kMeta, "f", "r", "i", "e", "n", "d", "!"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1},
                                  {0, 1},
                                  {1, 2},
                                  {2, 3},
                                  {3, 4},
                                  {4, 5},
                                  {5, 6},
                                  {6, 7},
                                  {7, 8},
                                  {8, 9},
                                  {9, 10},
                                  {10, 11},
                                  {11, 12},
                                  {12, 13}}));
    EXPECT_EQ(tok->decode(e.ids), "Hey   friend!");
}

TEST(TokenizerComponents, SplitBehaviours)
{
    const std::vector<std::string> vocab = {"the",    "final",  "countdown", "-",         "the-",
                                            "final-", "-final", "--",        "-countdown"};
    const std::map<std::string, std::vector<std::string>> expected = {
        {"Removed", {"the", "final", "countdown"}},
        {"Isolated", {"the", "-", "final", "-", "-", "countdown"}},
        {"MergedWithPrevious", {"the-", "final-", "-", "countdown"}},
        {"MergedWithNext", {"the", "-final", "-", "-countdown"}},
        {"Contiguous", {"the", "-", "final", "--", "countdown"}},
    };
    for (const auto& [behavior, tokens] : expected) {
        auto j = base(bpe(vocab, {{"ignore_merges", true}}));
        j["pre_tokenizer"] = {
            {"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", false}};
        EXPECT_EQ(build(j, "split-" + behavior)->encode("the-final--countdown").tokens, tokens) << behavior;
    }
    // invert: the pattern describes the pieces to keep
    auto j = base(bpe(vocab, {{"ignore_merges", true}}));
    j["pre_tokenizer"] = {
        {"type", "Split"}, {"pattern", {{"Regex", "[a-z]+"}}}, {"behavior", "Removed"}, {"invert", true}};
    EXPECT_EQ(build(j, "split-invert")->encode("the-final--countdown").tokens,
              (std::vector<std::string>{"the", "final", "countdown"}));
}

TEST(TokenizerComponents, DigitsAndSequence)
{
    auto j = base(bpe({"abc", "1", "2", "3", "123"}, {{"ignore_merges", true}}));
    j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Digits"}, {"individual_digits", true}}}}};
    EXPECT_EQ(build(j, "digits1")->encode("abc123").tokens, (std::vector<std::string>{"abc", "1", "2", "3"}));
    j["pre_tokenizer"] = {{"type", "Digits"}, {"individual_digits", false}};
    EXPECT_EQ(build(j, "digits2")->encode("abc123").tokens, (std::vector<std::string>{"abc", "123"}));
}

TEST(TokenizerComponents, UnknownAndFusedUnknown)
{
    auto j = base(bpe({"<unk>", "a", "b"}, {{"unk_token", "<unk>"}, {"fuse_unk", false}}));
    auto e = build(j, "unk")->encode("aXYb");
    EXPECT_EQ(e.ids, (std::vector<int32_t>{1, 0, 0, 2}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
    j["model"]["fuse_unk"] = true;
    e = build(j, "fuse-unk")
            ->encode("aX\xC3\xA9"
                     "b");
    EXPECT_EQ(e.ids, (std::vector<int32_t>{1, 0, 2}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {1, 4}, {4, 5}}));
}

TEST(TokenizerComponents, MergesAndSubwordPrefix)
{
    auto j = base(bpe({"a", "b", "c", "ab", "abc", "##b", "##c", "a##b"}));
    j["model"]["merges"] = {"a b", {"ab", "c"}};
    const auto tok = build(j, "merges");
    EXPECT_EQ(tok->encode("abc").tokens, (std::vector<std::string>{"abc"}));
    EXPECT_EQ(tok->encode("cab").tokens, (std::vector<std::string>{"c", "ab"}));
    // merges naming unknown tokens are rejected
    j["model"]["merges"] = {"a z"};
    EXPECT_THROW(build(j, "bad-merge"), ascviz::TokenizerError);
}

TEST(TokenizerComponents, NfdOffsetsPointAtTheOriginalCharacter)
{
    auto j = base(bpe({"e", "\xCC\x81", "x"}));
    j["normalizer"] = {{"type", "NFD"}};
    const auto e = build(j, "nfd")->encode("x\xC3\xA9x"); // x é x
    EXPECT_EQ(e.tokens, (std::vector<std::string>{"x", "e", "\xCC\x81", "x"}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {1, 3}, {1, 3}, {3, 4}}));
}

TEST(TokenizerComponents, AddedTokenOptions)
{
    // tokenizers' own added-vocabulary test: lstrip/rstrip, normalized matching and single_word
    auto j = base(bpe({" ", "i", "s", "a", "n", "t", "h", "o", "y", "m", "e"}));
    j["normalizer"] = {{"type", "Lowercase"}};
    j["added_tokens"] = json::array({
        {{"id", 11},
         {"content", "my"},
         {"single_word", false},
         {"lstrip", true},
         {"rstrip", true},
         {"normalized", true},
         {"special", false}},
        {{"id", 12},
         {"content", "name"},
         {"single_word", false},
         {"lstrip", false},
         {"rstrip", false},
         {"normalized", true},
         {"special", false}},
        {{"id", 13},
         {"content", "ony"},
         {"single_word", true},
         {"lstrip", false},
         {"rstrip", false},
         {"normalized", true},
         {"special", false}},
        {{"id", 14},
         {"content", "[CLS]"},
         {"single_word", false},
         {"lstrip", false},
         {"rstrip", false},
         {"normalized", false},
         {"special", true}},
        {{"id", 15},
         {"content", "[SEP]"},
         {"single_word", false},
         {"lstrip", false},
         {"rstrip", false},
         {"normalized", false},
         {"special", true}},
    });
    const auto tok = build(j, "added");
    const std::string text = "[CLS] My name is Anthony [SEP]";
    const auto e = tok->encode(text);
    ASSERT_GE(e.ids.size(), 4u);
    EXPECT_EQ(e.ids[0], 14);
    EXPECT_EQ(e.ids[1], 11);
    EXPECT_EQ(e.tokens[1], " my ");
    EXPECT_EQ(e.offsets[1], (std::pair<std::size_t, std::size_t>{5, 9}));
    EXPECT_EQ(e.ids[2], 12);
    EXPECT_EQ(e.ids.back(), 15);
    EXPECT_TRUE(e.special.front());
    EXPECT_FALSE(e.special[1]);
    // "ony" inside "anthony" is not a single word: the span is tokenized by the model
    const std::vector<int32_t> middle(e.ids.begin() + 3, e.ids.end() - 1);
    EXPECT_EQ(middle.size(), std::string(" is anthony ").size());
    for (int32_t id : middle)
        EXPECT_LT(id, 11);
}

TEST(TokenizerComponents, CodeGenStyleAddedWhitespaceTokens)
{
    // CodeGen adds runs of spaces/tabs as (normalized, non-special) added tokens on top of GPT-2's BPE
    auto j = toktest::readJson(toktest::fixtureTokenizer("ascviz-code-bpe2k"));
    j["added_tokens"].push_back({{"id", 2048},
                                 {"content", "    "},
                                 {"single_word", false},
                                 {"lstrip", false},
                                 {"rstrip", false},
                                 {"normalized", true},
                                 {"special", false}});
    j["added_tokens"].push_back({{"id", 2049},
                                 {"content", "\t\t"},
                                 {"single_word", false},
                                 {"lstrip", false},
                                 {"rstrip", false},
                                 {"normalized", true},
                                 {"special", false}});
    const auto tok = build(j, "codegen-ws");
    const std::string text = "def f():\n        return 1\n\t\tx";
    const auto e = tok->encode(text);
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < e.ids.size(); ++i)
        if (e.ids[i] == 2048)
            at.push_back(i);
    ASSERT_EQ(at.size(), 2u);
    EXPECT_EQ(e.offsets[at[0]], (std::pair<std::size_t, std::size_t>{9, 13}));
    EXPECT_EQ(e.offsets[at[1]], (std::pair<std::size_t, std::size_t>{13, 17}));
    EXPECT_EQ(e.tokens[at[0]], "    ");
    EXPECT_FALSE(e.special[at[0]]);
    EXPECT_NE(std::find(e.ids.begin(), e.ids.end(), 2049), e.ids.end());
    EXPECT_EQ(tok->decode(e.ids), text);
    EXPECT_EQ(tok->decode(e.ids, true), text); // not special: kept
    EXPECT_EQ(tok->vocabSize(), 2050u);
}

TEST(TokenizerComponents, PartialUtf8DecodesToReplacementCharacters)
{
    const auto llama = ascviz::Tokenizer::fromFile(toktest::fixtureTokenizer("llama2"));
    const auto e = *llama->tokenToId("<0xE6>");
    const auto x = *llama->tokenToId("x");
    // ByteFallback: an invalid byte run gives one U+FFFD per byte
    EXPECT_EQ(llama->decode(std::vector<int32_t>{x, e, e}), "x\xEF\xBF\xBD\xEF\xBF\xBD");
    const auto gpt2 = ascviz::Tokenizer::fromFile(toktest::fixtureTokenizer("gpt2"));
    const auto emoji = gpt2->encode("\xF0\x9F\x99\x82"); // 🙂 is two byte-level tokens
    ASSERT_EQ(emoji.ids.size(), 2u);
    EXPECT_EQ(emoji.offsets[0], emoji.offsets[1]);
    EXPECT_EQ(gpt2->decode(std::vector<int32_t>{emoji.ids[0]}), "\xEF\xBF\xBD");
    EXPECT_EQ(gpt2->idToToken(emoji.ids[0]), "\xF0\x9F"); // raw bytes of the piece
}

// Word-level pre-tokenizers: with ignore_merges every pre-token that is a vocabulary word is one token, so
// the tokens show the pre-tokens (expected values: tokenizers 0.23.2).
std::pair<std::vector<std::string>, Offsets> preTokens(const json& pre, const std::string& text,
                                                       const std::string& name)
{
    auto j = base(bpe({"[UNK]", "Hey", "friend", "!", "How", "?!?", "friend!", "a", "b", "c", ",", ".", "..",
                       "a\xD8\x9D"
                       "b"},
                      {{"unk_token", "[UNK]"}, {"ignore_merges", true}}));
    j["pre_tokenizer"] = pre;
    const auto e = build(j, name)->encode(text);
    return {e.tokens, e.offsets};
}

TEST(TokenizerComponents, WordLevelPreTokenizers)
{
    using Tokens = std::vector<std::string>;
    auto r = preTokens({{"type", "Whitespace"}}, "Hey friend!  How?!?", "ws");
    EXPECT_EQ(r.first, (Tokens{"Hey", "friend", "!", "How", "?!?"}));
    EXPECT_EQ(r.second, (Offsets{{0, 3}, {4, 10}, {10, 11}, {13, 16}, {16, 19}}));
    r = preTokens({{"type", "WhitespaceSplit"}}, "Hey friend!\tHow", "wss");
    EXPECT_EQ(r.first, (Tokens{"Hey", "friend!", "How"}));
    EXPECT_EQ(r.second, (Offsets{{0, 3}, {4, 11}, {12, 15}}));
    r = preTokens({{"type", "Punctuation"}, {"behavior", "Isolated"}}, "a,b..c", "punct");
    EXPECT_EQ(r.first, (Tokens{"a", ",", "b", ".", ".", "c"}));
    r = preTokens({{"type", "Punctuation"}, {"behavior", "Contiguous"}}, "a,b..c", "punct-contiguous");
    EXPECT_EQ(r.first, (Tokens{"a", ",", "b", "..", "c"}));
    EXPECT_EQ(r.second, (Offsets{{0, 1}, {1, 2}, {2, 3}, {3, 5}, {5, 6}}));
    // U+061D (Unicode 14 punctuation) is not punctuation for tokenizers (its Unicode 9 tables)
    r = preTokens({{"type", "Punctuation"}},
                  "a\xD8\x9D"
                  "b",
                  "punct-new");
    EXPECT_EQ(r.first, (Tokens{"a\xD8\x9D"
                               "b"}));
    EXPECT_EQ(r.second, (Offsets{{0, 4}}));
    r = preTokens({{"type", "BertPreTokenizer"}}, "Hey, friend!", "bert");
    EXPECT_EQ(r.first, (Tokens{"Hey", ",", "friend", "!"}));
    EXPECT_EQ(r.second, (Offsets{{0, 3}, {3, 4}, {5, 11}, {11, 12}}));
    r = preTokens({{"type", "CharDelimiterSplit"}, {"delimiter", "_"}}, "a_b__c", "delim");
    EXPECT_EQ(r.first, (Tokens{"a", "b", "c"}));
    EXPECT_EQ(r.second, (Offsets{{0, 1}, {2, 3}, {5, 6}}));
}

TEST(TokenizerComponents, BpeDecoderAndNormalizedAddedTokens)
{
    auto j = base(bpe({"[UNK]", "hel", "lo</w>", "wor", "ld</w>"}));
    j["decoder"] = {{"type", "BPEDecoder"}, {"suffix", "</w>"}};
    EXPECT_EQ(build(j, "bpe-decoder")->decode(std::vector<int32_t>{1, 2, 3, 4}), "hello world");
    // an added token matched on normalized text is known by its normalized form (id_to_token, decode)
    j = base(bpe({"[UNK]", "x"}));
    j["normalizer"] = {{"type", "Lowercase"}};
    j["added_tokens"] = json::array({{{"id", 2},
                                      {"content", "[MASK]"},
                                      {"single_word", false},
                                      {"lstrip", false},
                                      {"rstrip", false},
                                      {"normalized", true},
                                      {"special", true}}});
    const auto tok = build(j, "normalized-added");
    const auto e = tok->encode("x[MASK]x");
    EXPECT_EQ(e.ids, (std::vector<int32_t>{1, 2, 1}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {1, 7}, {7, 8}}));
    EXPECT_EQ(tok->vocabToken(2), "[mask]");
    EXPECT_EQ(tok->decode(std::vector<int32_t>{1, 2}), "x [mask]");
    EXPECT_EQ(tok->tokenToId("[MASK]"), 2);
    EXPECT_EQ(tok->tokenToId("[mask]"), std::nullopt);
}

TEST(TokenizerComponents, NfcNeverComposesExcludedComposites)
{
    // U+2ADC and U+1D15E decompose under NFC and are composition exclusions: they stay decomposed (utf8proc's
    // pair composition alone would recompose them); each part keeps the whole original character's span.
    auto j = base(bpe({"a", "\u2ADD", "\u0338", "\u00E9", "\U0001D157", "\U0001D165"}));
    j["normalizer"] = {{"type", "NFC"}};
    const auto tok = build(j, "nfc-exclusions");
    auto e = tok->encode("a\u2ADCa");
    EXPECT_EQ(e.ids, (std::vector<int32_t>{0, 1, 2, 0}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {1, 4}, {1, 4}, {4, 5}}));
    e = tok->encode("a\U0001D15E");
    EXPECT_EQ(e.ids, (std::vector<int32_t>{0, 4, 5}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 1}, {1, 5}, {1, 5}}));
    EXPECT_EQ(tok->encode("e\u0301").ids, (std::vector<int32_t>{3})); // an ordinary pair still composes
}

TEST(TokenizerComponents, DecompositionsNewerThanTokenizersTablesAreKept)
{
    // tokenizers' normalizer tables predate U+32FF's compatibility decomposition (Unicode 12.1) and
    // U+11938's canonical one (Unicode 13): it leaves both unchanged; older ones (U+FB01) still apply.
    auto j = base(bpe({"\u32FF", "\U00011938", "f", "i", "\u4EE4", "\u548C"}));
    j["normalizer"] = {{"type", "NFKD"}};
    const auto tok = build(j, "newer-decompositions");
    auto e = tok->encode("\u32FF\U00011938\uFB01");
    EXPECT_EQ(e.ids, (std::vector<int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 3}, {3, 7}, {7, 10}, {7, 10}}));
}

TEST(TokenizerComponents, RegexWhiteSpaceIsUnicodeWhiteSpace)
{
    // \s is White_Space as in tokenizers' Oniguruma: U+180E (a format character) is not white space there,
    // though PCRE2 counts it; \s inside a class and \S outside one follow.
    auto j = base(bpe({"a\u180Eb", "c", "d"}, {{"ignore_merges", true}}));
    j["pre_tokenizer"] = {
        {"type", "Split"}, {"pattern", {{"Regex", R"(\S+|[^\s]+\s*)"}}}, {"behavior", "Removed"}, {"invert", true}};
    const auto e = build(j, "regex-space")->encode("a\u180Eb c\u3000d");
    EXPECT_EQ(e.ids, (std::vector<int32_t>{0, 1, 2}));
    EXPECT_EQ(e.offsets, (Offsets{{0, 5}, {6, 7}, {10, 11}}));
}

TEST(TokenizerComponents, UnsupportedComponentsAreNamed)
{
    const auto expectNamed = [](json j, const std::string& name, const std::string& what) {
        try {
            build(std::move(j), name);
            ADD_FAILURE() << "no exception for " << what;
        } catch (const ascviz::TokenizerError& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    auto j = base(bpe({"a"}));
    j["pre_tokenizer"] = {{"type", "UnicodeScripts"}};
    expectNamed(j, "u1", "unsupported pre_tokenizer type 'UnicodeScripts'");
    j = base(bpe({"a"}));
    j["normalizer"] = {{"type", "BertNormalizer"}};
    expectNamed(j, "u2", "unsupported normalizer type 'BertNormalizer'");
    j = base(bpe({"a"}));
    j["decoder"] = {{"type", "CTC"}};
    expectNamed(j, "u3", "unsupported decoder type 'CTC'");
    j = base(bpe({"a"}));
    j["model"]["type"] = "WordPiece";
    expectNamed(j, "u4", "unsupported model type 'WordPiece'");
    j = base(bpe({"a"}));
    j["post_processor"] = {{"type", "Fancy"}};
    expectNamed(j, "u5", "unsupported post_processor type 'Fancy'");
    j = base(bpe({"a"}));
    j["model"]["dropout"] = 0.1;
    expectNamed(j, "u6", "'dropout' 0.1 is not supported");
    // malformed JSON
    const auto dir = ascviz::testdata::processTempDir() / "tok-malformed";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "tokenizer.json") << "{ not json";
    EXPECT_THROW((void)ascviz::Tokenizer::fromFile(dir / "tokenizer.json"), ascviz::TokenizerError);
}

} // namespace
