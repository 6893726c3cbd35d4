// The one prompt/completion split (base/scored.h): the edge rule, stated once and checked by hand.
#include "ascviz/base/error.h"
#include "ascviz/base/scored.h"
#include "ascviz/base/tokenspans.h"

#include <gtest/gtest.h>

using namespace ascviz;

namespace {

// "a😀b中c" in UTF-8: a(0,1) 😀(1,5) b(5,6) 中(6,9) c(9,10); tokens "a😀" [0,5), "b" [5,6), "中c" [6,10).
ScoredText sample()
{
    ScoredText s;
    s.text = "a\xF0\x9F\x98\x80"
             "b\xE4\xB8\xAD"
             "c";
    s.tokens = {{1, 0, 5, 0.5, false, {}}, {2, 5, 6, 0.25, false, {}}, {3, 6, 10, 0.125, false, {}}};
    return s;
}

std::vector<bool> generated(const ScoredText& s)
{
    std::vector<bool> g;
    for (const auto& t : s.tokens)
        g.push_back(t.generated);
    return g;
}

} // namespace

TEST(PromptSplit, TokenStartingAtTheBoundaryIsGenerated)
{
    ScoredText s = sample();
    splitAtPrompt(s, 5);
    EXPECT_EQ(s.promptBytes, 5u);
    EXPECT_EQ(s.promptTokens, 1u);
    EXPECT_EQ(generated(s), (std::vector<bool>{false, true, true}));
}

TEST(PromptSplit, TokenStraddlingTheBoundaryBelongsToThePrompt)
{
    ScoredText s = sample();
    splitAtPrompt(s, 7); // inside 中 (bytes 6..9): the token "中c" starts before the boundary
    EXPECT_EQ(s.promptBytes, 7u);
    EXPECT_EQ(s.promptTokens, 3u);
    EXPECT_EQ(generated(s), (std::vector<bool>{false, false, false}));
    splitAtPrompt(s, 2); // inside the emoji: the first token is prompt, the rest generated
    EXPECT_EQ(s.promptTokens, 1u);
    EXPECT_EQ(generated(s), (std::vector<bool>{false, true, true}));
}

TEST(PromptSplit, EmptyAndWholeAndBeyond)
{
    ScoredText s = sample();
    splitAtPrompt(s, 0);
    EXPECT_EQ(s.promptTokens, 0u);
    EXPECT_EQ(generated(s), (std::vector<bool>{true, true, true}));
    splitAtPrompt(s, 10);
    EXPECT_EQ(s.promptBytes, 10u);
    EXPECT_EQ(s.promptTokens, 3u);
    EXPECT_EQ(generated(s), (std::vector<bool>{false, false, false}));
    EXPECT_THROW(splitAtPrompt(s, 11), InputError);
    EXPECT_EQ(s.promptBytes, 10u); // unchanged by the refused split
}

TEST(PromptSplit, PromptGivenAsText)
{
    ScoredText s = sample();
    EXPECT_TRUE(splitAtPromptText(s, std::string("a\xF0\x9F\x98\x80"
                                                 "b")));
    EXPECT_EQ(s.promptBytes, 6u);
    EXPECT_EQ(generated(s), (std::vector<bool>{false, false, true}));
    // Not a prefix: everything is prompt, and the caller is told.
    EXPECT_FALSE(splitAtPromptText(s, std::string("x")));
    EXPECT_EQ(s.promptBytes, 10u);
    EXPECT_EQ(generated(s), (std::vector<bool>{false, false, false}));
    // Longer than the text: not a prefix.
    EXPECT_FALSE(splitAtPromptText(s, s.text + "d"));
    EXPECT_EQ(s.promptBytes, 10u);
    // No prompt: all prompt, nothing to report.
    EXPECT_TRUE(splitAtPromptText(s, std::nullopt));
    EXPECT_EQ(s.promptTokens, 3u);
    // The whole text as prompt: a prefix, no completion.
    EXPECT_TRUE(splitAtPromptText(s, s.text));
    EXPECT_EQ(generated(s), (std::vector<bool>{false, false, false}));
}

TEST(TokenSpans, WhatATokenizerProducesAndWhatItCannot)
{
    ScoredText s = sample(); // "a😀b中c": a(0,1) 😀(1,5) b(5,6) 中(6,9) c(9,10)
    EXPECT_FALSE(tokenSpanProblem(s).has_value());
    // The emoji split over two byte-level tokens: both carry its span; the overlap is one character.
    s.tokens = {{1, 0, 5, 0.5, false, {}}, {2, 1, 5, 0.5, false, {}}, {3, 5, 10, 0.5, false, {}}};
    EXPECT_FALSE(tokenSpanProblem(s).has_value());
    s.tokens = {{1, 1, 5, 0.5, false, {}}, {2, 1, 5, 0.5, false, {}}};
    EXPECT_FALSE(tokenSpanProblem(s).has_value()); // one character, two tokens
    s.tokens = {{1, 0, 5, 0.5, false, {}}, {2, 0, 5, 0.5, false, {}}};
    EXPECT_EQ(tokenSpanProblem(s), "token 1 [0, 5) overlaps token 0 [0, 5) by more than one character");
    s.tokens = {{1, 5, 6, 0.5, false, {}}, {2, 0, 5, 0.5, false, {}}};
    EXPECT_EQ(tokenSpanProblem(s), "token 1 [0, 5) goes back before token 0 [5, 6)");
    s.tokens = {{1, 6, 5, 0.5, false, {}}};
    EXPECT_EQ(tokenSpanProblem(s), "token 0 [6, 5) ends before it starts");
    s.tokens = {{1, 9, 11, 0.5, false, {}}};
    EXPECT_EQ(tokenSpanProblem(s), "token 0 [9, 11) ends after the text's 10 bytes");
    s.tokens = {{1, 0, 3, 0.5, false, {}}};
    EXPECT_EQ(tokenSpanProblem(s), "token 0 [0, 3) begins or ends inside a UTF-8 character");
    s.tokens = {{1, 7, 9, 0.5, false, {}}};
    EXPECT_EQ(tokenSpanProblem(s), "token 0 [7, 9) begins or ends inside a UTF-8 character");
}
