// Tokens against the grammar (method.md §14.4, eval/straddle.h): hand-computed straddling flags on made-up token
// spans over tree-sitter's leaves, with multi-byte (emoji, CJK) text.
#include "ascviz/eval/straddle.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

ascviz::ScoredText tokens(const std::string& text, const Spans& spans)
{
    ascviz::ScoredText s;
    s.text = text;
    for (const auto& [a, b] : spans) {
        ascviz::ScoredToken t;
        t.start = a;
        t.end = b;
        s.tokens.push_back(t);
    }
    return s;
}

// The non-empty leaves as (type, start, end), to pin the hand computation on the grammar's tree.
std::vector<std::string> leaves(const ascviz::SyntaxTree& tree)
{
    std::vector<std::string> out;
    for (const auto& n : tree.nodes())
        if (n.isTerminal() && n.end > n.start)
            out.push_back(n.type + "@" + std::to_string(n.start) + "-" + std::to_string(n.end));
    return out;
}

TEST(Straddle, SplitLeavesAndTokensAcrossTwoLeaves)
{
    const std::string text = "n = count(xs)\n";
    const auto tree = ascviz::SyntaxTree::parse("python", text);
    ASSERT_EQ(leaves(tree), (std::vector<std::string>{"identifier@0-1", "=@2-3", "identifier@4-9", "(@9-10",
                                                      "identifier@10-12", ")@12-13"}));
    // "n" | " =" | " coun" | "t(" | "xs" | ")\n" | "" (an empty span)
    const auto s = tokens(text, {{0, 1}, {1, 3}, {3, 8}, {8, 10}, {10, 12}, {12, 14}, {14, 14}});
    EXPECT_EQ(ascviz::straddlingTokens(s, tree),
              (std::vector<bool>{false, // the whole leaf "n"
                                 false, // "=" with its leading space: contains the leaf
                                 true,  // part of "count": the leaf is split
                                 true,  // the end of "count" and "(": a leaf boundary inside the token
                                 false, false, false}));
}

TEST(Straddle, EmojiSplitAcrossByteTokens)
{
    const std::string text = "s = \"\xF0\x9F\x98\x80\"\n"; // s = "😀" (the emoji is 4 bytes, [5, 9))
    const auto tree = ascviz::SyntaxTree::parse("python", text);
    ASSERT_EQ(leaves(tree), (std::vector<std::string>{"identifier@0-1", "=@2-3", "string_start@4-5",
                                                      "string_content@5-9", "string_end@9-10"}));
    // "s" | " =" | " \"" | two byte-level halves of the emoji | "\"\n"
    const auto split = tokens(text, {{0, 1}, {1, 3}, {3, 5}, {5, 7}, {7, 9}, {9, 11}});
    EXPECT_EQ(ascviz::straddlingTokens(split, tree), (std::vector<bool>{false, false, false, true, true, false}));
    // the emoji as one token, and a token over the quote and the emoji: two leaves
    const auto whole = tokens(text, {{0, 1}, {1, 3}, {3, 5}, {5, 9}, {9, 11}});
    EXPECT_EQ(ascviz::straddlingTokens(whole, tree), (std::vector<bool>{false, false, false, false, false}));
    const auto merged = tokens(text, {{0, 4}, {4, 9}, {9, 11}});
    EXPECT_EQ(ascviz::straddlingTokens(merged, tree), (std::vector<bool>{true, true, false}));
}

TEST(Straddle, CjkIdentifier)
{
    const std::string text = "\xE5\x8F\x98\xE9\x87\x8F = 1\n"; // 变量 = 1 (two 3-byte characters)
    const auto tree = ascviz::SyntaxTree::parse("python", text);
    ASSERT_EQ(leaves(tree), (std::vector<std::string>{"identifier@0-6", "=@7-8", "integer@9-10"}));
    // 变 | 量 | " =" | " 1" | "\n"
    EXPECT_EQ(ascviz::straddlingTokens(tokens(text, {{0, 3}, {3, 6}, {6, 8}, {8, 10}, {10, 11}}), tree),
              (std::vector<bool>{true, true, false, false, false}));
    // 变量 | " = 1\n" (two leaves in one token)
    EXPECT_EQ(ascviz::straddlingTokens(tokens(text, {{0, 6}, {6, 11}}), tree), (std::vector<bool>{false, true}));
}

} // namespace
