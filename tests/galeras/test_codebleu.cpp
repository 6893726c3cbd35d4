// CodeBLEU (galeras/codebleu.h) against hand-computed values: each component on small inputs, the package's
// quirks kept (the weighted n-gram's brevity penalty against 2, a data-flow match of 0 counted as 1).
#include "ascviz/base/error.h"
#include "ascviz/galeras/codebleu.h"
#include "ascviz/syntax/language.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ascviz;

namespace {
std::vector<std::string> toks(const std::string& s)
{
    return whitespaceTokens(s);
}
} // namespace

TEST(CodeBleu, WhitespaceTokensAndStripAsPython)
{
    EXPECT_EQ(toks("  a  b\tc\n\u00a0d\u3000"), (std::vector<std::string>{"a", "b", "c", "d"}));
    EXPECT_EQ(pythonStrip("\n\t x = 1 \u2028"), "x = 1");
    EXPECT_EQ(pythonStrip(" \n "), "");
}

TEST(CodeBleu, NgramMatchIsNltkBleuWithMethod1)
{
    EXPECT_DOUBLE_EQ(ngramMatch(toks("a b c d"), toks("a b c d")), 1.0);
    // p = 4/5, 3/4, 2/3, 1/2; c > r: no penalty
    EXPECT_NEAR(ngramMatch(toks("a b c d e"), toks("a b c d")), std::pow(0.8 * 0.75 * (2.0 / 3) * 0.5, 0.25), 1e-15);
    // p = 2/2, 1/1, then no 3- or 4-grams: 0.1 / max(1, 0); penalty exp(1 - 3/2)
    EXPECT_NEAR(ngramMatch(toks("a b"), toks("a b c")), std::exp(-0.5) * std::pow(0.1 * 0.1, 0.25), 1e-15);
    EXPECT_DOUBLE_EQ(ngramMatch(toks("x"), toks("a b c")), 0.0); // no unigram matches
    EXPECT_DOUBLE_EQ(ngramMatch({}, toks("a")), 0.0);
}

TEST(CodeBleu, WeightedNgramMatchWeighsKeywordsAndComparesLengthWithTwo)
{
    const std::set<std::string> kw{"def"};
    // unigram recall (1 + 0.2) / (1 + 0.2 + 0.2); bigrams 0 of 2 → 0.1/2; trigram 0 of 1; no 4-gram: 0.1/1
    EXPECT_NEAR(weightedNgramMatch(toks("def g x"), toks("def f x"), kw),
                std::exp(0.25 * (std::log(1.2 / 1.4) + std::log(0.05) + std::log(0.1) + std::log(0.1))), 1e-15);
    // one token: penalty exp(1 − 2/1) whatever the reference's length
    EXPECT_NEAR(weightedNgramMatch(toks("def"), toks("def f x"), kw),
                std::exp(-1.0) * std::exp(0.25 * (std::log(1.0 / 1.4) + std::log(0.05) + 2 * std::log(0.1))), 1e-15);
    EXPECT_DOUBLE_EQ(weightedNgramMatch(toks("f"), toks("def"), kw), 0.0);
}

TEST(CodeBleu, RemovesCommentsAndDocstringsAsThePackage)
{
    EXPECT_EQ(removeCommentsAndDocstrings("def f():\n    \"\"\"Doc.\"\"\"\n    return 1  # one\n", "python"),
              "def f():\n    return 1  ");
    // a string kept after an operator, dropped at the start of a statement or at column 0 inside brackets
    EXPECT_EQ(removeCommentsAndDocstrings("x = 'a'  # c\n's'\ny = (\n't')", "python"), "x = 'a'  \ny = (\n)");
    // tokenize fails (an open bracket at the end): the text is kept
    EXPECT_EQ(removeCommentsAndDocstrings("x = 1  # c\nf(x", "python"), "x = 1  # c\nf(x");
    EXPECT_EQ(removeCommentsAndDocstrings("int a = 1; // c\n/* b */ int b = 2;\nString s = \"// no\";", "java"),
              "int a = 1;  \n  int b = 2;\nString s = \"// no\";");
}

TEST(CodeBleu, SyntaxMatchCountsTheReferenceSubtrees)
{
    // reference subtrees: module, 2 expression statements, 2 assignments; the candidate has those of x = 1
    EXPECT_NEAR(syntaxMatch("x = 1\ny = 2", "x = 1\ny = x", "python"), 2.0 / 5.0, 1e-15);
    EXPECT_DOUBLE_EQ(syntaxMatch("x = 1  # note\ny = x", "x = 1\ny = x", "python"), 1.0); // comment removed
    EXPECT_DOUBLE_EQ(syntaxMatch("return b;", "return a;", "java"), 1.0);                 // text ignored
}

TEST(CodeBleu, DataFlowGraphAsThePackage)
{
    // x(0) = 1(2); y(3) = x(5): x from 1, y from x, x at 5 comes from x at 0
    const auto g = dataFlowGraph("x = 1\ny = x", "python");
    const std::vector<DataFlowEdge> want = {{"var_1", "computedFrom", {"var_0"}},
                                            {"var_0", "comesFrom", {}},
                                            {"var_2", "computedFrom", {"var_1"}},
                                            {"var_1", "comesFrom", {"var_1"}}};
    EXPECT_EQ(g, want);
    EXPECT_DOUBLE_EQ(dataflowMatch("x = 1\ny = 2", "x = 1\ny = x", "python"), 0.5);
    // Java: int a = b; a++;
    const auto j = dataFlowGraph("int a = b;\na++;", "java");
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0], (DataFlowEdge{"var_1", "comesFrom", {"var_0"}}));    // a from b
    EXPECT_EQ(j[2], (DataFlowEdge{"var_1", "computedFrom", {"var_1"}})); // a++ from a
    EXPECT_THROW(dataFlowGraph("int x;", "cpp"), InputError);            // no rules in cpp's language.json
    EXPECT_TRUE(codeBleuSupports("python") && codeBleuSupports("java"));
    EXPECT_FALSE(codeBleuSupports("cpp") || codeBleuSupports("javascript") || codeBleuSupports("cobol"));
}

TEST(CodeBleu, TotalWeighsTheFourAndCountsNoDataFlowAsOne)
{
    const auto& py = LanguageRegistry::instance().get("python");
    const std::set<std::string> kw(py.codebleuKeywords.begin(), py.codebleuKeywords.end());
    EXPECT_TRUE(kw.count("True") && kw.count("match") && kw.count("type"));
    const auto s = codeBleu("x = 1\ny = 2", "x = 1\ny = x", "python", kw);
    EXPECT_NEAR(s.codebleu, 0.25 * (s.ngram + s.weightedNgram + 0.4 + 0.5), 1e-15);
    const auto n = codeBleu("pass", "pass", "python", kw); // no data flow in the reference
    EXPECT_DOUBLE_EQ(n.dataflow, 0.0);
    EXPECT_NEAR(n.codebleu, 0.25 * (n.ngram + n.weightedNgram + n.syntax + 1.0), 1e-15);
}
