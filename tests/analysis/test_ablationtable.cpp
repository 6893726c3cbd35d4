// The ΔAsC-Eval table of head ablation (method.md §14.1, analysis/ablationtable.h) on hand-made snippet values.
#include "ascviz/analysis/ablationtable.h"

#include <gtest/gtest.h>

namespace {

using ascviz::AblationSnippet;

TEST(AblationTable, DeltaIsTheMeanOfTheSnippetsDifferences)
{
    const std::vector<AblationSnippet> s = {
        {{{"Scope", 0.5}, {"Types", 0.8}}, {{"Scope", 0.4}, {"Types", 0.8}}},
        {{{"Scope", 0.6}}, {{"Scope", 0.3}}},
        {{{"Scope", 0.2}, {"Iterative", 0.9}}, {{"Scope", 0.2}}}, // Iterative only clean: not counted
    };
    const auto rows = ascviz::ablationDeltaRows(s, {"Types", "Scope"}, 200, 7);
    ASSERT_EQ(rows.size(), 2u); // Types, Scope in the given order; Iterative has no ablated value
    EXPECT_EQ(rows[0].category, "Types");
    EXPECT_EQ(rows[0].n, 1);
    EXPECT_DOUBLE_EQ(rows[0].delta, 0.0);
    EXPECT_DOUBLE_EQ(rows[0].ciLow, 0.0); // one snippet: every resample is that snippet
    EXPECT_DOUBLE_EQ(rows[0].ciHigh, 0.0);
    EXPECT_EQ(rows[1].category, "Scope");
    EXPECT_EQ(rows[1].n, 3);
    EXPECT_NEAR(rows[1].delta, (-0.1 - 0.3 + 0.0) / 3, 1e-12);
    // resample means lie between the smallest and the largest delta and the interval holds the mean here
    EXPECT_GE(rows[1].ciLow, -0.3 - 1e-12);
    EXPECT_LE(rows[1].ciHigh, 0.0 + 1e-12);
    EXPECT_LT(rows[1].ciLow, rows[1].delta);
    EXPECT_GT(rows[1].ciHigh, rows[1].delta);
    // seeded: the same seed gives the same interval
    EXPECT_EQ(ascviz::ablationDeltaRows(s, {}, 200, 7)[0].ciLow, rows[1].ciLow); // no order: by name, Scope first

    const auto j = ascviz::ablationRowsJson(rows);
    EXPECT_EQ(j[1].at("category"), "Scope");
    EXPECT_EQ(j[1].at("n"), 3);
    for (const char* key : {"delta", "ci_low", "ci_high"})
        EXPECT_TRUE(j[1].at(key).is_number()) << key;
}

TEST(AblationTable, ControlSpreadsOverTheDraws)
{
    // three draws of one snippet: deltas -0.1, -0.3, -0.2
    const std::vector<std::vector<AblationSnippet>> draws = {
        {{{{"Scope", 0.5}}, {{"Scope", 0.4}}}},
        {{{{"Scope", 0.5}}, {{"Scope", 0.2}}}},
        {{{{"Scope", 0.5}}, {{"Scope", 0.3}}}},
    };
    const auto rows = ascviz::controlDeltaRows(draws, {"Scope"});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_NEAR(rows[0].delta, -0.2, 1e-12);
    // numpy's linear percentiles of {-0.3, -0.2, -0.1}: 2.5 % at rank 0.05, 97.5 % at rank 1.95
    EXPECT_NEAR(rows[0].ciLow, -0.3 + 0.05 * 0.1, 1e-12);
    EXPECT_NEAR(rows[0].ciHigh, -0.2 + 0.95 * 0.1, 1e-12);
    EXPECT_EQ(rows[0].n, 1);
}

} // namespace
