// Galeras outcomes and refutation p-values against hand-computed values (docs/galeras.md).
#include "ascviz/analysis/refute.h"
#include "ascviz/galeras/outcomes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

using namespace ascviz;

TEST(GalerasOutcomes, LevenshteinSimilarity)
{
    EXPECT_NEAR(levenshteinSimilarity("kitten", "sitting"), 1.0 - 3.0 / 7.0, 1e-15); // k->s, e->i, +g
    EXPECT_DOUBLE_EQ(levenshteinSimilarity("", ""), 1.0);
    EXPECT_DOUBLE_EQ(levenshteinSimilarity("abc", ""), 0.0);
    EXPECT_DOUBLE_EQ(levenshteinSimilarity("abc", "abc"), 1.0);
    // code points, not bytes: é (2 bytes) vs e is one substitution of one
    EXPECT_DOUBLE_EQ(levenshteinSimilarity("\xC3\xA9", "e"), 0.0);
    EXPECT_DOUBLE_EQ(levenshteinSimilarity("a\xC3\xA9", "ae"), 0.5);
}

TEST(GalerasOutcomes, Bleu4)
{
    using V = std::vector<std::string>;
    EXPECT_DOUBLE_EQ(bleu4(V{"a", "b", "c", "d"}, V{"a", "b", "c", "d"}), 1.0);
    // every precision (m+1)/(c+1) = 1, brevity penalty exp(1 - 4/3)
    EXPECT_NEAR(bleu4(V{"a", "b", "c"}, V{"a", "b", "c", "d"}), std::exp(1.0 - 4.0 / 3.0), 1e-15);
    // p = 4/5, 2/4, 1/3, 1/2
    EXPECT_NEAR(bleu4(V{"a", "x", "c", "d"}, V{"a", "b", "c", "d"}), std::pow(0.8 * 0.5 / 3.0 * 0.5, 0.25), 1e-15);
    // clipping: one "a" in the reference; p = 2/4, 1/3, 1/2, 1/1; no brevity penalty (c > r)
    EXPECT_NEAR(bleu4(V{"a", "a", "a"}, V{"a"}), std::pow(1.0 / 12.0, 0.25), 1e-15);
    EXPECT_DOUBLE_EQ(bleu4(V{}, V{"a"}), 0.0);
}

TEST(GalerasOutcomes, ExactMatch)
{
    EXPECT_DOUBLE_EQ(exactMatch("  x = 1\n\n", "x = 1"), 1.0);
    EXPECT_DOUBLE_EQ(exactMatch("x=1", "x = 1"), 0.0);
}

TEST(GalerasOutcomes, LexicalTokensInContext)
{
    const std::string partial = "def f(x):\n";
    const auto t = lexicalTokensFrom(partial + "    return x + 1\n", partial.size(), "python");
    EXPECT_EQ(t, (std::vector<std::string>{"return", "x", "+", "1"}));
}

TEST(GalerasOutcomes, AstMatch)
{
    const std::string partial = "def f(x):\n";
    // reference subtrees after the partial code: (block (return_statement (identifier))),
    // (return_statement (identifier)), (identifier)
    const auto ref = subtreeSexps(partial + "    return x\n", partial.size(), "python");
    ASSERT_EQ(ref.size(), 3u);
    EXPECT_EQ(ref[1], "(return_statement (identifier))");
    EXPECT_DOUBLE_EQ(astMatch(partial, "    return y\n", "    return x\n", "python"), 1.0); // text ignored
    EXPECT_DOUBLE_EQ(astMatch(partial, "    return 1\n", "    return x\n", "python"), 0.0);
    // the candidate's block differs; its return statement and identifiers match: 2 of 3
    EXPECT_NEAR(astMatch(partial, "    y = x\n    return x\n", "    return x\n", "python"), 2.0 / 3.0, 1e-15);
}

TEST(GalerasRefute, PValueAsDoWhy)
{
    std::vector<double> sims(100);
    std::iota(sims.begin(), sims.end(), 0.0);               // 0..99: DoWhy 0.14's two-sided percentile test
    EXPECT_NEAR(refutationPValue(sims, 10.5), 0.22, 1e-15); // 89 above: 2·min(0.89, 0.11)
    EXPECT_NEAR(refutationPValue(sims, 95.0), 0.09, 1e-15); // 4 above, 1 equal: 2·0.045
    EXPECT_DOUBLE_EQ(refutationPValue(sims, 1000.0), 0.0);
    // fewer than 100: the normal test; mean 2, sd sqrt(2/3), z = 1.8371173, one-sided tail
    EXPECT_NEAR(refutationPValue({1, 2, 3}, 3.5), 0.03309628986109672, 1e-12);
}

TEST(GalerasRefute, PlaceboOnKnownData)
{
    // y = 5 d + a pattern orthogonal to d: ATE 5; permuted treatments give effects near 0, never 5
    std::vector<double> d, y, z;
    for (int i = 0; i < 60; ++i) {
        d.push_back(i % 2);
        z.push_back(std::sin(i * 0.7));
        y.push_back(5.0 * (i % 2) + 0.3 * z.back() + 0.1 * std::cos(i * 1.3));
    }
    RefuteOptions o;
    o.simulations = 100;
    const auto r = refuteEffect(d, y, {z}, 5.0, o);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].name, "placebo");
    EXPECT_EQ(r[0].simulations, 100);
    ASSERT_TRUE(r[0].p);
    // DoWhy tests the placebo effects against 0: they are centred on 0, so the refuter passes (p far from 0)
    EXPECT_GT(*r[0].p, 0.2);
    EXPECT_DOUBLE_EQ(r[0].reference, 0.0);
    EXPECT_LT(std::abs(r[0].newEffect), 0.5);
    // an added random common cause barely moves the estimate: the original is inside the distribution
    EXPECT_NEAR(r[1].newEffect, 5.0, 0.05);
    // a zero effect: the placebo distribution is around 0 too, the p-value far from 0
    std::vector<double> y0(y.size());
    for (std::size_t i = 0; i < y.size(); ++i)
        y0[i] = y[i] - 5.0 * d[i];
    const auto r0 = refuteEffect(d, y0, {z}, 0.0, o);
    ASSERT_TRUE(r0[0].p);
    EXPECT_GT(*r0[0].p, 0.2);
}
